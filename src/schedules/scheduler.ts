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

/** A scheduler's state: its deps and settings, the parsed crons, and its timer. */
interface SchedulerState {
  deps: SchedulerDeps;
  tickMs: number;
  concurrency: number;
  /** Parsing is the costly part of a tick; cron strings repeat across schedules and ticks. */
  parsedCache: Map<string, CronSchedule | null>;
  /** Schedules whose unparsable cron was logged already. */
  warned: Set<string>;
  timer: NodeJS.Timeout | null;
  running: Promise<unknown> | null;
  stopped: boolean;
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const s: SchedulerState = {
    deps,
    tickMs: deps.tickMs ?? DEFAULT_TICK_MS,
    concurrency: Math.max(1, deps.concurrency ?? 16),
    parsedCache: new Map(),
    warned: new Set(),
    timer: null,
    running: null,
    stopped: false,
  };
  return {
    tick: () => tick(s),
    start() {
      if (s.timer || s.running || s.stopped) return;
      scheduleTick(s, 0);
    },
    async stop() {
      s.stopped = true;
      if (s.timer) clearTimeout(s.timer);
      s.timer = null;
      await s.running;
    },
  };
}

function cronOf(s: SchedulerState, row: ScheduleRow): CronSchedule | null {
  let hit = s.parsedCache.get(row.cron);
  if (hit === undefined) {
    const p = parseSchedule(row.cron);
    hit = p.ok ? p : null;
    if (s.parsedCache.size > 10_000) s.parsedCache.clear();
    s.parsedCache.set(row.cron, hit);
  }
  if (hit === null && !s.warned.has(row.schedule_id)) {
    s.warned.add(row.schedule_id);
    s.deps.log.warn(
      { scheduleId: row.schedule_id, tenantId: row.tenant_id, cron: row.cron },
      'schedule has a cron expression this version cannot parse; it never fires',
    );
  }
  return hit;
}

async function fire(s: SchedulerState, row: ScheduleRow, fireTime: string): Promise<FireReport> {
  const { tenants, log } = s.deps;
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

/** Fire every schedule that is due now, `concurrency` at a time. */
async function tick(s: SchedulerState): Promise<TickReport> {
  const now = s.deps.clock.now();
  const rows = await listAllActiveScheduleTimings(s.deps.pool);
  const due: Array<{ row: ScheduleRow; fireTime: string }> = [];
  for (const row of rows) {
    const cron = cronOf(s, row);
    if (!cron) continue;
    const at = dueFireTime({ cron, createdAt: row.created_at, lastHandled: row.last_run_at }, now);
    if (at) due.push({ row, fireTime: at.toISOString() });
  }
  const fired: FireReport[] = new Array(due.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(s.concurrency, due.length) }, async () => {
    while (next < due.length) {
      const i = next++;
      fired[i] = await fire(s, due[i]!.row, due[i]!.fireTime);
    }
  });
  await Promise.all(lanes);
  return { now: now.toISOString(), active: rows.length, fired };
}

function scheduleTick(s: SchedulerState, delayMs: number): void {
  if (s.stopped) return;
  s.timer = setTimeout(() => {
    s.timer = null;
    s.running = tick(s)
      .catch((err) => s.deps.log.warn({ err }, 'scheduler tick failed'))
      .finally(() => {
        s.running = null;
        scheduleTick(s, s.tickMs);
      });
  }, delayMs);
}
