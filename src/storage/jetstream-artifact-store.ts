import {
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type StoredMsg,
} from '@nats-io/jetstream';
import { type NatsConnection, nuid } from '@nats-io/transport-node';
import { openObjectBucket } from '../infra/nats-buckets.js';
import { isNatsUnavailable } from '../infra/nats-unavailable.js';
import { ARTIFACT_BUCKET } from '../ledger/streams.js';
import {
  type ArtifactCheck,
  ArtifactConflictError,
  ArtifactCorruptError,
  type ArtifactStore,
  digestCounter,
  digestOf,
  lockNotEnforced,
  type ObjectBody,
  piecesOf,
  sameDigest,
} from './artifact-store.js';

/**
 * The JetStream adapter of the artifact store (artifact-store.ts), the default: artifacts live beside the log
 * (DESIGN decision 5) as write-once objects in the `OBJ_artifacts` stream, in the nats.js object store's layout
 * (so objects written before by that library read the same), but written here with plain JetStream publishes.
 *
 * Why not the library's put: it purges with a subject filter — the old chunks when a name is written again,
 * its own chunks when a put fails midway — and nats-server before 2.9.21 replays such a purge of a replicated
 * stream as a full purge up to it when the stream recovers after a restart (nats-server #4196): the front of
 * the stream, every older artifact, vanished (test/e2e/nats-purge-replay.e2e.spec.ts). So here
 * nothing is ever purged, deleted or rolled up:
 * - a name is written once: the worker names each attempt's objects on its own (artifactObjectName), a put of
 *   bytes already stored under the name is skipped, other bytes under a stored name are refused;
 * - chunks go first, each with a `Nats-Msg-Id` so a retried publish is deduplicated, and the object's meta
 *   entry last: a reader sees an object only once its meta is there, so a put cut short (a NATS node killed
 *   under it) leaves orphan chunks that nothing names — harmless, and left for a later, safe clean-up;
 * - reads come from the stream's leader (not a possibly lagging replica) and check the digest.
 * It cannot lock objects (`locks` false: ObjectLock reads no retention and no hold, its changes do nothing), hands
 * out no presigned links (`presign` null: the API streams downloads), keeps certificates and corroboration records
 * in the KV buckets (`keepsMadeEvidence` false) and has no health of its own to report (`health` null).
 */

/** The object's entry as the nats.js object store writes it (wire names), so both read each other's objects. */
interface ObjectMeta {
  name: string;
  bucket: string;
  nuid: string;
  size: number;
  chunks: number;
  digest: string;
  mtime: string;
  deleted?: boolean;
  options?: { max_chunk_size?: number; link?: unknown };
}

const STREAM = `OBJ_${ARTIFACT_BUCKET}`;
/**
 * Chunks of 512 KiB rather than the library's default 128 KiB (well under NATS's 1 MB payload limit): a capture
 * stores a full-page PNG twice (the artifact and the WACZ), and each chunk is one publish awaited in turn, which on a
 * busy worker waits its turn on the event loop. Objects of either size read the same (the meta records the size).
 */
export const CHUNK_BYTES = 512 * 1024;
const WRONG_LAST_SEQUENCE = 10071;
const PUBLISH_TRIES = 5;

/** Where an object's chunks and its meta entry live: the nats.js object store's layout, so its tools read it too. */
export const chunkSubject = (id: string) => `$O.${ARTIFACT_BUCKET}.C.${id}`;
/** The library's meta subject: the name in padded base64url. */
export function metaSubject(name: string): string {
  const b64 = Buffer.from(name, 'utf8').toString('base64url');
  return `$O.${ARTIFACT_BUCKET}.M.${b64}${'='.repeat((4 - (b64.length % 4)) % 4)}`;
}

async function withRetries<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (attempt >= PUBLISH_TRIES || !isNatsUnavailable(err)) throw err;
      await new Promise((r) => setTimeout(r, 250 * attempt));
    }
  }
}

export function artifactStoreOver(js: JetStreamClient, jsm: JetStreamManager): ArtifactStore {
  const c: Clients = { js, jsm };
  const store: ArtifactStore = {
    kind: 'jetstream',
    locks: false,
    keepsMadeEvidence: false,
    put: (name, body) => putObject(c, name, body),
    async get(name) {
      const meta = await metaOf(c, name);
      return meta ? readObject(c, meta) : null;
    },
    async read(name, range) {
      // Chunks are checked against the whole object's digest, so a range is cut from the whole object here.
      const meta = await metaOf(c, name);
      if (!meta) return null;
      const bytes = await readObject(c, meta);
      const part = range ? bytes.subarray(range.start, range.end + 1) : bytes;
      return { size: bytes.byteLength, body: [part] };
    },
    digest: async (name) => (await metaOf(c, name))?.digest ?? null,
    async stat(name) {
      const meta = await metaOf(c, name);
      return meta ? { size: meta.size, digest: meta.digest } : null;
    },
    check: (name) => checkObject(c, name),
    presign: async () => null,
    lock: lockNotEnforced(
      (name) => store.stat(name),
      'Retention and legal hold need S3 storage with Object Lock (ARTIFACT_STORE=s3, docs/storage.md); the JetStream store cannot lock objects.',
    ),
    list: (prefix) => storedNamesIn(js, prefix),
    health: () => null,
  };
  return store;
}

/** The clients the store reads and writes the object store's stream with. */
interface Clients {
  js: JetStreamClient;
  jsm: JetStreamManager;
}

async function metaOf({ jsm }: Clients, name: string): Promise<ObjectMeta | null> {
  const m = await withRetries(() => jsm.streams.getMessage(STREAM, { last_by_subj: metaSubject(name) }));
  if (!m) return null;
  const meta = m.json<ObjectMeta>();
  return meta.deleted ? null : meta;
}

/** The object's chunks in stream order, read from the leader; a chunk that is not there is reported, never waited for. */
async function readObject({ jsm }: Clients, meta: ObjectMeta): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let seq = 1;
  for (let i = 0; i < meta.chunks; i++) {
    // STREAM.MSG.GET takes next_by_subj from nats-server 2.9 on; the client's type names only seq and last_by_subj.
    const query = { seq, next_by_subj: chunkSubject(meta.nuid) } as unknown as { seq: number };
    const m: StoredMsg | null = await withRetries(() => jsm.streams.getMessage(STREAM, query));
    if (!m)
      throw new ArtifactCorruptError(
        `${meta.name}: chunk ${i + 1} of ${meta.chunks} is missing from storage`,
        meta.name,
      );
    parts.push(m.data);
    seq = m.seq + 1;
  }
  const bytes = Buffer.concat(parts);
  if (bytes.byteLength !== meta.size)
    throw new ArtifactCorruptError(`${meta.name}: ${bytes.byteLength} bytes stored, ${meta.size} recorded`, meta.name);
  if (!sameDigest(digestOf(bytes), meta.digest))
    throw new ArtifactCorruptError(
      `${meta.name}: stored bytes do not match the recorded digest ${meta.digest}`,
      meta.name,
    );
  return bytes;
}

async function publish({ js }: Clients, subject: string, data: Uint8Array | string, msgID: string, expectNew = false) {
  return withRetries(() =>
    js.publish(subject, data, {
      msgID,
      timeout: 10_000,
      ...(expectNew ? { expect: { lastSubjectSequence: 0 } } : {}),
    }),
  );
}

/** Already stored under `name`: fine when it is these bytes (a retried write), refused otherwise (write-once). */
function alreadyStored(name: string, existing: ObjectMeta, digest: string, size: number): void {
  if (sameDigest(existing.digest, digest) && existing.size === size) return;
  throw new ArtifactConflictError(`${name} is stored already with other bytes; artifacts are write-once`);
}

/** ArtifactStore.put: the chunks as the body arrives, then the meta entry with the digest, written once. */
async function putObject(c: Clients, name: string, body: ObjectBody): Promise<void> {
  const seen = digestCounter();
  const existing = await metaOf(c, name);
  if (existing) {
    for await (const piece of piecesOf(body, CHUNK_BYTES)) seen.add(piece);
    return alreadyStored(name, existing, seen.digest(), seen.size);
  }
  const id = nuid.next();
  let chunks = 0;
  for await (const piece of piecesOf(body, CHUNK_BYTES)) {
    seen.add(piece);
    await publish(c, chunkSubject(id), piece, `${id}.${chunks}`);
    chunks++;
  }
  const digest = seen.digest();
  const meta: ObjectMeta = {
    name,
    bucket: ARTIFACT_BUCKET,
    nuid: id,
    size: seen.size,
    chunks,
    digest,
    mtime: new Date().toISOString(),
    deleted: false,
    options: { max_chunk_size: CHUNK_BYTES },
  };
  try {
    // Expected last subject sequence 0: a second writer of the name is refused by the server too.
    await publish(c, metaSubject(name), JSON.stringify(meta), `${id}.meta`, true);
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE)) throw err;
    const winner = await metaOf(c, name);
    if (!winner) throw err;
    alreadyStored(name, winner, digest, seen.size);
  }
}

async function checkObject(c: Clients, name: string): Promise<ArtifactCheck> {
  const meta = await metaOf(c, name);
  if (!meta) return { status: 'missing' };
  try {
    await readObject(c, meta);
    return { status: 'ok', size: meta.size, digest: meta.digest };
  } catch (err) {
    if (err instanceof ArtifactCorruptError) return { status: 'corrupt', detail: err.message };
    throw err;
  }
}

/**
 * Every name the JetStream artifacts bucket holds that starts with `prefix`, read from the objects' meta entries
 * (one pass over the last entry of each meta subject, as the nats.js object store lists a bucket, keeping only
 * the names asked for): `storage migrate` finds the diff evidence of a capture this way, whose names the ledger
 * does not record.
 */
export async function storedNamesIn(js: JetStreamClient, prefix: string): Promise<string[]> {
  const consumer = await js.consumers.get(STREAM, {
    filter_subjects: `$O.${ARTIFACT_BUCKET}.M.>`,
    deliver_policy: DeliverPolicy.LastPerSubject,
  });
  const names: string[] = [];
  // Batch after batch until the entry after which none is pending (a fetch short of its size would wait for
  // its expiry); a bucket without entries ends at the first, empty, batch.
  for (let last = false, got = 1; !last && got > 0; ) {
    got = 0;
    for await (const m of await consumer.fetch({ max_messages: 500, expires: 5_000 })) {
      got++;
      const meta = m.json<ObjectMeta>();
      if (!meta.deleted && meta.name.startsWith(prefix)) names.push(meta.name);
      last = m.info.pending === 0;
      if (last) break;
    }
  }
  return names.sort();
}

/** Opens (creates when absent, as provisioning does) the artifacts bucket with `replicas` replicas. */
export async function openArtifactStore(nc: NatsConnection, replicas = 1): Promise<ArtifactStore> {
  await openObjectBucket(nc, ARTIFACT_BUCKET, replicas);
  return artifactStoreOver(jetstream(nc, { timeout: 10_000 }), await jetstreamManager(nc));
}
