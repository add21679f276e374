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

export function startArchiver(opts: ArchiverOptions): Archiver {
  const now = opts.now ?? (() => new Date());
  const lease = archiveLease(opts.state, `${process.pid}-${randomUUID()}`);
  let running = true;
  let opened: ArchiveBucket | null = null;
  const bucketOf = async () => (opened ??= await opts.bucket());
  let wake: (() => void) | null = null;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (!running) return resolve();
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function resume(): Promise<ArchiveHead> {
    const bucket = await bucketOf();
    const last = await bucket.lastSegment();
    if (last === 0) return EMPTY_HEAD(STREAMS);
    const bytes = await bucket.readManifest(last);
    if (!bytes) throw new Error(`segment ${last} of ${bucket.where} has no manifest`);
    return headOf(JSON.parse(Buffer.from(bytes).toString('utf8')) as ArchiveManifest, bytes, STREAMS);
  }

  async function collect(head: ArchiveHead): Promise<ArchiveRecord[]> {
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

  async function seal(head: ArchiveHead, records: ArchiveRecord[]): Promise<ArchiveHead> {
    const sealedAt = now();
    const { body, manifest } = buildSegment(head, records, sealedAt, manifestKeyOf(opts.keys.logKey));
    const signed = opts.keys.sign(manifest);
    const objects = segmentObjects(body, signed);
    const retainUntil = new Date(sealedAt.getTime() + opts.retentionDays * 86_400_000);
    await (await bucketOf()).writeSegment(objects, retainUntil);
    return headOf(signed, objects.manifest, STREAMS);
  }

  async function publishStatus(head: ArchiveHead): Promise<void> {
    const status: ArchiveStatus = { lastSegment: head.segment, lastArchivedAt: head.sealedAt, cursor: head.cursor };
    await opts.state.put(STATUS_KEY, JSON.stringify(status));
  }

  async function run(): Promise<void> {
    let head: ArchiveHead | null = null;
    let backoff = 500;
    let renewedAt = 0;
    while (running) {
      try {
        if (Date.now() - renewedAt >= RENEW_MS) {
          if (!(await lease.hold())) {
            head = null; // another process archives; read the archive again if this one takes over
            await sleep(RENEW_MS);
            continue;
          }
          renewedAt = Date.now();
        }
        if (!head) {
          head = await resume();
          await publishStatus(head);
          opts.log.info({ segment: head.segment, cursor: head.cursor }, 'archive: resuming after the last manifest');
        }
        const started = Date.now();
        const records = await collect(head);
        if (records.length > 0) {
          head = await seal(head, records);
          await publishStatus(head);
        }
        backoff = 500;
        if (records.length < opts.maxRecords) await sleep(Math.max(0, opts.intervalMs - (Date.now() - started)));
      } catch (err) {
        if (!running) break;
        opts.log.warn({ err }, `archive: ${(err as Error).message}; reading the archive again in ${backoff} ms`);
        head = null;
        await sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }
  }

  const done = run();
  return {
    async stop() {
      running = false;
      wake?.();
      await done;
      await lease.release();
    },
  };
}
