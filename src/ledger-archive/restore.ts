import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { openKvBucket } from '../infra/nats-buckets.js';
import { BUCKETS, bucketStream } from '../infra/topology.js';
import { LEDGER_STREAM } from '../ledger/streams.js';
import { CHECKPOINTS_SUBJECT, LEAVES_SUBJECT, LOG_STREAM, type LeafBatch } from '../transparency/log-stream.js';
import type { ArchiveManifest, ArchiveRecord } from '../../packages/verifier/src/archive-segment.js';
import { parseCheckpointNote } from '../../packages/verifier/src/transparency.js';
import type { ArchiveBucket } from './archive-bucket.js';
import type { ArchiveKeys } from './archive-keys.js';
import { readSegmentRecords, verifyArchive } from './archive-reader.js';
import { ARCHIVE_SOURCES, lastSequence } from './archive-sources.js';

/**
 * Restore (docs/operators.md, restore): checks the whole archive first, then republishes each stream's messages at
 * their original sequences (a prefix, with `until`), then the final state of each archived KV entry. Each stream is
 * one pass over the segments that hold it, so the log's leaf batches are cut against the ledger actually restored.
 * A restore run again continues after the last message already there, once that message is shown to be the
 * archive's own.
 */
export interface RestoreDeps {
  nats: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager };
  replicas: number;
  bucket: ArchiveBucket;
  keys: ArchiveKeys;
  /** Only what was stored at or before this time. */
  until: Date | null;
  progress(phase: 'check' | 'republish', done: number, total: number): void;
}

export interface RestoreReport {
  segments: number;
  /** The last segment's sealedAt and lastTime: nothing later can be in the archive. */
  lastSealedAt: string | null;
  lastTime: string | null;
  /** Messages per stream now in the deployment (restored or already there), and KV entries written. */
  streams: Record<string, number>;
  kvEntries: number;
  /** Every capture id the restored ledger names. */
  captureIds: Set<string>;
}

export class RestoreConflictError extends Error {
  override name = 'RestoreConflictError';
}

const CAPTURE_ID = /cap_[0-9a-f]{32}/g;

export async function restoreArchive(deps: RestoreDeps): Promise<RestoreReport> {
  const streams = ARCHIVE_SOURCES.map((s) => s.stream);
  const verified = await verifyArchive(deps.bucket, deps.keys.logKey, streams, (n, last) =>
    deps.progress('check', n, last),
  );
  const total = verified.records;
  let done = 0;
  const tick = (n: number) => deps.progress('republish', (done += n), total);
  const captureIds = new Set<string>();
  const ledger = await republishStream(deps, verified.manifests, LEDGER_STREAM, tick, (r) => {
    if (deps.until && Date.parse(r.time) > deps.until.getTime()) return false;
    for (const id of Buffer.from(r.data, 'base64').toString('utf8').match(CAPTURE_ID) ?? []) captureIds.add(id);
    return true;
  });
  let leaves = 0;
  const log = await republishStream(deps, verified.manifests, LOG_STREAM, tick, (r) => {
    const data = Buffer.from(r.data, 'base64');
    if (r.subject === LEAVES_SUBJECT) {
      const batch = JSON.parse(data.toString('utf8')) as LeafBatch;
      if (batch.through > ledger) return false;
      leaves += batch.leaves.length;
    } else if (r.subject === CHECKPOINTS_SUBJECT) {
      const { note } = JSON.parse(data.toString('utf8')) as { note: string };
      if (parseCheckpointNote(note).size > leaves) return false;
    }
    return true;
  });
  const kvEntries = await restoreKv(deps, verified.manifests, tick);
  const last = verified.manifests.at(-1) ?? null;
  return {
    segments: verified.manifests.length,
    lastSealedAt: last?.sealedAt ?? null,
    lastTime: last?.lastTime ?? null,
    streams: { [LEDGER_STREAM]: ledger, [LOG_STREAM]: log },
    kvEntries,
    captureIds,
  };
}

/** The records of `stream` in every segment that holds some, in order. */
async function* recordsOf(bucket: ArchiveBucket, manifests: ArchiveManifest[], stream: string) {
  for (const manifest of manifests) {
    if (!manifest.sources.some((s) => s.stream === stream)) continue;
    yield (await readSegmentRecords(bucket, manifest)).filter((r) => r.stream === stream);
  }
}

/**
 * Republishes the stream's records while `keep` says so (the first refusal ends it: a prefix), each at its own
 * sequence; returns the stream's last sequence.
 */
async function republishStream(
  deps: RestoreDeps,
  manifests: ArchiveManifest[],
  stream: string,
  tick: (n: number) => void,
  keep: (r: ArchiveRecord) => boolean,
): Promise<number> {
  const present = await lastSequence(deps.nats.jsm, stream);
  let last = 0;
  for await (const records of recordsOf(deps.bucket, manifests, stream)) {
    for (const r of records) {
      if (!keep(r)) {
        tick(records.length);
        return last;
      }
      if (r.seq < present) {
        last = r.seq;
        continue;
      }
      if (r.seq === present) await sameAsStored(deps.nats.jsm, stream, r);
      else await publishAt(deps.nats.js, stream, r);
      last = r.seq;
    }
    tick(records.length);
  }
  if (present > last)
    throw new RestoreConflictError(
      `${stream} holds ${present} messages, more than the archive's ${last}: restore into an empty deployment`,
    );
  return last;
}

async function sameAsStored(jsm: JetStreamManager, stream: string, r: ArchiveRecord): Promise<void> {
  const stored = await jsm.streams.getMessage(stream, { seq: r.seq });
  if (!stored || Buffer.compare(Buffer.from(stored.data), Buffer.from(r.data, 'base64')) !== 0)
    throw new RestoreConflictError(
      `${stream} message ${r.seq} is not the archive's: this deployment holds another ledger; restore into an empty one`,
    );
}

/** Headers the server sets or checks at publish: not copied (the expected sequence below takes their place). */
const dropHeader = (name: string) => name.startsWith('Nats-');

async function publishAt(js: JetStreamClient, stream: string, r: ArchiveRecord): Promise<void> {
  let hdrs: MsgHdrs | undefined;
  for (const [name, values] of Object.entries(r.headers ?? {})) {
    if (dropHeader(name)) continue;
    hdrs ??= natsHeaders();
    for (const v of values) hdrs.append(name, v);
  }
  const ack = await js.publish(r.subject, Buffer.from(r.data, 'base64'), {
    expect: { lastSequence: r.seq - 1, streamName: stream },
    ...(hdrs ? { headers: hdrs } : {}),
  });
  if (ack.seq !== r.seq) throw new RestoreConflictError(`${stream} message ${r.seq} was stored at sequence ${ack.seq}`);
}

/** The last archived state of every KV entry (at or before `until`), written back; a deleted entry stays deleted. */
async function restoreKv(deps: RestoreDeps, manifests: ArchiveManifest[], tick: (n: number) => void): Promise<number> {
  let written = 0;
  for (const bucket of Object.values(BUCKETS).filter((b) => b.kind === 'kv' && b.archive)) {
    const stream = bucketStream(bucket);
    const final = new Map<string, ArchiveRecord>();
    for await (const records of recordsOf(deps.bucket, manifests, stream)) {
      for (const r of records)
        if (!deps.until || Date.parse(r.time) <= deps.until.getTime())
          final.set(r.subject.slice(`$KV.${bucket.name}.`.length), r);
      tick(records.length);
    }
    if (final.size === 0) continue;
    const kv = await openKvBucket(deps.nats.nc, bucket.name, bucket.options, deps.replicas);
    for (const [key, r] of final) {
      const op = r.headers?.['KV-Operation']?.[0];
      if (op === 'DEL' || op === 'PURGE') {
        if ((await kv.get(key))?.operation === 'PUT') await kv.delete(key);
        continue;
      }
      const value = r.sealed ? deps.keys.open(r.subject, r.data) : new Uint8Array(Buffer.from(r.data, 'base64'));
      await kv.put(key, value);
      written++;
    }
  }
  return written;
}
