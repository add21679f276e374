import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectLockConfigurationCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutObjectCommand,
  PutObjectRetentionCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  type ArtifactCheck,
  ArtifactConflictError,
  ArtifactCorruptError,
  type ArtifactStore,
  type ByteSpan,
  lockNotEnforced,
  type ObjectBody,
  type StorageHealth,
  StorageUnavailableError,
  digestCounter,
  digestOf,
  piecesOf,
} from './artifact-store.js';
import { isNotFound, isStorageUnavailable, S3StartError, s3ErrorCode, statusOf, unavailable } from './s3-errors.js';
import { type StorageLog, type StorageMonitor, watchS3 } from './s3-health.js';
import { blobKey, type NameRecord, nameKey, versionOf } from './s3-layout.js';
import { s3ObjectLock } from './s3-object-lock.js';
import type { S3Settings } from '../config/storage-config.js';

export { blobKey, nameKey } from './s3-layout.js';

/**
 * The artifact store in S3-compatible object storage (docs/storage.md). Two kinds of object:
 * - `blobs/sha256/<hex>`: the bytes, content-addressed — identical bytes are stored once, and nothing ever
 *   writes other bytes under a key. Bundles carry S3 Object Lock (compliance mode) until their retain-until date.
 * - `names/<name>`: a small JSON record `{digest, size, blob, version}` naming the blob (and its version) behind
 *   one of the service's object names (artifactObjectName), written once, with the same retention.
 * Reads of a name follow its record to the blob's version, so a delete marker put over a key hides nothing.
 * Storage that cannot be reached answers StorageUnavailableError: reads fail fast (the API answers 503 with
 * Retry-After), writes wait and retry with back-off for `outageWaitMs` first (a capture is not failed for it).
 */
const PART_BYTES = 8 * 1024 * 1024;
const RECORD_CACHE_SIZE = 10_000;

async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
}

export interface S3StoreOptions {
  /** How long a write waits through a storage outage before giving up (the worker then retries the capture). */
  outageWaitMs?: number;
  /** Create the bucket (with Object Lock) when it is absent; default true. The CLI only reads what is there. */
  createBucket?: boolean;
  /**
   * Retention is configured (RETENTION_DEFAULT_DAYS or a tenant's own): a bucket that cannot lock objects is
   * refused (S3StartError) unless the settings allow it (S3_ALLOW_UNLOCKED).
   */
  requireLock?: boolean;
  /** Where an outage and its end are logged (once each). */
  log?: StorageLog;
}

/**
 * The S3 adapter: the whole port (artifact-store.ts), storage that answers for itself (`health` is always its
 * monitor's view), locking objects when the bucket has Object Lock (`locks`; otherwise its lock only reads).
 */
export interface S3ArtifactStore extends ArtifactStore {
  health(): StorageHealth;
}

export function s3Client(s: S3Settings, endpoint = s.endpoint, maxAttempts = 2): S3Client {
  return new S3Client({
    region: s.region,
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: s.forcePathStyle,
    ...(s.credentials ? { credentials: s.credentials } : {}),
    // Checksums only where S3 requires them: S3-compatible servers (Ceph before 18, older MinIO) refuse the
    // aws-chunked trailers the SDK sends by default. Integrity is the ledger's SHA-256, checked on every read.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts,
  });
}

/** Opens the bucket (created with Object Lock enabled when absent) and returns the store over it. */
export async function openS3ArtifactStore(settings: S3Settings, opts: S3StoreOptions = {}): Promise<S3ArtifactStore> {
  const s3 = s3Client(settings);
  const Bucket = settings.bucket;
  const where = `S3 bucket ${Bucket} at ${settings.endpoint ?? `AWS S3 (${settings.region})`}`;
  try {
    await s3.send(new HeadBucketCommand({ Bucket }));
  } catch (err) {
    if (isStorageUnavailable(err)) throw unavailable(err, `opening ${where}`);
    if (!isNotFound(err)) throw await refusedStart(s3, settings, where, err);
    if (opts.createBucket === false) throw new S3StartError(`${where} does not exist`);
    // Another process may create it at the same moment: its bucket is as good as ours.
    await s3.send(new CreateBucketCommand({ Bucket, ObjectLockEnabledForBucket: true })).catch(async (err: unknown) => {
      if (statusOf(err) !== 409) throw await refusedStart(s3, settings, `creating ${where}`, err);
    });
  }
  const lockConfig = await s3.send(new GetObjectLockConfigurationCommand({ Bucket })).catch(async (err: unknown) => {
    if (isNotFound(err) || statusOf(err) === 400) return null;
    if (isStorageUnavailable(err)) throw unavailable(err, `opening ${where}`);
    throw await refusedStart(s3, settings, `reading the Object Lock configuration of ${where}`, err);
  });
  const lockEnabled = lockConfig?.ObjectLockConfiguration?.ObjectLockEnabled === 'Enabled';
  if (!lockEnabled && opts.requireLock && !settings.allowUnlocked)
    throw new S3StartError(
      `${where} has no Object Lock, so it cannot retain captures, but retention is configured (RETENTION_DEFAULT_DAYS or a tenant's own retention). ` +
        'Use a bucket created with Object Lock enabled (S3 cannot add it to most existing buckets; a new bucket the service creates has it), ' +
        'or set S3_ALLOW_UNLOCKED=true if this bucket is meant to store captures without retention (docs/storage.md).',
    );
  const monitor = watchS3(s3, {
    bucket: Bucket,
    endpoint: settings.endpoint ?? `AWS S3 (${settings.region})`,
    log: opts.log,
  });
  return s3ArtifactStoreOver(s3, settings, { ...opts, lockEnabled, monitor });
}

/**
 * A refusal at start (wrong credentials, no permission), with the S3 error code: a HEAD answer has no body to
 * carry one, so the code is asked for with a request whose error answer has one.
 */
async function refusedStart(s3: S3Client, settings: S3Settings, where: string, err: unknown): Promise<S3StartError> {
  let code = s3ErrorCode(err);
  if (!code)
    code = await s3
      .send(new ListObjectsV2Command({ Bucket: settings.bucket, MaxKeys: 1 }))
      .then(() => undefined)
      .catch((again: unknown) => s3ErrorCode(again));
  const status = statusOf(err);
  return new S3StartError(
    `${where} refused the service: ${code ?? 'no error code'}${status ? ` (HTTP ${status})` : ''}, with the credentials from ${settings.credentialSource ?? "the AWS SDK's default chain"}. ` +
      'Check the credentials and that they grant the permissions in docs/storage.md.',
  );
}

/** The bucket a store works on, with its settings and the name records read so far. */
interface S3Bucket {
  s3: S3Client;
  Bucket: string;
  settings: S3Settings;
  lockEnabled: boolean;
  outageWaitMs: number;
  monitor: StorageMonitor;
  /** The client that signs download links (for the public endpoint when there is one). */
  presigner: S3Client;
  /**
   * Name records are written once, so one read is good for the life of the process (a download then costs one
   * request for the blob, not two more for its record).
   */
  records: Map<string, NameRecord>;
}

export function s3ArtifactStoreOver(
  s3: S3Client,
  settings: S3Settings,
  opts: S3StoreOptions & { lockEnabled: boolean; monitor: StorageMonitor },
): S3ArtifactStore {
  const b: S3Bucket = {
    s3,
    Bucket: settings.bucket,
    settings,
    lockEnabled: opts.lockEnabled,
    outageWaitMs: opts.outageWaitMs ?? 600_000,
    monitor: opts.monitor,
    presigner: settings.publicEndpoint ? s3Client(settings, settings.publicEndpoint) : s3,
    records: new Map(),
  };
  const readRecord = (name: string) => once(`reading ${name}`, () => recordOf(b, name));
  return {
    kind: 's3',
    locks: b.lockEnabled,
    keepsMadeEvidence: true,
    put: (name, body, putOpts = {}) => putArtifact(b, name, body, putOpts.retainUntil),
    get: (name) => getArtifact(b, name),
    read: (name, range) => readArtifact(b, name, range),
    digest: async (name) => (await readRecord(name))?.digest ?? null,
    async stat(name) {
      const record = await readRecord(name);
      return record ? { size: record.size, digest: record.digest } : null;
    },
    check: (name) => checkArtifact(b, name),
    presign: (name, as) => presignArtifact(b, name, as),
    list: (prefix) => listNames(b, prefix),
    health: b.monitor.health,
    lock: b.lockEnabled
      ? s3ObjectLock({
          s3,
          Bucket: b.Bucket,
          recordOf: (name) => recordOf(b, name),
          once,
          patiently: (what, op) => patiently(b, what, op),
        })
      : lockNotEnforced(
          readRecord,
          'The S3 bucket has no Object Lock enabled, so storage cannot retain or hold objects; create the bucket with Object Lock (docs/storage.md).',
        ),
  };
}

/** A read: one try (the client's own retry included); an outage is StorageUnavailableError at once. */
async function once<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw unavailable(err, what);
  }
}

/** A write: waits through an outage with back-off (1 s doubling to 30 s) for up to outageWaitMs. */
async function patiently<T>(b: S3Bucket, what: string, op: () => Promise<T>): Promise<T> {
  const until = Date.now() + b.outageWaitMs;
  const written = b.monitor.writing();
  try {
    for (let delay = 1000; ; delay = Math.min(30_000, delay * 2)) {
      try {
        return await op();
      } catch (err) {
        if (!isStorageUnavailable(err) || Date.now() + delay > until) throw unavailable(err, what);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  } finally {
    written?.();
  }
}

async function getObject(b: S3Bucket, Key: string, extra: { VersionId?: string; Range?: string } = {}) {
  try {
    return await b.s3.send(new GetObjectCommand({ Bucket: b.Bucket, Key, ...extra }));
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** The first version written under a key (write-once): the current one, else the oldest one not deleted. */
async function firstVersion(b: S3Bucket, Key: string) {
  const current = await getObject(b, Key);
  if (current) return current;
  const listed = await b.s3.send(new ListObjectVersionsCommand({ Bucket: b.Bucket, Prefix: Key }));
  const versions = (listed.Versions ?? []).filter((v) => v.Key === Key && v.VersionId);
  const oldest = versions.sort((x, y) => (x.LastModified?.getTime() ?? 0) - (y.LastModified?.getTime() ?? 0))[0];
  return oldest ? getObject(b, Key, { VersionId: oldest.VersionId! }) : null;
}

async function recordOf(b: S3Bucket, name: string): Promise<NameRecord | null> {
  const known = b.records.get(name);
  if (known) return known;
  const got = await firstVersion(b, nameKey(name));
  if (!got?.Body) return null;
  const record = JSON.parse(await got.Body.transformToString()) as NameRecord;
  if (b.records.size >= RECORD_CACHE_SIZE) b.records.delete(b.records.keys().next().value!);
  b.records.set(name, record);
  return record;
}

async function blobBytes(b: S3Bucket, name: string, record: NameRecord): Promise<Uint8Array | null> {
  const got = await getObject(b, record.blob, versionOf(record));
  if (!got?.Body) return null;
  const bytes = await collect(got.Body as AsyncIterable<Uint8Array>);
  if (bytes.byteLength !== record.size)
    throw new ArtifactCorruptError(`${name}: ${bytes.byteLength} bytes stored, ${record.size} recorded`, name);
  if (digestOf(bytes) !== record.digest)
    throw new ArtifactCorruptError(`${name}: stored bytes do not match the recorded digest ${record.digest}`, name);
  return bytes;
}

const blobMissing = (name: string, record: NameRecord) =>
  new ArtifactCorruptError(
    `${name}: its blob ${record.blob}${record.version ? ` (version ${record.version})` : ''} is missing from storage`,
    name,
    true,
  );

const lockParams = (b: S3Bucket, retainUntil: Date | undefined) =>
  retainUntil && b.lockEnabled ? { ObjectLockMode: 'COMPLIANCE' as const, ObjectLockRetainUntilDate: retainUntil } : {};

/** Locks a stored version until `retainUntil` unless it is held that long already (never shortens). */
async function retainAtLeast(
  b: S3Bucket,
  key: string,
  head: { VersionId?: string | undefined; ObjectLockRetainUntilDate?: Date | undefined },
  retainUntil: Date | undefined,
) {
  const held = head.ObjectLockRetainUntilDate;
  if (retainUntil && b.lockEnabled && (!held || held < retainUntil))
    await b.s3.send(
      new PutObjectRetentionCommand({
        Bucket: b.Bucket,
        Key: key,
        VersionId: head.VersionId,
        Retention: { Mode: 'COMPLIANCE', RetainUntilDate: retainUntil },
      }),
    );
}

/**
 * Makes `key` hold the blob: left alone when it holds these bytes already (a longer retention is added, never a
 * shorter one), else written by `write`, which answers the new version and whether the write itself locked it.
 * A multipart upload or a copy is read back and locked after: S3 servers differ in whether they take the lock
 * headers there (radosgw takes neither) and whether a copy answers its version (the name record pins it).
 */
async function ensureBlob(
  b: S3Bucket,
  key: string,
  size: number,
  retainUntil: Date | undefined,
  write: () => Promise<{ version: string | undefined; locked: boolean }>,
): Promise<string | undefined> {
  const head = await b.s3.send(new HeadObjectCommand({ Bucket: b.Bucket, Key: key })).catch((err: unknown) => {
    if (isNotFound(err)) return null;
    throw err;
  });
  if (head && head.ContentLength === size) {
    await retainAtLeast(b, key, head, retainUntil);
    return head.VersionId;
  }
  const written = await write();
  if (written.locked || (written.version && !(retainUntil && b.lockEnabled))) return written.version;
  const stored = await b.s3.send(
    new HeadObjectCommand({ Bucket: b.Bucket, Key: key, ...(written.version ? { VersionId: written.version } : {}) }),
  );
  await retainAtLeast(b, key, stored, retainUntil);
  return stored.VersionId;
}

async function putBlob(
  b: S3Bucket,
  key: string,
  bytes: Uint8Array,
  retainUntil: Date | undefined,
): Promise<string | undefined> {
  return ensureBlob(b, key, bytes.byteLength, retainUntil, async () => {
    const params = {
      Bucket: b.Bucket,
      Key: key,
      Body: bytes,
      ContentLength: bytes.byteLength,
      ...lockParams(b, retainUntil),
    };
    if (bytes.byteLength <= PART_BYTES)
      return { version: (await b.s3.send(new PutObjectCommand(params))).VersionId, locked: true };
    // Large objects go up in parts (multipart upload), a few at a time.
    const done = await new Upload({ client: b.s3, params, partSize: PART_BYTES, queueSize: 4 }).done();
    return { version: (done as { VersionId?: string }).VersionId, locked: false };
  });
}

/**
 * A streamed body: its digest is known only at its end, so it goes up (in parts) to a staging key first,
 * then is copied inside S3 to its content-addressed key (up to S3's 5 GB copy limit) and the staging object
 * is deleted. A stream is consumed once, so an outage fails the put at once (the caller retries with a new
 * stream) instead of waiting.
 */
async function putStream(b: S3Bucket, body: AsyncIterable<Uint8Array>, retainUntil: Date | undefined) {
  const { s3, Bucket } = b;
  const seen = digestCounter();
  const staging = `staging/${randomUUID()}`;
  const counted = Readable.from(
    (async function* () {
      for await (const piece of body) {
        seen.add(piece);
        yield piece;
      }
    })(),
  );
  const staged = (await new Upload({
    client: s3,
    params: { Bucket, Key: staging, Body: counted },
    partSize: PART_BYTES,
    queueSize: 2,
  }).done()) as { VersionId?: string };
  const digest = seen.digest();
  const blob = blobKey(digest);
  try {
    const version = await ensureBlob(b, blob, seen.size, retainUntil, async () => {
      const copied = await s3.send(
        new CopyObjectCommand({ Bucket, Key: blob, CopySource: `${Bucket}/${staging}`, ...lockParams(b, retainUntil) }),
      );
      return { version: copied.VersionId, locked: false };
    });
    return { digest, size: seen.size, blob, version };
  } finally {
    await s3
      .send(
        new DeleteObjectCommand({ Bucket, Key: staging, ...(staged.VersionId ? { VersionId: staged.VersionId } : {}) }),
      )
      .catch(() => {}); // an unlocked leftover under staging/, harmless
  }
}

/** ArtifactStore.put: the blob (bytes or a stream), then the write-once record naming it. */
async function putArtifact(b: S3Bucket, name: string, body: ObjectBody, retainUntil: Date | undefined) {
  const existing = await patiently(b, `reading ${name}`, () => recordOf(b, name));
  if (existing) {
    const seen = digestCounter();
    for await (const piece of piecesOf(body, PART_BYTES)) seen.add(piece);
    if (existing.digest === seen.digest() && existing.size === seen.size) return;
    throw new ArtifactConflictError(`${name} is stored already with other bytes; artifacts are write-once`);
  }
  let record: NameRecord;
  if (body instanceof Uint8Array) {
    const digest = digestOf(body);
    const blob = blobKey(digest);
    const version = await patiently(b, `storing ${name}`, () => putBlob(b, blob, body, retainUntil));
    record = { digest, size: body.byteLength, blob, ...(version ? { version } : {}) };
  } else {
    // Under way from its first part to its copy (capture_ledger_storage_pending_writes), though it does not
    // wait through an outage.
    const written = b.monitor.writing();
    try {
      const { version, ...rest } = await once(`storing ${name}`, () => putStream(b, body, retainUntil));
      record = { ...rest, ...(version ? { version } : {}) };
    } finally {
      written?.();
    }
  }
  await patiently(b, `storing ${name}`, () =>
    b.s3.send(
      new PutObjectCommand({
        Bucket: b.Bucket,
        Key: nameKey(name),
        Body: JSON.stringify(record),
        ContentType: 'application/json',
        ...lockParams(b, retainUntil),
      }),
    ),
  );
}

async function getArtifact(b: S3Bucket, name: string): Promise<Uint8Array | null> {
  return once(`reading ${name}`, async () => {
    const record = await recordOf(b, name);
    if (!record) return null;
    // The name is recorded: its bytes gone is a loss to report, never "not made yet".
    const bytes = await blobBytes(b, name, record);
    if (!bytes) throw blobMissing(name, record);
    return bytes;
  });
}

async function readArtifact(b: S3Bucket, name: string, range: ByteSpan | undefined) {
  return once(`reading ${name}`, async () => {
    const record = await recordOf(b, name);
    if (!record) return null;
    if (range && range.end < range.start) return { size: record.size, body: [] };
    const got = await getObject(b, record.blob, {
      ...versionOf(record),
      ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
    });
    if (!got?.Body) throw blobMissing(name, record);
    return { size: record.size, body: got.Body as AsyncIterable<Uint8Array> };
  });
}

async function checkArtifact(b: S3Bucket, name: string): Promise<ArtifactCheck> {
  const record = await once(`reading ${name}`, () => recordOf(b, name));
  if (!record) return { status: 'missing' };
  try {
    const bytes = await once(`reading ${name}`, () => blobBytes(b, name, record));
    if (!bytes) return { status: 'missing', detail: blobMissing(name, record).message };
    return { status: 'ok', size: record.size, digest: record.digest };
  } catch (err) {
    if (err instanceof ArtifactCorruptError) return { status: 'corrupt', detail: err.message };
    throw err;
  }
}

async function presignArtifact(b: S3Bucket, name: string, as: { fileName: string; type: string }) {
  // A link into storage that does not answer helps nobody: 503 with Retry-After instead, until it answers.
  if (b.monitor.health().status !== 'ok' && (await b.monitor.probe()).status !== 'ok')
    throw new StorageUnavailableError(`Object storage is unavailable (${b.monitor.health().store})`);
  const record = await once(`reading ${name}`, () => recordOf(b, name));
  if (!record) return null;
  return getSignedUrl(
    b.presigner,
    new GetObjectCommand({
      Bucket: b.Bucket,
      Key: record.blob,
      ...versionOf(record),
      ResponseContentType: as.type,
      ResponseContentDisposition: `attachment; filename="${as.fileName.replace(/["\\\r\n]/g, '_')}"`,
    }),
    { expiresIn: b.settings.presignSeconds },
  );
}

async function listNames(b: S3Bucket, prefix: string): Promise<string[]> {
  const names: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await once(`listing ${prefix}`, () =>
      b.s3.send(new ListObjectsV2Command({ Bucket: b.Bucket, Prefix: nameKey(prefix), ContinuationToken })),
    );
    for (const o of page.Contents ?? []) if (o.Key) names.push(o.Key.slice(nameKey('').length));
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return names;
}
