import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseCaptureOptions } from '../../domain/capture-options.js';
import { isId, newId } from '../../domain/ids.js';
import { type AddressPolicy, checkTargetUrl, urlRejectionStatus } from '../../net/index.js';
import { parseSchedule } from '../../schedules/cron-policy.js';
import { nextRunAt } from '../../schedules/schedule-timing.js';
import { requireJsonBody, type TypedApp } from '../app.js';
import type { ApiContext } from '../context.js';
import { ANSWERS, HttpProblem, problemResponses } from '../problem.js';
import { captureOptionsSchema } from '../capture-options-schema.js';
import { dateTime, iso, nameSchema, targetUrl } from '../schemas.js';
import { withHeaders } from '../openapi-headers.js';
import type { TenantGuard } from '../tenant-auth.js';
import { findActiveSchedule, listActiveSchedules, type ScheduleRow } from '../../../projections/read-models/schedules.js';

/**
 * Schedules (spec 2.10, 3.4, 4.12; docs/schedules.md). Credential (spec 5.5 leaves it open): a tenant key,
 * scope `capture` to create or delete — a schedule submits captures on the tenant's behalf — and scope
 * `read` (which `capture` implies) to list or read one. The runs themselves are made by the scheduler role.
 */

export interface ScheduleRouteDeps {
  ctx: ApiContext;
  guard: TenantGuard;
  policy: AddressPolicy;
}

const createBody = z.object(
  {
    url: targetUrl(),
    name: nameSchema,
    cron: z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string such as "0 6 * * 1"') }),
    options: captureOptionsSchema,
  },
  { error: 'must be a JSON object with url, name and cron fields' },
);

/** lastCaptureStatus values (docs/schedules.md): set by the projection from the run's events. */
export type { LastCaptureStatus } from '../../../projections/read-models/schedules.js';

/** spec 2.10 */
const scheduleSchema = z
  .object({
    id: z.string().describe('sch_<id>'),
    url: z.string(),
    name: z.string(),
    cron: z.string().describe('Five-field cron expression, UTC (spec 4.12).'),
    options: z.object(captureOptionsSchema.unwrap().shape).optional().describe('The capture options every run uses (README, Capture options).'),
    paused: z.boolean(),
    nextRunAt: dateTime().nullable().describe('Next planned run.'),
    lastRunAt: dateTime().nullable().describe('Null before the first run.'),
    lastCaptureId: z.string().nullable(),
    lastCaptureStatus: z.enum(['pending', 'complete', 'failed', 'skipped_quota']).nullable().describe('Outcome of the most recent run (docs/schedules.md).'),
    createdAt: dateTime(),
  })
  .describe('Schedule record (spec 2.10).');

const scheduleIdParams = z.object({ scheduleId: z.string().describe('sch_<id>') });
const unknownScheduleAnswer = { 404: 'No such schedule for this tenant.' } as const;


const causedBy = (req: FastifyRequest) => ({
  correlationId: req.id,
  causedBy: req.principal!.keyHash ? { kind: 'key' as const, keyHash: req.principal!.keyHash } : { kind: 'legacy-key' as const },
});

export function scheduleRoutes(deps: ScheduleRouteDeps) {
  const { ctx, guard, policy } = deps;

  /** spec 2.10 record; nextRunAt is computed on every read (the projection stores no clock-derived values). */
  const record = (r: ScheduleRow) => ({
    id: r.schedule_id,
    url: r.url,
    name: r.name,
    cron: r.cron,
    // Addition (README, Capture options): the capture options every run uses, when the schedule was created with some.
    ...(r.options ? { options: r.options } : {}),
    paused: false,
    nextRunAt: iso(nextRunAt({ cron: r.cron, createdAt: r.created_at, lastHandled: r.last_run_at }, ctx.clock.now())) ?? null,
    lastRunAt: iso(r.last_run_at) ?? null,
    lastCaptureId: r.last_capture_id,
    lastCaptureStatus: r.last_capture_status,
    createdAt: iso(r.created_at)!,
  });

  const unknownSchedule = (id: string) => new HttpProblem(404, `No schedule ${id}.`, 'Not Found');

  async function loadSchedule(tenantId: string, id: string): Promise<ScheduleRow | null> {
    if (!isId('sch', id)) return null;
    return findActiveSchedule(ctx.pool, tenantId, id);
  }

  return async (app: TypedApp) => {
    app.post(
      '/v1/schedules',
      {
        onRequest: guard.require('capture'),
        preValidation: requireJsonBody,
        schema: {
          tags: ['schedules'],
          summary: 'Create a schedule',
          operationId: 'createSchedule',
          body: createBody,
          security: [{ bearer: [] }],
          response: {
            201: withHeaders(scheduleSchema, 'The schedule (spec 4.12); Location is its URL.', ['Location']),
            ...problemResponses({
              ...ANSWERS.tenantKey,
              ...ANSWERS.jsonBody,
              ...ANSWERS.internal,
              400: 'Invalid url, name, cron or options, or a cron expression firing more than once per hour; the detail names it (spec 4.12).',
              422: 'The URL is not capturable: private address, embedded credentials, double-encoded (spec 7.2).',
              429: "Rate limited, or the tier's active-schedule maximum is reached (limitType 'schedules'; spec 7.3).",
            }),
          },
        },
      },
      async (req, reply) => {
        const body = req.body;
        // Cheap syntax checks first, so a request wrong in both ways gets the 400 rather than a 422.
        const cron = body.cron.trim();
        const parsed = parseSchedule(cron);
        if (!parsed.ok) throw new HttpProblem(400, parsed.detail.startsWith('cron') ? parsed.detail : `cron: ${parsed.detail}`, 'Bad Request');
        // Same URL rules as POST /v1/captures (spec 4.3); the worker's egress proxy checks again at every run.
        const checked = await checkTargetUrl(body.url, { policy, onRefusedAddress: (why) => req.log.info({ why }, 'target refused') });
        if (!checked.ok) throw new HttpProblem(urlRejectionStatus(checked.reason), checked.detail);

        const options = parseCaptureOptions(body.options);
        if (!options.ok) throw new HttpProblem(400, options.detail, 'Bad Request');

        const scheduleId = newId('sch');
        const cmd = { scheduleId, url: checked.url, name: body.name, cron, ...(options.options ? { options: options.options } : {}) };
        const result = await ctx.tenants.execute(req.principal!.tenantId, { type: 'CreateSchedule', data: cmd }, causedBy(req));
        await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
        const createdAt = new Date(result.reply.createdAt);
        reply.header('Location', `${ctx.config.PUBLIC_BASE_URL}/v1/schedules/${scheduleId}`);
        return reply.code(201).send(
          record({
            schedule_id: scheduleId,
            tenant_id: req.principal!.tenantId,
            url: cmd.url,
            name: cmd.name,
            cron,
            options: options.options ?? null,
            created_at: createdAt,
            deleted_at: null,
            last_run_at: null,
            last_capture_id: null,
            last_capture_status: null,
          }),
        );
      },
    );

    app.get(
      '/v1/schedules',
      {
        onRequest: guard.require('read'),
        schema: {
          tags: ['schedules'],
          summary: 'List schedules',
          operationId: 'listSchedules',
          security: [{ bearer: [] }],
          response: {
            200: z.object({ data: z.array(scheduleSchema) }).describe("The tenant's schedules."),
            ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal }),
          },
        },
      },
      async (req) => {
        const rows = await listActiveSchedules(ctx.pool, req.principal!.tenantId);
        return { data: rows.map(record) };
      },
    );

    app.get(
      '/v1/schedules/:scheduleId',
      {
        onRequest: guard.require('read'),
        schema: {
          tags: ['schedules'],
          summary: 'Retrieve a schedule',
          operationId: 'getSchedule',
          security: [{ bearer: [] }],
          params: scheduleIdParams,
          response: { 200: scheduleSchema, ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal, ...unknownScheduleAnswer }) },
        },
      },
      async (req) => {
        const { scheduleId } = req.params;
        const row = await loadSchedule(req.principal!.tenantId, scheduleId);
        if (!row) throw unknownSchedule(scheduleId);
        return record(row);
      },
    );

    app.delete(
      '/v1/schedules/:scheduleId',
      {
        onRequest: guard.require('capture'),
        schema: {
          tags: ['schedules'],
          summary: 'Delete a schedule',
          operationId: 'deleteSchedule',
          security: [{ bearer: [] }],
          params: scheduleIdParams,
          response: {
            200: z.object({ id: z.string(), deleted: z.literal(true) }).describe('Deleted; no further runs (spec 4.12).'),
            ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal, ...unknownScheduleAnswer }),
          },
        },
      },
      async (req) => {
        const { scheduleId } = req.params;
        if (!isId('sch', scheduleId)) throw unknownSchedule(scheduleId);
        // The actor decides: another tenant's schedule is simply not in this tenant's state (404).
        const result = await ctx.tenants.execute(req.principal!.tenantId, { type: 'DeleteSchedule', data: { scheduleId } }, causedBy(req));
        await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
        return { id: scheduleId, deleted: true as const };
      },
    );
  };
}
