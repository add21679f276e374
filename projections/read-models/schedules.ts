import type { CaptureOptions } from '../../src/domain/capture-options.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import { type EventRef, type ExpectedRow, instant, type SettledCapture, type Sql, type TableComparison, type TenantEnvelope, type TenantEventType } from './read-model.js';

/**
 * `schedules`: every created schedule with its last run (fire time, capture, and that capture's status, or
 * 'skipped_quota'). A run's outcome reaches the row through the captures read model (SettledCapture), applied
 * at the end of a batch: that commutes with the per-event writes here, because a later run or skip has moved
 * last_capture_id on and the outcome's update then matches nothing.
 */

export const SCHEDULES_HANDLES: readonly TenantEventType[] = ['schedule.created', 'schedule.deleted', 'schedule.skipped', 'capture.submitted'];

/** lastCaptureStatus values (docs/schedules.md). */
export type LastCaptureStatus = 'pending' | 'complete' | 'failed' | 'skipped_quota';

export interface ScheduleRow {
  schedule_id: string;
  tenant_id: string;
  url: string;
  name: string;
  cron: string;
  options: CaptureOptions | null;
  created_at: Date;
  deleted_at: Date | null;
  last_run_at: Date | null;
  last_capture_id: string | null;
  last_capture_status: LastCaptureStatus | null;
}

// ---- batch writer ---------------------------------------------------------------------------------------

export function createSchedulesWriter(q: Sql) {
  return {
    apply(stored: StoredEvent): Promise<unknown> | undefined {
      const t = stored.event as TenantEnvelope;
      switch (t.type) {
        case 'schedule.created':
          return q.query(`INSERT INTO schedules (schedule_id, tenant_id, url, name, cron, options, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, [
            t.data.scheduleId,
            t.tenantId,
            t.data.url,
            t.data.name,
            t.data.cron,
            t.data.options ? JSON.stringify(t.data.options) : null,
            t.data.createdAt,
          ]);
        case 'schedule.deleted':
          return q.query('UPDATE schedules SET deleted_at = $2 WHERE schedule_id = $1', [t.data.scheduleId, t.data.deletedAt]);
        case 'schedule.skipped':
          return q.query(`UPDATE schedules SET last_run_at = $2, last_capture_id = NULL, last_capture_status = 'skipped_quota' WHERE schedule_id = $1`, [
            t.data.scheduleId,
            t.data.fireTime,
          ]);
        case 'capture.submitted':
          if (!t.data.scheduleId) return undefined;
          return q.query(`UPDATE schedules SET last_run_at = $2, last_capture_id = $3, last_capture_status = 'pending' WHERE schedule_id = $1`, [
            t.data.scheduleId,
            t.data.fireTime ?? t.occurredAt,
            t.data.captures[0]?.captureId ?? null,
          ]);
      }
      return undefined;
    },

    /** The batch's settled runs: the status of each schedule's last capture, where it still is the last. */
    async flush(settled: SettledCapture[]): Promise<void> {
      const runs = settled.filter((s) => s.scheduleId !== null);
      if (runs.length === 0) return;
      await q.query(
        `UPDATE schedules s SET last_capture_status = u.status
         FROM unnest($1::text[], $2::text[], $3::text[]) AS u(schedule_id, capture_id, status)
         WHERE s.schedule_id = u.schedule_id AND s.last_capture_id = u.capture_id`,
        [runs.map((r) => r.scheduleId), runs.map((r) => r.captureId), runs.map((r) => r.status)],
      );
    },
  };
}

// ---- pure fold ------------------------------------------------------------------------------------------

export interface ExpectedSchedule {
  url: string;
  name: string;
  cron: string;
  deleted: boolean;
  lastRunAt: string | null;
  lastCaptureId: string | null;
  lastCaptureStatus: string | null;
}

export function createSchedulesFold() {
  const schedules = new Map<string, { value: ExpectedSchedule; ref: EventRef }>();
  const touch = (scheduleId: string, ref: EventRef, f: (s: ExpectedSchedule) => void) => {
    const s = schedules.get(scheduleId);
    if (!s) return; // the projection's UPDATE finds no row either
    f(s.value);
    s.ref = ref;
  };
  return {
    schedules,
    apply(stored: StoredEvent, ref: EventRef, settled: SettledCapture | null): void {
      const e = stored.event as TenantEnvelope;
      switch (e.type) {
        case 'schedule.created':
          if (!schedules.has(e.data.scheduleId)) {
            schedules.set(e.data.scheduleId, {
              value: { url: e.data.url, name: e.data.name, cron: e.data.cron, deleted: false, lastRunAt: null, lastCaptureId: null, lastCaptureStatus: null },
              ref,
            });
          }
          break;
        case 'schedule.deleted':
          touch(e.data.scheduleId, ref, (s) => (s.deleted = true));
          break;
        case 'schedule.skipped':
          touch(e.data.scheduleId, ref, (s) => Object.assign(s, { lastRunAt: e.data.fireTime, lastCaptureId: null, lastCaptureStatus: 'skipped_quota' }));
          break;
        case 'capture.submitted':
          if (e.data.scheduleId) {
            touch(e.data.scheduleId, ref, (s) =>
              Object.assign(s, { lastRunAt: e.data.fireTime ?? e.occurredAt, lastCaptureId: e.data.captures[0]?.captureId ?? null, lastCaptureStatus: 'pending' }),
            );
          }
          break;
      }
      if (settled?.scheduleId) {
        touch(settled.scheduleId, ref, (s) => {
          if (s.lastCaptureId === settled.captureId) s.lastCaptureStatus = settled.status;
        });
      }
    },
  };
}
export type SchedulesFold = ReturnType<typeof createSchedulesFold>;

// ---- queries --------------------------------------------------------------------------------------------

/** The tenant's schedule unless deleted. */
export async function findActiveSchedule(q: Sql, tenantId: string, scheduleId: string): Promise<ScheduleRow | null> {
  return (await q.query<ScheduleRow>('SELECT * FROM schedules WHERE schedule_id = $1 AND tenant_id = $2 AND deleted_at IS NULL', [scheduleId, tenantId])).rows[0] ?? null;
}

export async function listActiveSchedules(q: Sql, tenantId: string): Promise<ScheduleRow[]> {
  return (await q.query<ScheduleRow>('SELECT * FROM schedules WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at, schedule_id', [tenantId])).rows;
}

export type ScheduleTimingRow = Pick<ScheduleRow, 'schedule_id' | 'tenant_id' | 'cron' | 'created_at' | 'last_run_at'>;

/** Every tenant's active schedules with what deciding a fire time needs (the scheduler's tick). */
export async function listAllActiveScheduleTimings(q: Sql): Promise<ScheduleTimingRow[]> {
  return (
    await q.query<ScheduleTimingRow>('SELECT schedule_id, tenant_id, cron, created_at, last_run_at FROM schedules WHERE deleted_at IS NULL ORDER BY created_at, schedule_id')
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

export function compareSchedules(fold: SchedulesFold, rows: AuditScheduleRow[]): TableComparison {
  const comparable = (v: ExpectedSchedule) => ({
    url: v.url,
    name: v.name,
    cron: v.cron,
    deleted: v.deleted,
    last_run_at: instant(v.lastRunAt),
    last_capture_id: v.lastCaptureId,
    last_capture_status: v.lastCaptureStatus,
  });
  return {
    table: 'schedules',
    expected: new Map([...fold.schedules].map(([id, s]): [string, ExpectedRow] => [id, { row: comparable(s.value), ref: s.ref }])),
    actual: new Map(
      rows.map((r) => [
        r.schedule_id,
        comparable({ url: r.url, name: r.name, cron: r.cron, deleted: r.deleted_at !== null, lastRunAt: instant(r.last_run_at), lastCaptureId: r.last_capture_id, lastCaptureStatus: r.last_capture_status }),
      ]),
    ),
  };
}
