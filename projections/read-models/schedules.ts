import type { CaptureOptions } from '../../src/domain/capture-options.js';
import type { WatchSettings } from '../../src/watch/watch-policy.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import type { TenantState } from '../../src/domain/tenant/index.js';
import {
  type BatchHandoff,
  type EventHandoff,
  type EventRef,
  type ReadRow,
  instant,
  auditedReadModel,
  type SettledCapture,
  type Sql,
  type TableComparison,
  type TenantEnvelope,
  type TenantEventType,
} from './read-model.js';
import {
  compareFoldedRows,
  type FoldedRows,
  foldChange,
  type InsertChange,
  tableSpec,
  type UpdateChange,
  updateRows,
  writeChange,
} from './row-changes.js';

/**
 * `schedules`: every created schedule with its last run (fire time, capture, and that capture's status, or
 * 'skipped_quota'). What each event does to a row is said once (`scheduleChange`, `settledScheduleChange`)
 * and carried out by the writer and the fold alike. A run's outcome reaches the row through the captures read
 * model (SettledCapture), applied at the end of a batch: that commutes with the per-event writes here, because
 * a later run or skip has moved last_capture_id on and the outcome's update then matches nothing.
 */

const SCHEDULES_HANDLES: readonly TenantEventType[] = [
  'schedule.created',
  'schedule.deleted',
  'schedule.skipped',
  'capture.submitted',
];

/** lastCaptureStatus values (docs/schedules.md). */
export type LastCaptureStatus = 'pending' | 'complete' | 'failed' | 'skipped_quota';

/** A `schedules` row as the events give it (timestamps as ISO text). */
export type ScheduleValues = {
  schedule_id: string;
  tenant_id: string;
  url: string;
  name: string;
  cron: string;
  options: CaptureOptions | null;
  /** Migration 012. */
  watch: WatchSettings | null;
  created_at: string;
  deleted_at: string | null;
  last_run_at: string | null;
  last_capture_id: string | null;
  last_capture_status: LastCaptureStatus | null;
};

/** A row of `schedules`. */
export type ScheduleRow = ReadRow<ScheduleValues, 'created_at' | 'deleted_at' | 'last_run_at'>;

export const SCHEDULES = tableSpec<ScheduleValues>({
  name: 'schedules',
  key: ['schedule_id'],
  columns: {
    schedule_id: 'text',
    tenant_id: 'text',
    url: 'text',
    name: 'text',
    cron: 'text',
    options: 'jsonb',
    watch: 'jsonb',
    created_at: 'timestamptz',
    deleted_at: 'timestamptz',
    last_run_at: 'timestamptz',
    last_capture_id: 'text',
    last_capture_status: 'text',
  },
});

// ---- what an event does to the rows (the one definition the writer and the fold carry out) -------------

type ScheduleChange = InsertChange<ScheduleValues> | UpdateChange<ScheduleValues>;

const touch = (
  scheduleId: string,
  set: Partial<ScheduleValues>,
  when?: Partial<ScheduleValues>,
): UpdateChange<ScheduleValues> => ({
  op: 'update',
  key: { schedule_id: scheduleId },
  set,
  ...(when ? { when } : {}),
});

/** What a schedule's own events, and a run's submission, do to its row (an unknown schedule: nothing). */
export function scheduleChange(e: TenantEnvelope): ScheduleChange | null {
  switch (e.type) {
    case 'schedule.created':
      return {
        op: 'insert',
        row: {
          schedule_id: e.data.scheduleId,
          tenant_id: e.tenantId,
          url: e.data.url,
          name: e.data.name,
          cron: e.data.cron,
          options: e.data.options ?? null,
          watch: e.data.watch ?? null,
          created_at: e.data.createdAt,
        },
      };
    case 'schedule.deleted':
      return touch(e.data.scheduleId, { deleted_at: e.data.deletedAt });
    case 'schedule.skipped':
      return touch(e.data.scheduleId, {
        last_run_at: e.data.fireTime,
        last_capture_id: null,
        last_capture_status: 'skipped_quota',
      });
    case 'capture.submitted':
      if (!e.data.scheduleId) return null;
      return touch(e.data.scheduleId, {
        last_run_at: e.data.fireTime ?? e.occurredAt,
        last_capture_id: e.data.captures[0]?.captureId ?? null,
        last_capture_status: 'pending',
      });
  }
  return null;
}

/** A run's outcome (one that settled its capture) is the schedule's status only while that run is its last. */
export const settledScheduleChange = (s: SettledCapture): UpdateChange<ScheduleValues> | null =>
  s.scheduleId === null
    ? null
    : touch(s.scheduleId, { last_capture_status: s.status }, { last_capture_id: s.captureId });

// ---- batch writer ---------------------------------------------------------------------------------------

function createSchedulesWriter(q: Sql) {
  return {
    /** Rare events (and scheduled submissions): one statement each, in order; nothing to await for others. */
    apply(stored: StoredEvent): Promise<void> | undefined {
      const change = scheduleChange(stored.event as TenantEnvelope);
      return change ? writeChange(q, SCHEDULES, change) : undefined;
    },

    /** The batch's settled runs, in one statement. */
    async flush({ settled }: BatchHandoff): Promise<void> {
      await updateRows(
        q,
        SCHEDULES,
        settled.flatMap((s) => settledScheduleChange(s) ?? []),
      );
    },
  };
}

// ---- pure fold ------------------------------------------------------------------------------------------

function createSchedulesFold() {
  const schedules: FoldedRows<ScheduleValues> = new Map();
  return {
    schedules,
    apply(stored: StoredEvent, ref: EventRef, { settled }: EventHandoff): void {
      const change = scheduleChange(stored.event as TenantEnvelope);
      if (change) foldChange(SCHEDULES, schedules, change, ref);
      const run = settled && settledScheduleChange(settled);
      if (run) foldChange(SCHEDULES, schedules, run, ref);
    },
  };
}
export type SchedulesFold = ReturnType<typeof createSchedulesFold>;

// ---- queries --------------------------------------------------------------------------------------------

/** The tenant's schedule unless deleted. */
export async function findActiveSchedule(q: Sql, tenantId: string, scheduleId: string): Promise<ScheduleRow | null> {
  return (
    (
      await q.query<ScheduleRow>(
        'SELECT * FROM schedules WHERE schedule_id = $1 AND tenant_id = $2 AND deleted_at IS NULL',
        [scheduleId, tenantId],
      )
    ).rows[0] ?? null
  );
}

export async function listActiveSchedules(q: Sql, tenantId: string): Promise<ScheduleRow[]> {
  return (
    await q.query<ScheduleRow>(
      'SELECT * FROM schedules WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at, schedule_id',
      [tenantId],
    )
  ).rows;
}

export type ScheduleTimingRow = Pick<ScheduleRow, 'schedule_id' | 'tenant_id' | 'cron' | 'created_at' | 'last_run_at'>;

/** Every tenant's active schedules with what deciding a fire time needs (the scheduler's tick). */
export async function listAllActiveScheduleTimings(q: Sql): Promise<ScheduleTimingRow[]> {
  return (
    await q.query<ScheduleTimingRow>(
      'SELECT schedule_id, tenant_id, cron, created_at, last_run_at FROM schedules WHERE deleted_at IS NULL ORDER BY created_at, schedule_id',
    )
  ).rows;
}

export type AuditScheduleRow = Pick<ScheduleRow, 'schedule_id' | 'url' | 'name' | 'cron' | 'last_capture_id'> & {
  deleted_at: Date | string | null;
  last_run_at: Date | string | null;
  last_capture_status: string | null;
};

export async function readSchedulesForAudit(q: Sql, tenantId: string): Promise<AuditScheduleRow[]> {
  return (
    await q.query<AuditScheduleRow>(
      'SELECT schedule_id, url, name, cron, deleted_at, last_run_at, last_capture_id, last_capture_status FROM schedules WHERE tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

/** The same columns of a folded row and of a row read back. */
const comparableSchedule = (
  r: Pick<
    AuditScheduleRow,
    'url' | 'name' | 'cron' | 'deleted_at' | 'last_run_at' | 'last_capture_id' | 'last_capture_status'
  >,
) => ({
  url: r.url,
  name: r.name,
  cron: r.cron,
  deleted: r.deleted_at !== null,
  last_run_at: instant(r.last_run_at),
  last_capture_id: r.last_capture_id,
  last_capture_status: r.last_capture_status,
});

export function compareSchedules(fold: SchedulesFold, rows: AuditScheduleRow[]): TableComparison {
  return compareFoldedRows('schedules', fold.schedules, rows, (r) => r.schedule_id, comparableSchedule);
}

/** schedules, and which are active as the actor sees it. */
function compareSchedulesAndActive(
  fold: SchedulesFold,
  rows: AuditScheduleRow[],
  actor: TenantState,
): TableComparison[] {
  const schedules = compareSchedules(fold, rows);
  const byId = new Map(rows.map((r) => [r.schedule_id, r]));
  schedules.actorChecks = [];
  for (const [id, s] of fold.schedules) {
    const row = byId.get(id);
    if (row)
      schedules.actorChecks.push({
        ref: s.ref,
        key: id,
        field: 'active (actor state)',
        projection: row.deleted_at === null,
        actor: actor.schedules.has(id),
      });
  }
  return [schedules];
}

// ---- the read model ---------------------------------------------------------------------------------------

export const schedulesReadModel = auditedReadModel({
  name: 'schedules',
  tables: [SCHEDULES.name],
  handles: SCHEDULES_HANDLES,
  changes: { event: scheduleChange, settled: settledScheduleChange },
  writer: createSchedulesWriter,
  fold: createSchedulesFold,
  audit: { read: readSchedulesForAudit, compare: compareSchedulesAndActive },
});
