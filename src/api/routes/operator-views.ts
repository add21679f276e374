import { z } from 'zod';
import type { AnalystReports } from '../../application/analyst-reports.js';
import type { Capacity } from '../../application/capacity.js';
import { CHECK_NAMES, type OperatorChecks } from '../../application/operator-checks.js';
import { REPORT_NAMES } from '../../../projections/read-models/report-views.js';
import type { TypedApp } from '../app.js';
import { toCsv } from '../csv.js';
import type { OperatorGuard } from '../operator-auth.js';
import { ANSWERS, problemResponses } from '../problem.js';
import { dateTime } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import { type RouteRegistrar, registerRoutes } from '../route-registrar.js';

/**
 * Extensions for the operator and analyst pages of the console (docs/api.md, Console endpoints): the analysts'
 * reports as JSON or CSV, the capture capacity, and the operator checks' last results (and the log monitor on demand). Admin credential, like every /v1/admin route;
 * the reports also take the analysts' (ANALYST_KEY or an analyst session), and nothing else does.
 */

export interface OperatorViewRouteDeps {
  guard: TenantGuard;
  operator: OperatorGuard;
  reports: AnalystReports;
  capacity: Capacity;
  checks: OperatorChecks;
}

const OPERATOR_ANSWERS = { ...ANSWERS.operator, ...ANSWERS.internal } as const;

const reportParams = z.object({
  name: z.string().describe(`One of ${REPORT_NAMES.join(', ')}.`),
});

const once = { error: 'must be given once' };
const reportQuery = z.object({
  from: z.string(once).optional().describe('First day, YYYY-MM-DD (UTC); default 29 days before to.'),
  to: z.string(once).optional().describe('Last day, YYYY-MM-DD (UTC), inclusive; default today.'),
  tenant: z.string(once).optional().describe('Only this tenant; default all.'),
  format: z
    .enum(['json', 'csv'], { error: "must be 'json' or 'csv'" })
    .default('json')
    .describe('csv: RFC 4180 text with a header row, as an attachment.'),
});

const reportSchema = z
  .object({
    name: z.enum(REPORT_NAMES),
    from: z.string().describe('YYYY-MM-DD'),
    to: z.string().describe('YYYY-MM-DD'),
    columns: z.array(z.string()),
    rows: z
      .array(z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])))
      .describe('One array per row, in the order of columns; days as YYYY-MM-DD.'),
  })
  .describe('A report over a window of days (docs/analysts.md, Reports).');

const capacitySchema = z
  .object({
    jobBacklog: z.number().int().describe('Capture jobs no worker has taken yet.'),
    inFlight: z.number().int().describe('Capture jobs workers hold now.'),
    backlogMax: z
      .number()
      .int()
      .describe('CAPTURE_BACKLOG_MAX: with jobBacklog + inFlight at this, submissions are answered 503.'),
    workerConcurrency: z
      .number()
      .int()
      .nullable()
      .describe("WORKER_CONCURRENCY of this process's worker; null when this process runs none."),
  })
  .describe('Capture capacity (docs/capture.md, Capacity).');

const checkResultSchema = z
  .object({
    check: z.enum(CHECK_NAMES),
    ranAt: dateTime().describe('When the run started.'),
    durationMs: z.number().int(),
    ok: z.boolean().describe('True when the run found nothing wrong.'),
    findings: z
      .array(
        z.object({
          kind: z.string().describe("The check's name for it: a divergence kind, MISSING, fork, corrupt, …"),
          message: z.string().describe('What is wrong, in a sentence.'),
        }),
      )
      .describe('The first 20 findings.'),
    findingCount: z.number().int().describe('How many findings there were in all.'),
    covered: z.string().describe('What the run looked at: a tenant and its sequences, a log size, a ledger range.'),
    ranBy: z.enum(['cli', 'api']).describe("cli: a capture-ledger run on a host; api: run on an operator's request."),
  })
  .describe('One finished run of an operator check (docs/operators.md, Recorded results).');

const checksSchema = z
  .object({
    checks: z.array(
      z.object({
        name: z.enum(CHECK_NAMES),
        summary: z.string().describe('What the check proves.'),
        command: z.string().describe('The CLI command that runs it (and records its result).'),
        onDemand: z.boolean().describe('True when POST /v1/admin/checks/{name} runs it in the API.'),
        last: checkResultSchema.nullable().describe('Its last recorded result; null when it never ran.'),
      }),
    ),
  })
  .describe('Every operator check with its last result.');

export function operatorViewRoutes(deps: OperatorViewRouteDeps) {
  return async (app: TypedApp) => {
    app.addHook('onRequest', deps.guard.perIp());
    // Per route, not per plugin: the reports take the analysts' credential too, the other routes the admin one only.
    registerRoutes(app, OPERATOR_VIEW_ROUTES, deps);
  };
}

const OPERATOR_VIEW_ROUTES: RouteRegistrar<OperatorViewRouteDeps>[] = [
  reportRoute,
  capacityRoute,
  checksRoute,
  logMonitorCheckRoute,
];

function reportRoute(app: TypedApp, { operator, reports }: OperatorViewRouteDeps) {
  app.get(
    '/v1/admin/reports/:name',
    {
      onRequest: operator.reportReader(),
      schema: {
        tags: ['admin'],
        summary: 'An analyst report, as JSON or CSV',
        description:
          "The admin credential or the analysts' (ANALYST_KEY, the only route it opens), by Bearer or by an operator or analyst console session.",
        operationId: 'getReport',
        security: [
          { bearer: [] },
          { analystBearer: [] },
          { consoleOperatorSession: [] },
          { consoleAnalystSession: [] },
        ],
        params: reportParams,
        querystring: reportQuery,
        response: {
          200: {
            description:
              'The report; with format=csv, RFC 4180 text with a header row, served as an attachment <name>-<from>-<to>.csv.',
            content: { 'application/json': { schema: reportSchema }, 'text/csv': { schema: z.string() } },
          },
          ...problemResponses({
            ...OPERATOR_ANSWERS,
            401: 'Missing or invalid credential: neither the admin key nor ANALYST_KEY, or an ended console session.',
            429: 'Rate limited per client address (spec 8.1), or 5 failed admin or analyst credentials from it within 60 s.',
            503: 'Neither ADMIN_KEY nor ANALYST_KEY is configured.',
            400: 'Invalid from, to, tenant or format, or a window over 366 days; the detail names the field.',
            404: 'No such report; the detail lists the reports.',
          }),
        },
      },
    },
    async (req, reply) => {
      const { format, ...window } = req.query;
      const report = await reports.report(req.params.name, window);
      if (format === 'json') return report;
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${report.name}-${report.from}-${report.to}.csv"`)
        .send(toCsv(report.columns, report.rows));
    },
  );
}

function capacityRoute(app: TypedApp, { operator, capacity }: OperatorViewRouteDeps) {
  app.get(
    '/v1/admin/capacity',
    {
      onRequest: operator.credential(),
      schema: {
        tags: ['admin'],
        summary: 'Capture capacity: the job backlog, jobs in flight and the bounds',
        operationId: 'getCapacity',
        security: [{ bearer: [] }],
        response: { 200: capacitySchema, ...problemResponses(OPERATOR_ANSWERS) },
      },
    },
    async () => capacity.read(),
  );
}

function checksRoute(app: TypedApp, { operator, checks }: OperatorViewRouteDeps) {
  app.get(
    '/v1/admin/checks',
    {
      onRequest: operator.credential(),
      schema: {
        tags: ['admin'],
        summary: 'The operator checks (audits, log monitor, storage verify) and the last result of each',
        operationId: 'listOperatorChecks',
        security: [{ bearer: [] }],
        response: { 200: checksSchema, ...problemResponses(OPERATOR_ANSWERS) },
      },
    },
    async () => checks.list(),
  );
}

function logMonitorCheckRoute(app: TypedApp, { operator, checks }: OperatorViewRouteDeps) {
  app.post(
    '/v1/admin/checks/log-monitor',
    {
      onRequest: operator.credential(),
      schema: {
        tags: ['admin'],
        summary: "Run the log monitor's checkpoint and consistency check against this deployment's log now",
        operationId: 'runLogMonitorCheck',
        security: [{ bearer: [] }],
        response: {
          200: checkResultSchema,
          ...problemResponses({
            ...OPERATOR_ANSWERS,
            503: 'The admin API is not configured (ADMIN_KEY unset), or this API process serves no transparency log.',
          }),
        },
      },
    },
    async () => checks.runLogMonitor(),
  );
}
