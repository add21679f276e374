// When a schedule runs (spec 4.12): pure functions of the cron expression, the schedule's creation time,
// the latest fire time already handled (fired or skipped) and "now". No clock, no I/O.
import { parseSchedule, type ScheduleParseResult } from './cron-policy.js';

export type CronSchedule = Extract<ScheduleParseResult, { ok: true }>;

export interface ScheduleTimes {
  /** The cron expression as the tenant sent it, or already parsed. */
  cron: string | CronSchedule;
  createdAt: Date;
  /** Latest fire time handled for this schedule; null before its first run. */
  lastHandled: Date | null;
}

const parsed = (cron: string | CronSchedule): CronSchedule | null => {
  if (typeof cron !== 'string') return cron;
  const p = parseSchedule(cron);
  return p.ok ? p : null;
};

const later = (a: Date, b: Date | null): Date => (b && b.getTime() > a.getTime() ? b : a);

/**
 * The fire time to run now, or null when nothing is due. A schedule is due when its first fire time after
 * the last handled one (or after its creation) is at or before `now`.
 *
 * Catch-up rule: after downtime that spans several fire times, run ONCE, for the most recent fire time at
 * or before `now`; the older missed ones are dropped, not replayed as a burst. Handling that one marks
 * everything up to it as handled.
 */
export function dueFireTime(s: ScheduleTimes, now: Date): Date | null {
  const cron = parsed(s.cron);
  if (!cron) return null;
  const from = later(s.createdAt, s.lastHandled);
  const next = cron.nextRunAt(from);
  if (next.getTime() > now.getTime()) return null;
  const latest = cron.lastRunAtOrBefore(now);
  return latest && latest.getTime() > from.getTime() ? latest : next;
}

/** spec 2.10 nextRunAt: the first planned fire time strictly after `now` (and after the last handled one). */
export function nextRunAt(s: ScheduleTimes, now: Date): Date | null {
  const cron = parsed(s.cron);
  if (!cron) return null;
  return cron.nextRunAt(later(later(now, s.createdAt), s.lastHandled));
}
