import type { ServiceContext } from './service-context.js';
import { refusal } from '../domain/errors.js';
import { iso } from '../domain/clock.js';
import { CAPTURE_OPTION_LIMITS, parseCaptureOptions } from '../domain/capture-options.js';
import { watchedRunOptions } from '../watch/watch-policy.js';
import { requireKnownVantage } from '../vantages/known-vantages.js';
import { parseWatchSettings } from '../watch/watch-settings-parser.js';
import { isId, newId } from '../domain/ids.js';
import { type AddressPolicy, checkTargetUrl, urlRejectionStatus } from '../net/index.js';
import { parseSchedule } from '../schedules/cron-policy.js';
import { nextRunAt } from '../schedules/schedule-timing.js';
import { findActiveSchedule, listActiveSchedules, type ScheduleRow } from '../../projections/read-models/schedules.js';
import { type Caller, causedBy } from './caller.js';
import { listScheduleRuns, type ScheduleRunRow } from '../../projections/read-models/comparisons.js';
import { diffPath } from '../watch/capture-diff-service.js';

/**
 * Schedules of a tenant (spec 2.10, 4.12; docs/schedules.md): create, list, read, delete. The schedule routes and
 * the MCP schedule tools call these (DESIGN decision 15); the runs are made by the scheduler role.
 */

export type Schedules = ReturnType<typeof createSchedules>;

export function createSchedules(ctx: ServiceContext, policy: AddressPolicy) {
  return {
    /** Where a schedule is read (the Location of its 201). */
    scheduleUrl: (id: string) => `${ctx.config.PUBLIC_BASE_URL}/v1/schedules/${id}`,
    /** 400 for the cron or options, 400/422 for the URL, the actor's 429 at the tier's maximum (spec 4.12, 7.3). */
    create: (caller: Caller, body: ScheduleBody) => createSchedule(ctx, policy, caller, body),
    /** What a schedule with this cron would do from now: its next runs, UTC; the 400 of create for a cron it refuses. */
    preview: (cron: string, runs = 5) => previewSchedule(ctx, cron, runs),
    async list(caller: Caller) {
      const rows = await listActiveSchedules(ctx.pool, caller.principal.tenantId);
      return { data: rows.map((r) => scheduleRecord(ctx, r)) };
    },
    /** 404 for an unknown schedule or another tenant's. */
    get: async (caller: Caller, scheduleId: string) =>
      scheduleRecord(ctx, await activeSchedule(ctx, caller, scheduleId)),
    /**
     * Extension (docs/watch.md): the schedule's runs, newest first — each capture's status, why a failed
     * one failed, and on a watched schedule whether the run changed since the one before.
     */
    async runs(caller: Caller, scheduleId: string, limit = 50) {
      await activeSchedule(ctx, caller, scheduleId);
      const runs = await listScheduleRuns(ctx.pool, caller.principal.tenantId, scheduleId, limit);
      return { data: runs.map((r) => runRecord(ctx.config.PUBLIC_BASE_URL, r)) };
    },
    /** Permanent (spec 4.12); 404 for an unknown schedule or another tenant's. */
    delete: (caller: Caller, scheduleId: string) => deleteSchedule(ctx, caller, scheduleId),
  };
}

type ScheduleBody = { url?: unknown; name: string; cron: string; options?: unknown; watch?: unknown };

/** spec 2.10 record; nextRunAt is computed on every read (the projection stores no clock-derived values). */
function scheduleRecord(ctx: ServiceContext, r: ScheduleRow) {
  return {
    id: r.schedule_id,
    url: r.url,
    name: r.name,
    cron: r.cron,
    // Addition (docs/capturing.md, Capture options): the capture options every run uses, when the schedule was created with some.
    ...(r.options ? { options: r.options } : {}),
    // Extension (docs/watch.md).
    ...(r.watch ? { watch: r.watch } : {}),
    paused: false,
    nextRunAt:
      iso(nextRunAt({ cron: r.cron, createdAt: r.created_at, lastHandled: r.last_run_at }, ctx.clock.now())) ?? null,
    lastRunAt: iso(r.last_run_at) ?? null,
    lastCaptureId: r.last_capture_id,
    lastCaptureStatus: r.last_capture_status,
    createdAt: iso(r.created_at)!,
  };
}

const unknownSchedule = (id: string) => refusal(404, `No schedule ${id}.`);

/** The cron rules of spec 4.12 (src/schedules/cron-policy.ts), as create and preview answer them: 400 naming the field. */
function acceptedCron(cron: string) {
  const parsed = parseSchedule(cron);
  if (!parsed.ok) throw refusal(400, parsed.detail.startsWith('cron') ? parsed.detail : `cron: ${parsed.detail}`);
  return parsed;
}

/** The tenant's schedule, or 404 for an unknown one or another tenant's. */
async function activeSchedule(ctx: ServiceContext, caller: Caller, scheduleId: string): Promise<ScheduleRow> {
  const row = isId('sch', scheduleId)
    ? await findActiveSchedule(ctx.pool, caller.principal.tenantId, scheduleId)
    : null;
  if (!row) throw unknownSchedule(scheduleId);
  return row;
}

/** A create request's cron, URL, capture options and watch settings, checked in that order (400 before 422). */
async function checkedScheduleBody(ctx: ServiceContext, policy: AddressPolicy, caller: Caller, body: ScheduleBody) {
  // Cheap syntax checks first, so a request wrong in both ways gets the 400 rather than a 422.
  const cron = body.cron.trim();
  acceptedCron(cron);
  // Same URL rules as POST /v1/captures (spec 4.3); the worker's egress proxy checks again at every run.
  const checked = await checkTargetUrl(body.url, {
    policy,
    onRefusedAddress: (why) => caller.log.info({ why }, 'target refused'),
  });
  if (!checked.ok) throw refusal(urlRejectionStatus(checked.reason), checked.detail);

  const options = parseCaptureOptions(body.options);
  if (!options.ok) throw refusal(400, options.detail);
  requireKnownVantage(options.options, ctx.config.VANTAGES);
  if (options.options?.corroborate)
    throw refusal(422, 'options.corroborate is for single captures (POST /v1/captures), not schedules.');
  const watch = parseWatchSettings(body.watch);
  if (!watch.ok) throw refusal(400, watch.detail);
  // Each run records the boxes of options.recordBoxes and of the watch's ignoreSelectors: together, the limit.
  const recorded = watchedRunOptions(options.options, watch.watch)?.recordBoxes?.length ?? 0;
  if (recorded > CAPTURE_OPTION_LIMITS.recordBoxes.max)
    throw refusal(
      400,
      `options.recordBoxes and watch.ignoreSelectors together name ${recorded} selectors; each run records at most ${CAPTURE_OPTION_LIMITS.recordBoxes.max}.`,
    );
  // Likewise the patterns of options.recordTextBoxes and of the watch's ignoreText.
  const patterns = watchedRunOptions(options.options, watch.watch)?.recordTextBoxes?.length ?? 0;
  if (patterns > CAPTURE_OPTION_LIMITS.recordTextBoxes.max)
    throw refusal(
      400,
      `options.recordTextBoxes and watch.ignoreText together name ${patterns} patterns; each run records at most ${CAPTURE_OPTION_LIMITS.recordTextBoxes.max}.`,
    );
  return { cron, url: checked.url, options: options.options, watch: watch.watch };
}

async function createSchedule(ctx: ServiceContext, policy: AddressPolicy, caller: Caller, body: ScheduleBody) {
  const { cron, url, options, watch } = await checkedScheduleBody(ctx, policy, caller, body);
  const tenantId = caller.principal.tenantId;
  const scheduleId = newId('sch');
  const cmd = {
    scheduleId,
    url,
    name: body.name,
    cron,
    ...(options ? { options } : {}),
    ...(watch ? { watch } : {}),
  };
  const result = await ctx.tenants.execute(tenantId, { type: 'CreateSchedule', data: cmd }, causedBy(caller));
  await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  return scheduleRecord(ctx, {
    schedule_id: scheduleId,
    tenant_id: tenantId,
    url: cmd.url,
    name: cmd.name,
    cron,
    options: options ?? null,
    watch: watch ?? null,
    created_at: new Date(result.reply.createdAt),
    deleted_at: null,
    last_run_at: null,
    last_capture_id: null,
    last_capture_status: null,
  });
}

function previewSchedule(ctx: ServiceContext, cron: string, runs: number) {
  const expression = cron.trim();
  const parsed = acceptedCron(expression);
  const next: string[] = [];
  for (let after = ctx.clock.now(); next.length < runs; ) {
    after = parsed.nextRunAt(after);
    next.push(after.toISOString());
  }
  return { cron: expression, nextRuns: next };
}

async function deleteSchedule(ctx: ServiceContext, caller: Caller, scheduleId: string) {
  if (!isId('sch', scheduleId)) throw unknownSchedule(scheduleId);
  // The actor decides: another tenant's schedule is simply not in this tenant's state (404).
  const result = await ctx.tenants.execute(
    caller.principal.tenantId,
    { type: 'DeleteSchedule', data: { scheduleId } },
    causedBy(caller),
  );
  await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  return { id: scheduleId, deleted: true as const };
}

/** One run of a schedule as GET /v1/schedules/{id}/runs answers it. */
function runRecord(origin: string, r: ScheduleRunRow) {
  return {
    captureId: r.capture_id,
    status: r.status,
    createdAt: iso(r.created_at)!,
    completedAt: iso(r.completed_at) ?? null,
    failedAt: iso(r.failed_at) ?? null,
    ...(r.status === 'failed' ? { error: r.error, failureReason: r.failure_reason } : {}),
    comparison:
      r.base_capture_id === null
        ? null
        : {
            baseCaptureId: r.base_capture_id,
            changed: r.changed === true,
            notified: r.notify === true,
            summary: r.summary,
            bound: r.bound,
            diffUrl: `${origin}${diffPath(r.capture_id, r.base_capture_id)}`,
          },
  };
}
