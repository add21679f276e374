import { randomUUID } from 'node:crypto';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { Logger } from 'pino';
import {
  type ArchiveManifest,
  type ArchiveRecord,
  checkArchiveSegment,
} from '../../packages/verifier/src/archive-segment.js';
import type { ArchiveBucket } from './archive-bucket.js';
import { type ArchiveKeys, manifestKeyOf } from './archive-keys.js';
import { archiveLease, RENEW_MS } from './archive-lease.js';
import { recordsOfBody } from './archive-reader.js';
import { ARCHIVE_SOURCES, readSource, recordOf } from './archive-sources.js';
import { type ArchiveStatus, STATUS_KEY } from './archive-status.js';
import { type ArchiveHead, buildSegment, EMPTY_HEAD, headOf, segmentObjects } from './segment-builder.js';

/**
 * The archiver (docs/operators.md, The archive): while it holds the lease, it reads what the sources hold after
 * the archive's cursor and seals it into the next segment every `intervalMs` or `maxRecords` records. Where it
 * stands is read from the archive's last manifest at start and after any failure (a crash, an S3 outage, a lost
 * lease), so a segment is never skipped or written twice by this process. It only reads the sources: a capture
 * never waits for it.
 *
 * Two archivers can still meet at one segment number: one whose S3 write outlasted its lease (its renewals cut
 * off) and the one that took the lease over. The lease is renewed while a write is in flight and checked again
 * before the manifest is written, and both objects are created only if absent, so the later writer of a number
 * finds the earlier one's objects: it takes a body left without its manifest as its own (the same sources from
 * the same cursor), and on a manifest already there it reads the archive's last manifest again.
 */
export interface ArchiverOptions {
  nats: { js: JetStreamClient; jsm: JetStreamManager };
  /** Opens the archive's bucket: called when first needed, and again until it succeeds (an S3 outage at start). */
  bucket: () => Promise<ArchiveBucket>;
  keys: ArchiveKeys;
  /** The `ledger-archive` bucket: the lease and the status the API reports. */
  state: KV;
  intervalMs: number;
  maxRecords: number;
  retentionDays: number;
  now?: () => Date;
  /** Its name in the lease (default: the process id and a random id). */
  holder?: string;
  log: Logger;
}

export interface Archiver {
  stop(): Promise<void>;
}

const STREAMS = ARCHIVE_SOURCES.map((s) => s.stream);
const MAX_BACKOFF_MS = 10_000;

/** One archiver as it runs: its options, its lease, the bucket once opened and how to wake its sleep. */
interface Archiving {
  opts: ArchiverOptions;
  now: () => Date;
  lease: ReturnType<typeof archiveLease>;
  running: boolean;
  opened: ArchiveBucket | null;
  wake: (() => void) | null;
}

const bucketOf = async (a: Archiving) => (a.opened ??= await a.opts.bucket());

/** Waits ms, or less when stop() wakes it. */
function sleep(a: Archiving, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!a.running) return resolve();
    const timer = setTimeout(resolve, ms);
    a.wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
}

async function resume(a: Archiving): Promise<ArchiveHead> {
  const bucket = await bucketOf(a);
  const last = await bucket.lastSegment();
  if (last === 0) return EMPTY_HEAD(STREAMS);
  const bytes = await bucket.readManifest(last);
  if (!bytes) throw new Error(`segment ${last} of ${bucket.where} has no manifest`);
  return headOf(JSON.parse(Buffer.from(bytes).toString('utf8')) as ArchiveManifest, bytes, STREAMS);
}

async function collect({ opts }: Archiving, head: ArchiveHead): Promise<ArchiveRecord[]> {
  const records: ArchiveRecord[] = [];
  for (const source of ARCHIVE_SOURCES) {
    const messages = await readSource(
      opts.nats,
      source,
      head.cursor[source.stream] ?? 0,
      opts.maxRecords - records.length,
    );
    for (const m of messages) records.push(recordOf(source, m, opts.keys.seal));
  }
  return records;
}

/** Runs `write` renewing the lease meanwhile; `stillHeld` renews it once more and says whether it is still held. */
async function holdingLease<T>(a: Archiving, write: (stillHeld: () => Promise<boolean>) => Promise<T>): Promise<T> {
  let lost = false;
  let renewing = Promise.resolve();
  // One renewal at a time: each is a compare-and-set on the revision the one before left.
  const renew = () =>
    (renewing = renewing.then(async () => {
      if (!lost && !(await a.lease.hold().catch(() => false))) lost = true;
    }));
  const timer = setInterval(() => void renew(), RENEW_MS);
  try {
    return await write(async () => {
      await renew();
      return !lost;
    });
  } finally {
    clearInterval(timer);
    await renewing;
  }
}

async function seal(a: Archiving, head: ArchiveHead, records: ArchiveRecord[]): Promise<ArchiveHead> {
  const { opts } = a;
  const bucket = await bucketOf(a);
  const sealedAt = a.now();
  const retainUntil = new Date(sealedAt.getTime() + opts.retentionDays * 86_400_000);
  const key = manifestKeyOf(opts.keys.logKey);
  return holdingLease(a, async (stillHeld) => {
    let { body, manifest } = buildSegment(head, records, sealedAt, key);
    const segment = manifest.segment;
    if (!(await bucket.create(manifest.body.key, body, retainUntil))) {
      if (await bucket.readManifest(segment)) throw new Error(`segment ${segment} was written by another archiver`);
      // A body without its manifest: its writer stopped or lost the lease between the two. Its records are
      // what this archiver read, or another count of them from the same cursor: seal them instead.
      const found = await bucket.read(manifest.body.key);
      if (!found) throw new Error(`segment ${segment}'s body was there and is gone`);
      ({ body, manifest } = buildSegment(head, recordsOfBody(found), sealedAt, key));
      if (Buffer.compare(body, found) !== 0) throw new Error(`segment ${segment}'s body is not in the archive's form`);
      opts.log.info({ segment }, 'archive: sealing the body another archiver left without its manifest');
    }
    const signed = opts.keys.sign(manifest);
    const objects = segmentObjects(body, signed);
    const check = await checkArchiveSegment({ manifestBytes: objects.manifest, body }, head, opts.keys.logKey);
    if (!check.ok) throw new Error(`segment ${segment} would not verify: ${check.problem}`);
    if (!(await stillHeld())) throw new Error(`the lease was lost while segment ${segment} was written`);
    if (!(await bucket.create(objects.manifestKey, objects.manifest, retainUntil)))
      throw new Error(`segment ${segment} was sealed by another archiver`);
    return headOf(signed, objects.manifest, STREAMS);
  });
}

async function publishStatus({ opts }: Archiving, head: ArchiveHead): Promise<void> {
  const status: ArchiveStatus = { lastSegment: head.segment, lastArchivedAt: head.sealedAt, cursor: head.cursor };
  await opts.state.put(STATUS_KEY, JSON.stringify(status));
}

async function run(a: Archiving): Promise<void> {
  const { opts } = a;
  let head: ArchiveHead | null = null;
  let backoff = 500;
  let renewedAt = 0;
  while (a.running) {
    try {
      if (Date.now() - renewedAt >= RENEW_MS) {
        if (!(await a.lease.hold())) {
          head = null; // another process archives; read the archive again if this one takes over
          await sleep(a, RENEW_MS);
          continue;
        }
        renewedAt = Date.now();
      }
      if (!head) {
        head = await resume(a);
        await publishStatus(a, head);
        opts.log.info({ segment: head.segment, cursor: head.cursor }, 'archive: resuming after the last manifest');
      }
      const started = Date.now();
      const records = await collect(a, head);
      if (records.length > 0) {
        head = await seal(a, head, records);
        await publishStatus(a, head);
      }
      backoff = 500;
      if (records.length < opts.maxRecords) await sleep(a, Math.max(0, opts.intervalMs - (Date.now() - started)));
    } catch (err) {
      if (!a.running) break;
      opts.log.warn({ err }, `archive: ${(err as Error).message}; reading the archive again in ${backoff} ms`);
      head = null;
      renewedAt = 0; // hold the lease again before anything more is written
      await sleep(a, backoff);
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
  }
}

export function startArchiver(opts: ArchiverOptions): Archiver {
  const a: Archiving = {
    opts,
    now: opts.now ?? (() => new Date()),
    lease: archiveLease(opts.state, opts.holder ?? `${process.pid}-${randomUUID()}`),
    running: true,
    opened: null,
    wake: null,
  };
  const done = run(a);
  return {
    async stop() {
      a.running = false;
      a.wake?.();
      await done;
      await a.lease.release();
    },
  };
}
