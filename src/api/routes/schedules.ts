import { z } from 'zod';
import type { Schedules } from '../../application/schedules.js';
import { requireJsonBody, type TypedApp } from '../app.js';
import { ANSWERS, problemResponses } from '../problem.js';
import { captureOptionsSchema } from '../capture-options-schema.js';
import { dateTime, idParam, nameSchema, targetUrl } from '../schemas.js';
import { withHeaders } from '../openapi-headers.js';
import { callerOf, type TenantGuard } from '../tenant-auth.js';
import { type RouteRegistrar, registerRoutes } from '../route-registrar.js';

/**
 * Schedules (spec 2.10, 3.4, 4.12; docs/schedules.md). Credential (spec 5.5 leaves it open): a tenant key,
 * scope `capture` to create or delete — a schedule submits captures on the tenant's behalf — and scope
 * `read` (which `capture` implies) to list or read one. The runs themselves are made by the scheduler role.
 */

export interface ScheduleRouteDeps {
  guard: TenantGuard;
  /** The application service the MCP schedule tools call too (DESIGN decision 15). */
  schedules: Schedules;
}

// Exported: the MCP schedule tools are described by the same schemas (src/api/mcp/).
export const createBody = z.object(
  {
    url: targetUrl(),
    name: nameSchema,
    cron: z.string({
      error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string such as "0 6 * * 1"'),
    }),
    options: captureOptionsSchema,
    // Extension: checked by the application service, which names the field at fault (watch.…).
    watch: z
      .unknown()
      .optional()
      .meta({ type: 'object' })
      .describe(
        "Watch settings (docs/watch.md): { notifyOn: 'change', minTextChange, minPixelChange, ignoreSelectors, ignoreText }.",
      ),
  },
  { error: 'must be a JSON object with url, name and cron fields' },
);

/** lastCaptureStatus values (docs/schedules.md): set by the projection from the run's events. */
export type { LastCaptureStatus } from '../../../projections/read-models/schedules.js';

/** spec 2.10 */
export const scheduleSchema = z
  .object({
    id: z.string().describe('sch_<id>'),
    url: z.string(),
    name: z.string(),
    cron: z.string().describe('Five-field cron expression, UTC (spec 4.12).'),
    options: z
      .object(captureOptionsSchema.unwrap().shape)
      .optional()
      .describe('The capture options every run uses (docs/capturing.md, Capture options).'),
    watch: z
      .object({
        notifyOn: z.literal('change'),
        minTextChange: z.number(),
        minPixelChange: z.number().nullable(),
        ignoreSelectors: z.array(z.string()),
        ignoreText: z.array(z.string()),
      })
      .optional()
      .describe('Extension: each run is compared with the one before (docs/watch.md).'),
    paused: z.boolean(),
    nextRunAt: dateTime().nullable().describe('Next planned run.'),
    lastRunAt: dateTime().nullable().describe('Null before the first run.'),
    lastCaptureId: z.string().nullable(),
    lastCaptureStatus: z
      .enum(['pending', 'complete', 'failed', 'skipped_quota'])
      .nullable()
      .describe('Outcome of the most recent run (docs/schedules.md).'),
    createdAt: dateTime(),
  })
  .describe('Schedule record (spec 2.10).');

const previewQuery = z.object({
  cron: z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be given once') })
    .describe('Five-field cron expression, UTC (spec 4.12), e.g. "0 6 * * 1".'),
});

const previewSchema = z
  .object({
    cron: z.string().describe('The expression, trimmed.'),
    nextRuns: z.array(dateTime()).describe('The next five runs after now, UTC, oldest first.'),
  })
  .describe('What a schedule with this cron would do (docs/api.md, Console endpoints).');

export const scheduleIdParams = z.object({ scheduleId: idParam('schedule', 'sch_<id>') });
const unknownScheduleAnswer = { 404: 'No such schedule for this tenant.' } as const;

export const deletedScheduleSchema = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .describe('Deleted; no further runs (spec 4.12).');
export const scheduleListSchema = z.object({ data: z.array(scheduleSchema) }).describe("The tenant's schedules.");

/** Extension: the last 50 runs, newest first. */
const scheduleRunsSchema = z
  .object({
    data: z.array(
      z.object({
        captureId: z.string(),
        status: z.enum(['pending', 'complete', 'failed']),
        createdAt: dateTime(),
        completedAt: dateTime().nullable(),
        failedAt: dateTime().nullable(),
        error: z.string().nullable().optional().describe('Failed runs only.'),
        failureReason: z.string().nullable().optional().describe('Failed runs only (docs/api.md, Failure reasons).'),
        comparison: z
          .object({
            baseCaptureId: z.string(),
            changed: z.boolean(),
            notified: z.boolean().describe('Changed beyond the watch thresholds: capture.changed fired.'),
            summary: z.custom<object | null>().meta({ type: 'object' }),
            bound: z
              .string()
              .nullable()
              .describe(
                'The diff reached a bound (docs/watch.md, Bounds) and was not completed: which one and why; then changed and notified are false. Null: it completed.',
              ),
            diffUrl: z.string(),
          })
          .nullable()
          .describe('On a watched schedule, this run compared with the previous complete run; null otherwise.'),
      }),
    ),
  })
  .describe("The schedule's last 50 runs, newest first (docs/watch.md).");

export function scheduleRoutes(deps: ScheduleRouteDeps) {
  return async (app: TypedApp) => {
    registerRoutes(app, SCHEDULE_ROUTES, deps);
  };
}

const SCHEDULE_ROUTES: RouteRegistrar<ScheduleRouteDeps>[] = [
  createScheduleRoute,
  listSchedulesRoute,
  previewScheduleRoute,
  getScheduleRoute,
  scheduleRunsRoute,
  deleteScheduleRoute,
];

function createScheduleRoute(app: TypedApp, { guard, schedules }: ScheduleRouteDeps) {
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
      const created = await schedules.create(callerOf(req), req.body);
      reply.header('Location', schedules.scheduleUrl(created.id));
      return reply.code(201).send(created);
    },
  );
}

function listSchedulesRoute(app: TypedApp, { guard, schedules }: ScheduleRouteDeps) {
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
          200: scheduleListSchema,
          ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal }),
        },
      },
    },
    async (req) => schedules.list(callerOf(req)),
  );
}

/** Extension (docs/api.md, Console endpoints): what a cron expression would do, by the rules POST /v1/schedules applies. */
function previewScheduleRoute(app: TypedApp, { guard, schedules }: ScheduleRouteDeps) {
  app.get(
    '/v1/schedules/preview',
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['schedules'],
        summary: "A cron expression's next five runs, UTC",
        operationId: 'previewSchedule',
        security: [{ bearer: [] }],
        querystring: previewQuery,
        response: {
          200: previewSchema,
          ...problemResponses({
            ...ANSWERS.tenantKey,
            ...ANSWERS.internal,
            400: 'Missing or invalid cron, or one firing more than once per hour: the answer POST /v1/schedules gives (spec 4.12).',
          }),
        },
      },
    },
    async (req) => schedules.preview(req.query.cron),
  );
}

function getScheduleRoute(app: TypedApp, { guard, schedules }: ScheduleRouteDeps) {
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
        response: {
          200: scheduleSchema,
          ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal, ...unknownScheduleAnswer }),
        },
      },
    },
    async (req) => schedules.get(callerOf(req), req.params.scheduleId),
  );
}

function scheduleRunsRoute(app: TypedApp, { guard, schedules }: ScheduleRouteDeps) {
  app.get(
    '/v1/schedules/:scheduleId/runs',
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['schedules'],
        summary: "A schedule's runs (extension, docs/watch.md)",
        operationId: 'listScheduleRuns',
        security: [{ bearer: [] }],
        params: scheduleIdParams,
        response: {
          200: scheduleRunsSchema,
          ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal, ...unknownScheduleAnswer }),
        },
      },
    },
    async (req) => schedules.runs(callerOf(req), req.params.scheduleId),
  );
}

function deleteScheduleRoute(app: TypedApp, { guard, schedules }: ScheduleRouteDeps) {
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
          200: deletedScheduleSchema,
          ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal, ...unknownScheduleAnswer }),
        },
      },
    },
    async (req) => schedules.delete(callerOf(req), req.params.scheduleId),
  );
}
