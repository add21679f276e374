import { createHash } from 'node:crypto';

/**
 * The artifact store: the port every part of the service stores and reads evidence objects through (DESIGN
 * decision 5, docs/storage.md). Two adapters implement all of it: JetStream (jetstream-artifact-store.ts, the
 * default: objects beside the log) and S3 (s3-artifact-store.ts: content-addressed blobs under S3 Object Lock).
 * Where the JetStream store has nothing to do (it neither locks nor presigns nor is watched apart from NATS) its
 * member answers as documented below, so callers never ask which adapter they hold; what differs in what they
 * may promise is said by the capability members (`locks`, `keepsMadeEvidence`).
 */
export interface ArtifactStore {
  /**
   * Which adapter, as reports name it (`jetstream` or `s3`; e.g. a capture's retention view). A label only:
   * what a caller may rely on is said by the members and capabilities below.
   */
  readonly kind: 'jetstream' | 's3';
  /**
   * Whether storage enforces retention and legal hold (S3 with Object Lock, compliance mode). False for JetStream
   * and for an S3 bucket without Object Lock: `lock` then only reads (see ObjectLock), and the retention API
   * answers 409 with `lock.unavailable`.
   */
  readonly locks: boolean;
  /**
   * Whether what is made of a capture later (its certificate, corroboration records) is stored here beside its
   * artifacts, so it is locked and migrated with them (S3), or stays in the service's KV buckets (JetStream).
   */
  readonly keepsMadeEvidence: boolean;
  /**
   * Store `bytes` under `name`; a name is written once (ArtifactConflictError for other bytes under a stored name).
   * `retainUntil`: storage that can lock objects (S3 Object Lock, compliance mode) refuses deleting or
   * overwriting them before then; the JetStream store never deletes anything anyway. `body` is the bytes, or a
   * stream of them for a large object (a session video): neither store then holds it whole in memory.
   */
  put(name: string, body: ObjectBody, opts?: { retainUntil?: Date }): Promise<void>;
  /** The bytes, or null when nothing complete is stored under `name`; ArtifactCorruptError when they do not match the digest. */
  get(name: string): Promise<Uint8Array | null>;
  /**
   * The object's size and its bytes from `range.start` to `range.end` (inclusive; the whole object without a
   * range) as a stream, for downloads: the S3 adapter never holds the object in memory. Null when absent.
   */
  read(
    name: string,
    range?: ByteSpan,
  ): Promise<{ size: number; body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> } | null>;
  /** The digest of what is stored under `name` (`SHA-256=` + base64url), or null. */
  digest(name: string): Promise<string | null>;
  /** The size and digest of what is stored under `name` (without reading it), or null. */
  stat(name: string): Promise<{ size: number; digest: string } | null>;
  /** Read the object in full and check it against its digest (`capture-ledger storage verify`). */
  check(name: string): Promise<ArtifactCheck>;
  /**
   * A short-lived URL a client downloads the object from directly, or null: S3 answers null when the object is
   * absent; JetStream always answers null (nothing outside the service can read it: the API streams the bytes).
   */
  presign(name: string, as: { fileName: string; type: string }): Promise<string | null>;
  /** Retention and legal hold of stored objects (retention.ts): S3 Object Lock, or a lock that only reads (`locks`). */
  readonly lock: ObjectLock;
  /**
   * The stored names that start with `prefix` (a capture's evidence: `<captureId>/`, `diffs/<captureId>/`), sorted.
   * JetStream reads them from the objects' meta entries (storedNamesIn: one pass over the bucket's names).
   */
  list(prefix: string): Promise<string[]>;
  /**
   * Whether the storage answers, as last seen (GET /health, presigned downloads); null when there is no storage
   * apart from the ledger's own NATS to watch (JetStream: NATS's health is the readiness check's), and GET /health
   * then leaves `storage` out.
   */
  health(): StorageHealth | null;
}

/** The object storage as last seen: `down` from the first failed request until one succeeds again. */
export interface StorageHealth {
  status: 'ok' | 'degraded';
  /** Which store: `s3 bucket <bucket> at <endpoint>`. */
  store: string;
  /** Since when it has not answered (degraded only). */
  since?: string;
  /** The last error (degraded only). */
  error?: string;
}

/** An object's bytes: whole, or as a stream (consumed once: a failed put of a stream is retried with a new one). */
export type ObjectBody = Uint8Array | AsyncIterable<Uint8Array>;

/** The body's bytes in pieces of at most `size` bytes (the last one shorter; none for an empty body). */
export async function* piecesOf(body: ObjectBody, size: number): AsyncGenerator<Uint8Array> {
  if (body instanceof Uint8Array) {
    for (let offset = 0; offset < body.byteLength; offset += size) yield body.subarray(offset, offset + size);
    return;
  }
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for await (const part of body) {
    let rest = part;
    while (pendingBytes + rest.byteLength >= size) {
      const take = size - pendingBytes;
      pending.push(rest.subarray(0, take));
      yield Buffer.concat(pending);
      rest = rest.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (rest.byteLength > 0) {
      pending.push(rest);
      pendingBytes += rest.byteLength;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

/** SHA-256 and size of bytes seen one piece at a time, in the store's digest form. */
export function digestCounter() {
  const hash = createHash('sha256');
  let size = 0;
  return {
    add(piece: Uint8Array) {
      hash.update(piece);
      size += piece.byteLength;
    },
    get size() {
      return size;
    },
    digest: () => `${DIGEST_PREFIX + hash.digest('base64url')}=`,
  };
}

export interface ByteSpan {
  start: number;
  end: number;
}

/**
 * Retention and legal hold of stored objects. Where storage cannot lock (`ArtifactStore.locks` false: JetStream,
 * or an S3 bucket without Object Lock) `state` answers no retention and no hold for a stored object, `legalHold`
 * and `retain` do nothing (as a put's `retainUntil` does nothing there), and `remove` is refused
 * (ArtifactLockedError): neither store deletes evidence on request.
 */
export interface ObjectLock {
  /** Why storage cannot retain or hold objects (what the retention API answers 409 with), or null when it can. */
  readonly unavailable: string | null;
  /** The object's retain-until date and legal hold, or null when absent. */
  state(name: string): Promise<{ retainUntil: Date | null; legalHold: boolean } | null>;
  /**
   * Place (true) or lift (false) a legal hold on the named objects. Lifting leaves held whatever stored bytes
   * one of `stillHeld` (the objects of other captures under a hold) also names: identical bytes are stored once.
   */
  legalHold(names: readonly string[], on: boolean, stillHeld?: readonly string[]): Promise<void>;
  /** Ask storage to delete the object; ArtifactLockedError when Object Lock refuses (the point of it). */
  remove(name: string): Promise<void>;
  /** Ask storage to move the retain-until date; ArtifactLockedError when that would shorten it. */
  retain(name: string, until: Date): Promise<void>;
}

/** The storage refused a delete or a shortened retention (S3 Object Lock, compliance mode). */
export class ArtifactLockedError extends Error {
  override name = 'ArtifactLockedError';
}

/** The object storage cannot be reached (down, restarting): retry later; nothing was lost. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
  constructor(
    message: string,
    readonly retryAfterS = 5,
  ) {
    super(message);
  }
}

export type ArtifactCheck =
  | { status: 'ok'; size: number; digest: string }
  | { status: 'missing'; detail?: string }
  | { status: 'corrupt'; detail: string };

export class ArtifactConflictError extends Error {
  override name = 'ArtifactConflictError';
}

/**
 * A stored object that does not hold what its record says: damaged bytes, or (`missing`) bytes gone from storage
 * while the name is still recorded. `object` is the name `capture-ledger storage verify` reports; the API answers
 * 500 naming it (problem.ts), never a retry.
 */
export class ArtifactCorruptError extends Error {
  override name = 'ArtifactCorruptError';
  constructor(
    message: string,
    readonly object?: string,
    readonly missing = false,
  ) {
    super(message);
  }
}

const DIGEST_PREFIX = 'SHA-256=';
/** The digest of `bytes` in the stores' form: `SHA-256=` + base64url (+ `=`). */
export const digestOf = (bytes: Uint8Array) =>
  `${DIGEST_PREFIX + createHash('sha256').update(bytes).digest('base64url')}=`;
/** Whether two digests in the stores' form are the same (with or without the base64 padding). */
export const sameDigest = (a: string, b: string) => a.replace(/=+$/, '') === b.replace(/=+$/, '');

/**
 * The lock of storage that cannot lock objects (see ObjectLock: reads no retention, changes nothing);
 * `unavailable` says why.
 */
export function lockNotEnforced(
  stat: (name: string) => Promise<{ size: number; digest: string } | null>,
  unavailable: string,
): ObjectLock {
  return {
    unavailable,
    async state(name) {
      return (await stat(name)) ? { retainUntil: null, legalHold: false } : null;
    },
    async legalHold() {},
    async retain() {},
    async remove(name) {
      throw new ArtifactLockedError(`${name} is not deleted: ${unavailable}`);
    },
  };
}
