import type pg from 'pg';
import type { Logger } from 'pino';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { Clock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import type { FireOutcome } from '../domain/tenant/index.js';
import { parseSchedule } from './cron-policy.js';
import { type CronSchedule, dueFireTime } from './schedule-timing.js';
import { listAllActiveScheduleTimings, type ScheduleTimingRow } from '../../projections/read-models/schedules.js';

/**
 * The scheduler role (DESIGN: "scheduler (cron → commands)"). Every tick it reads the active schedules from
 * the projection, works out which are due (schedule-timing.ts) and fires each through its tenant's actor with
 * decideFireSchedule. The projection is only a hint: the actor's state decides. A schedule deleted since the
 * projection was read, or a fire time another scheduler already handled, is a no-op there, and JetStream's
 * optimistic concurrency makes the check-and-append atomic across processes — so any number of schedulers
 * can run and each fire time yields at most one run (a capture.submitted, or a schedule.skipped when the
 * monthly quota is used up). The job feeder turns the capture.submitted into a capture job.
 */

export interface SchedulerDeps {
  pool: pg.Pool;
  tenants: TenantActors;
  clock: Clock;
  log: Logger;
  /** Time between the end of one tick and the start of the next. Cron has minute resolution. */
  tickMs?: number;
  /** Schedules fired in parallel within one tick (runs of one tenant still go through its single mailbox). */
  concurrency?: number;
}

export interface FireReport {
  scheduleId: string;
  tenantId: string;
  fireTime: string;
  outcome: FireOutcome | { kind: 'error'; detail: string };
}

export interface TickReport {
  now: string;
  /** Active schedules read from the projection. */
  active: number;
  /** The due ones and what firing each did. */
  fired: FireReport[];
}

export interface Scheduler {
  /** One pass; safe to call concurrently with other schedulers (and with itself). */
  tick(): Promise<TickReport>;
  /** Tick every `tickMs` until stop(). */
  start(): void;
  stop(): Promise<void>;
}

type ScheduleRow = ScheduleTimingRow;

export const DEFAULT_TICK_MS = 10_000;

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { pool, tenants, clock, log } = deps;
  const tickMs = deps.tickMs ?? DEFAULT_TICK_MS;
  const concurrency = Math.max(1, deps.concurrency ?? 16);
  // Parsing is the costly part of a tick; cron strings repeat across schedules and ticks.
  const parsedCache = new Map<string, CronSchedule | null>();
  const warned = new Set<string>();

  function cronOf(row: ScheduleRow): CronSchedule | null {
    let hit = parsedCache.get(row.cron);
    if (hit === undefined) {
      const p = parseSchedule(row.cron);
      hit = p.ok ? p : null;
      if (parsedCache.size > 10_000) parsedCache.clear();
      parsedCache.set(row.cron, hit);
    }
    if (hit === null && !warned.has(row.schedule_id)) {
      warned.add(row.schedule_id);
      log.warn(
        { scheduleId: row.schedule_id, tenantId: row.tenant_id, cron: row.cron },
        'schedule has a cron expression this version cannot parse; it never fires',
      );
    }
    return hit;
  }

  async function fire(row: ScheduleRow, fireTime: string): Promise<FireReport> {
    const base = { scheduleId: row.schedule_id, tenantId: row.tenant_id, fireTime };
    try {
      const result = await tenants.execute(
        row.tenant_id,
        { type: 'FireSchedule', data: { scheduleId: row.schedule_id, fireTime, captureId: newId('cap') } },
        {
          correlationId: `schedule:${row.schedule_id}:${fireTime}`,
          causedBy: { kind: 'schedule', scheduleId: row.schedule_id },
        },
      );
      const outcome = result.reply;
      if (outcome.kind === 'fired') log.info({ ...base, captureId: outcome.captureId }, 'schedule fired');
      else if (outcome.kind === 'skipped')
        log.info({ ...base, detail: outcome.detail }, 'schedule run skipped: monthly quota used up');
      return { ...base, outcome };
    } catch (err) {
      // Left unhandled, so the next tick tries the same fire time again.
      log.warn({ ...base, err }, 'firing a schedule failed; retrying next tick');
      return { ...base, outcome: { kind: 'error', detail: err instanceof Error ? err.message : String(err) } };
    }
  }

  async function tick(): Promise<TickReport> {
    const now = clock.now();
    const rows = await listAllActiveScheduleTimings(pool);
    const due: Array<{ row: ScheduleRow; fireTime: string }> = [];
    for (const row of rows) {
      const cron = cronOf(row);
      if (!cron) continue;
      const at = dueFireTime({ cron, createdAt: row.created_at, lastHandled: row.last_run_at }, now);
      if (at) due.push({ row, fireTime: at.toISOString() });
    }
    const fired: FireReport[] = new Array(due.length);
    let next = 0;
    const lanes = Array.from({ length: Math.min(concurrency, due.length) }, async () => {
      while (next < due.length) {
        const i = next++;
        fired[i] = await fire(due[i]!.row, due[i]!.fireTime);
      }
    });
    await Promise.all(lanes);
    return { now: now.toISOString(), active: rows.length, fired };
  }

  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = tick()
        .catch((err) => log.warn({ err }, 'scheduler tick failed'))
        .finally(() => {
          running = null;
          schedule(tickMs);
        });
    }, delayMs);
  }

  return {
    tick,
    start() {
      if (timer || running || stopped) return;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
