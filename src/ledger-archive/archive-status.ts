import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { Gauge } from 'prom-client';
import { openKvBucket } from '../infra/nats-buckets.js';
import { BUCKETS } from '../infra/topology.js';
import { registry } from '../observability/metrics.js';
import type { ProcessRuntime } from '../roles/process-runtime.js';
import { ARCHIVE_SOURCES, lastSequence } from './archive-sources.js';

/** The `ledger-archive` bucket, where the archiver keeps its status and lease. */
export const openArchiveState = (runtime: ProcessRuntime): Promise<KV> =>
  openKvBucket(runtime.nats.nc, BUCKETS.archiveState.name, BUCKETS.archiveState.options, runtime.config.NATS_REPLICAS);

/** What the archiver writes to the `ledger-archive` bucket after each segment: where the archive stands. */
export const STATUS_KEY = 'status';

export interface ArchiveStatus {
  lastSegment: number;
  lastArchivedAt: string | null;
  cursor: Record<string, number>;
}

/** `GET /v1/admin/archive` (docs/operators.md, The archive). */
export interface ArchiveLag {
  lagEvents: number;
  lagSeconds: number;
  lastSegment: number;
  lastArchivedAt: string | null;
}

export async function readArchiveStatus(state: KV): Promise<ArchiveStatus | null> {
  const entry = await state.get(STATUS_KEY);
  return entry?.operation === 'PUT' ? (entry.json<ArchiveStatus>() as ArchiveStatus) : null;
}

/**
 * The lag: source messages after the archived cursor, and the age of the oldest of them. Before the archiver
 * has written a status, everything is unarchived.
 */
export async function archiveLag(jsm: JetStreamManager, state: KV, now: Date): Promise<ArchiveLag> {
  const status = await readArchiveStatus(state);
  let lagEvents = 0;
  let oldest: number | null = null;
  for (const source of ARCHIVE_SOURCES) {
    const archived = status?.cursor[source.stream] ?? 0;
    const behind = Math.max(0, (await lastSequence(jsm, source.stream)) - archived);
    if (behind === 0) continue;
    lagEvents += behind;
    const first = await jsm.direct.getMessage(source.stream, { seq: archived + 1, next_by_subj: source.filter });
    if (first) oldest = Math.min(oldest ?? Number.POSITIVE_INFINITY, first.time.getTime());
  }
  return {
    lagEvents,
    lagSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
    lastSegment: status?.lastSegment ?? 0,
    lastArchivedAt: status?.lastArchivedAt ?? null,
  };
}

const lagEventsGauge = new Gauge({
  name: 'capture_ledger_archive_lag_events',
  help: 'Ledger, log and state messages not yet in a sealed archive segment',
  registers: [registry],
});
const lagSecondsGauge = new Gauge({
  name: 'capture_ledger_archive_lag_seconds',
  help: 'Age of the oldest message not yet in a sealed archive segment',
  registers: [registry],
});
const lastSegmentGauge = new Gauge({
  name: 'capture_ledger_archive_last_segment',
  help: "The archive's last sealed segment number",
  registers: [registry],
});

export function exportArchiveLag(lag: ArchiveLag): void {
  lagEventsGauge.set(lag.lagEvents);
  lagSecondsGauge.set(lag.lagSeconds);
  lastSegmentGauge.set(lag.lastSegment);
}
