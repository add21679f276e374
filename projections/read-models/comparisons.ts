import type { CaptureComparison } from '../../src/domain/events.js';
import type { ComparisonSummary } from '../../src/watch/watch-policy.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import { readModel, type Sql, type TenantEnvelope } from './read-model.js';
import type { CaptureRow } from './captures.js';

/**
 * `capture_comparisons` (docs/watch.md): each watched run compared with the previous complete run of
 * its schedule, from `capture.compared`. One row per capture: a comparison recorded twice (a redelivered ledger
 * event) keeps the first. Not in the tenant audit: a row is the event's data as it is.
 */

const COMPARISONS_HANDLES = ['capture.compared'] as const;

export interface ComparisonRow {
  capture_id: string;
  tenant_id: string;
  schedule_id: string;
  base_capture_id: string;
  changed: boolean;
  notify: boolean;
  summary: ComparisonSummary;
  options: CaptureComparison['options'];
  /** The bound the diff reached (docs/watch.md, Bounds); null: it completed. */
  bound: string | null;
  compared_at: Date;
}

function createComparisonsWriter(q: Sql) {
  return {
    async apply(stored: StoredEvent): Promise<void> {
      const e = stored.event as TenantEnvelope;
      if (e.type !== 'capture.compared') return;
      const d = e.data;
      await q.query(
        `INSERT INTO capture_comparisons
           (capture_id, tenant_id, schedule_id, base_capture_id, changed, notify, summary, options, bound, compared_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (capture_id) DO NOTHING`,
        [
          d.captureId,
          e.tenantId,
          d.scheduleId,
          d.baseCaptureId,
          d.changed,
          d.notify,
          JSON.stringify(d.summary),
          JSON.stringify(d.options),
          d.bound ?? null,
          d.comparedAt,
        ],
      );
    },
  };
}

// ---- queries --------------------------------------------------------------------------------------------

export async function findComparison(q: Sql, captureId: string): Promise<ComparisonRow | null> {
  return (
    (await q.query<ComparisonRow>('SELECT * FROM capture_comparisons WHERE capture_id = $1', [captureId])).rows[0] ??
    null
  );
}

/** The complete run of the schedule submitted last before `createdAt`: what a new run is compared with. */
export async function findPreviousCompleteRun(
  q: Sql,
  tenantId: string,
  scheduleId: string,
  createdAt: Date,
): Promise<CaptureRow | null> {
  return (
    (
      await q.query<CaptureRow>(
        `SELECT * FROM captures WHERE tenant_id = $1 AND schedule_id = $2 AND status = 'complete' AND created_at < $3
         ORDER BY created_at DESC, capture_id DESC LIMIT 1`,
        [tenantId, scheduleId, createdAt],
      )
    ).rows[0] ?? null
  );
}

export type ScheduleRunRow = Pick<
  CaptureRow,
  'capture_id' | 'status' | 'created_at' | 'completed_at' | 'failed_at' | 'error' | 'failure_reason'
> & {
  base_capture_id: string | null;
  changed: boolean | null;
  notify: boolean | null;
  summary: ComparisonSummary | null;
  bound: string | null;
};

/** A schedule's runs, newest first, each with its comparison when the schedule is watched. */
export async function listScheduleRuns(
  q: Sql,
  tenantId: string,
  scheduleId: string,
  limit: number,
): Promise<ScheduleRunRow[]> {
  return (
    await q.query<ScheduleRunRow>(
      `SELECT c.capture_id, c.status, c.created_at, c.completed_at, c.failed_at, c.error, c.failure_reason,
              k.base_capture_id, k.changed, k.notify, k.summary, k.bound
         FROM captures c LEFT JOIN capture_comparisons k ON k.capture_id = c.capture_id
        WHERE c.tenant_id = $1 AND c.schedule_id = $2
        ORDER BY c.created_at DESC, c.capture_id DESC LIMIT $3`,
      [tenantId, scheduleId, limit],
    )
  ).rows;
}

export const comparisonsReadModel = readModel({
  name: 'comparisons',
  tables: ['capture_comparisons'],
  handles: COMPARISONS_HANDLES,
  writer: createComparisonsWriter,
});
