import { randomUUID } from 'node:crypto';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { Logger } from 'pino';
import type { ArchiveManifest, ArchiveRecord } from '../../packages/verifier/src/archive-segment.js';
import type { ArchiveBucket } from './archive-bucket.js';
import { type ArchiveKeys, manifestKeyOf } from './archive-keys.js';
import { archiveLease, RENEW_MS } from './archive-lease.js';
import { ARCHIVE_SOURCES, readSource, recordOf } from './archive-sources.js';
import { type ArchiveStatus, STATUS_KEY } from './archive-status.js';
import { type ArchiveHead, buildSegment, EMPTY_HEAD, headOf, segmentObjects } from './segment-builder.js';

/**
 * The archiver (docs/operators.md, The archive): while it holds the lease, it reads what the sources hold after
 * the archive's cursor and seals it into the next segment every `intervalMs` or `maxRecords` records. Where it
 * stands is read from the archive's last manifest at start and after any failure (a crash, an S3 outage, a lost
 * lease), so a segment is never skipped or written twice by this process. It only reads the sources: a capture
 * never waits for it.
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

async function seal(a: Archiving, head: ArchiveHead, records: ArchiveRecord[]): Promise<ArchiveHead> {
  const { opts } = a;
  const sealedAt = a.now();
  const { body, manifest } = buildSegment(head, records, sealedAt, manifestKeyOf(opts.keys.logKey));
  const signed = opts.keys.sign(manifest);
  const objects = segmentObjects(body, signed);
  const retainUntil = new Date(sealedAt.getTime() + opts.retentionDays * 86_400_000);
  await (await bucketOf(a)).writeSegment(objects, retainUntil);
  return headOf(signed, objects.manifest, STREAMS);
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
      await sleep(a, backoff);
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
  }
}

export function startArchiver(opts: ArchiverOptions): Archiver {
  const a: Archiving = {
    opts,
    now: opts.now ?? (() => new Date()),
    lease: archiveLease(opts.state, `${process.pid}-${randomUUID()}`),
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
