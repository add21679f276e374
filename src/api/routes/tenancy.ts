import { z } from 'zod';
import type { AccountUsage, AccountUsageDaily } from '../../application/account-usage.js';
import type { TenantAdministration } from '../../application/tenant-administration.js';
import { requireJsonBody, type TypedApp } from '../app.js';
import type { OperatorGuard } from '../operator-auth.js';
import { ANSWERS, problemResponses } from '../problem.js';
import { dateTime, pageLimit, TENANT_ID_PATTERN, tenantIdParam, tenantIdSchema } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import { type RouteRegistrar, registerRoutes } from '../route-registrar.js';

/** Usage (spec 2.11, 4.11, 4.14) and per-tenant configuration: quota overrides and tier. */

const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;

const quotaValue = z.union(
  [z.number().int('must be an integer').min(0, 'must be 0 or more').max(Number.MAX_SAFE_INTEGER), z.null()],
  {
    error: 'must be an integer (0 or more) or null',
  },
);
const configBody = z.object(
  {
    quotas: z
      .object(
        { capturesPerMonth: quotaValue.optional(), storageBytes: quotaValue.optional() },
        { error: 'must be an object' },
      )
      .strict()
      .optional(),
    tier: z.enum(['starter', 'pro'], { error: "must be 'starter' or 'pro'" }).optional(),
  },
  { error: 'must be a JSON object with a quotas object' },
);

const usageQuery = z.object({
  tenant: z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be given once') })
    .regex(TENANT_ID_PATTERN, 'must match ^[a-z0-9_-]{1,64}$'),
  period: z
    .string({ error: 'must be given once' })
    .regex(PERIOD, 'must be YYYY-MM')
    .optional()
    .describe('YYYY-MM; default the current UTC calendar month.'),
});

const counter = z.object({ used: z.number().int(), limit: z.number().int(), remaining: z.number().int() });

/** spec 2.11 */
export const accountUsageSchema = z
  .object({
    tenantId: z.string(),
    period: z.string().describe('YYYY-MM'),
    tierDisplay: z.string(),
    captures: counter,
    storageBytes: counter,
    resetsAt: dateTime().describe('First of next month.'),
  })
  .describe('Usage of the authenticated tenant this month (spec 4.14).');

/** spec 2.11 */
const adminUsageSchema = z
  .object({
    tenantId: z.string(),
    period: z.string().describe('YYYY-MM'),
    captureCount: z.number().int().describe('Captures completed in the period.'),
    storageBytes: z.number().int().describe('Bytes consumed by captures in the period.'),
    apiCallCount: z.number().int().describe('Authenticated API calls in the period.'),
    updatedAt: dateTime().nullable().describe('Null when there was no activity in the period.'),
  })
  .describe("A tenant's usage in a period (spec 4.11).");

const quotaPair = <T extends z.ZodType>(value: T) => z.object({ capturesPerMonth: value, storageBytes: value });

/** spec 2.11, with the tier and which quotas are overrides. */
const configRecordSchema = z
  .object({
    tenantId: z.string(),
    config: z.object({
      quotas: quotaPair(z.number().int()).describe('In effect: the override, else the tier default.'),
      tier: z.enum(['starter', 'pro']),
      overrides: quotaPair(z.number().int().nullable()).describe('Null: the tier default applies.'),
    }),
    updatedAt: dateTime().nullable(),
  })
  .describe('Tenant config record (spec 2.11).');

const periodQuery = z.object({
  period: z
    .string({ error: 'must be given once' })
    .regex(PERIOD, 'must be YYYY-MM')
    .optional()
    .describe('YYYY-MM; default the current UTC calendar month.'),
});

/** Extension (docs/api.md, Console endpoints). */
const dailyUsageSchema = z
  .object({
    tenantId: z.string(),
    period: z.string().describe('YYYY-MM'),
    days: z
      .array(
        z.object({
          date: z.string().describe('YYYY-MM-DD, UTC'),
          captures: z.number().int().describe('Captures completed that day.'),
          failed: z.number().int().describe('Captures failed that day.'),
          storageBytes: z.number().int().describe('Bytes of the captures completed that day.'),
        }),
      )
      .describe('Every day of the period up to today, oldest first; zeros where nothing happened.'),
  })
  .describe("The authenticated tenant's usage per day of a month.");

const tenantPageLimit = pageLimit(50, 200, 'Default 50, at most 200.');

const tenantListQuery = z.object({
  limit: tenantPageLimit,
  cursor: z
    .string({ error: 'must be given once' })
    .regex(TENANT_ID_PATTERN, 'must be the nextCursor of a page before')
    .optional()
    .describe('The nextCursor of the page before.'),
});

const tenantListSchema = z
  .object({
    data: z.array(
      z.object({
        tenantId: z.string(),
        tier: z.enum(['starter', 'pro']),
        quotas: quotaPair(z.number().int()).describe('In effect: the override, else the tier default.'),
        overrides: quotaPair(z.number().int().nullable()).describe('Null: the tier default applies.'),
        usage: z
          .object({
            period: z.string().describe('YYYY-MM, the current UTC month.'),
            captureCount: z.number().int(),
            storageBytes: z.number().int(),
            apiCallCount: z.number().int(),
          })
          .describe('As GET /v1/admin/usage answers for the current month.'),
      }),
    ),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page.'),
  })
  .describe('Tenants in tenant id order, with quotas and usage (docs/api.md, Console endpoints).');

/** Operator endpoints here: the per-IP limit, then the admin credential. */
const OPERATOR_ANSWERS = { ...ANSWERS.operator, ...ANSWERS.internal } as const;

export interface TenancyRouteDeps {
  guard: TenantGuard;
  /** The admin credential of the operator routes. */
  operator: OperatorGuard;
  /** The tenant's own usage (the MCP usage tool calls it too). */
  usage: AccountUsage;
  /** The tenant's own usage per day of a month. */
  usageDaily: AccountUsageDaily;
  /** The operators' usage reads and config settings. */
  tenants: TenantAdministration;
}

export function tenancyRoutes(deps: TenancyRouteDeps) {
  return async (app: TypedApp) => {
    registerRoutes(app, ACCOUNT_ROUTES, deps);
    app.register(async (admin: TypedApp) => {
      admin.addHook('onRequest', deps.guard.perIp());
      admin.addHook('onRequest', deps.operator.credential());
      registerRoutes(admin, TENANT_ADMIN_ROUTES, deps);
    });
  };
}

/** The tenant's own usage, with its key. */
const ACCOUNT_ROUTES: RouteRegistrar<TenancyRouteDeps>[] = [accountUsageRoute, accountUsageDailyRoute];
/** Tenants' usage and configuration, with the operator's credential. */
const TENANT_ADMIN_ROUTES: RouteRegistrar<TenancyRouteDeps>[] = [
  tenantUsageRoute,
  listTenantsRoute,
  tenantConfigRoute,
  setTenantConfigRoute,
];

function accountUsageRoute(app: TypedApp, { guard, usage }: TenancyRouteDeps) {
  app.get(
    '/v1/account/usage',
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['usage'],
        summary: "The authenticated tenant's usage",
        operationId: 'getAccountUsage',
        security: [{ bearer: [] }],
        response: { 200: accountUsageSchema, ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal }) },
      },
    },
    async (req) => usage(req.principal!.tenantId),
  );
}

function accountUsageDailyRoute(app: TypedApp, { guard, usageDaily }: TenancyRouteDeps) {
  app.get(
    '/v1/account/usage/daily',
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['usage'],
        summary: "The authenticated tenant's usage per day of a month",
        operationId: 'getAccountUsageDaily',
        security: [{ bearer: [] }],
        querystring: periodQuery,
        response: {
          200: dailyUsageSchema,
          ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal, 400: 'period is not YYYY-MM.' }),
        },
      },
    },
    async (req) => usageDaily(req.principal!.tenantId, req.query.period),
  );
}

function tenantUsageRoute(admin: TypedApp, { tenants }: TenancyRouteDeps) {
  admin.get(
    '/v1/admin/usage',
    {
      schema: {
        tags: ['admin'],
        summary: "A tenant's usage in a period",
        operationId: 'getTenantUsage',
        security: [{ bearer: [] }],
        querystring: usageQuery,
        response: {
          200: adminUsageSchema,
          ...problemResponses({
            ...OPERATOR_ANSWERS,
            400: 'Missing or malformed tenant or period (spec 7.2).',
            404: 'No such tenant.',
          }),
        },
      },
    },
    async (req) => tenants.usage(req.query.tenant, req.query.period),
  );
}

function listTenantsRoute(admin: TypedApp, { tenants }: TenancyRouteDeps) {
  admin.get(
    '/v1/admin/tenants',
    {
      schema: {
        tags: ['admin'],
        summary: 'List tenants with their quotas and usage this month',
        operationId: 'listTenants',
        security: [{ bearer: [] }],
        querystring: tenantListQuery,
        response: {
          200: tenantListSchema,
          ...problemResponses({ ...OPERATOR_ANSWERS, 400: 'limit or cursor is invalid; the detail names it.' }),
        },
      },
    },
    async (req) => tenants.list({ limit: req.query.limit, cursor: req.query.cursor }),
  );
}

function tenantConfigRoute(admin: TypedApp, { tenants }: TenancyRouteDeps) {
  admin.get(
    '/v1/admin/tenants/:tenantId/config',
    {
      schema: {
        tags: ['admin'],
        summary: "Read a tenant's configuration",
        operationId: 'getTenantConfig',
        security: [{ bearer: [] }],
        // An id that cannot exist names no tenant (404).
        params: z.object({ tenantId: tenantIdParam('The tenant id.') }),
        response: { 200: configRecordSchema, ...problemResponses({ ...OPERATOR_ANSWERS, 404: 'No such tenant.' }) },
      },
    },
    async (req) => tenants.config(req.params.tenantId),
  );
}

function setTenantConfigRoute(admin: TypedApp, { tenants }: TenancyRouteDeps) {
  admin.put(
    '/v1/admin/tenants/:tenantId/config',
    {
      preValidation: requireJsonBody,
      schema: {
        tags: ['admin'],
        summary: "Set a tenant's quota overrides and tier",
        operationId: 'setTenantConfig',
        security: [{ bearer: [] }],
        params: z.object({ tenantId: tenantIdSchema }),
        body: configBody,
        response: {
          200: configRecordSchema,
          ...problemResponses({
            ...OPERATOR_ANSWERS,
            ...ANSWERS.jsonBody,
            400: 'Invalid tenantId, quotas or tier; the detail names the field.',
          }),
        },
      },
    },
    async (req) => tenants.setConfig(req.id, req.params.tenantId, req.body),
  );
}
