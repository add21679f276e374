import { z } from 'zod';
import type { Retention } from '../../application/retention.js';
import { requireJsonBody, type TypedApp } from '../app.js';
import type { OperatorGuard } from '../operator-auth.js';
import { ANSWERS, problemResponses } from '../problem.js';
import { dateTime, idParam, tenantIdSchema } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import { type RouteRegistrar, registerRoutes } from '../route-registrar.js';

/**
 * Retention and legal hold (docs/storage.md), operator routes: a tenant's default retention, and one
 * capture's retain-until date and legal hold. Extensions beside the spec's admin routes.
 */

const OPERATOR_ANSWERS = { ...ANSWERS.operator, ...ANSWERS.internal } as const;
const STORAGE_DOWN = { 503: 'The admin API is not configured, or object storage is unavailable (Retry-After).' };

const who = {
  by: z
    .string({ error: 'is required: who makes the change (a name or e-mail), recorded on the ledger' })
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters'),
  reason: z
    .string({ error: 'is required: why, recorded on the ledger' })
    .trim()
    .min(1, 'must not be empty')
    .max(2000, 'must be at most 2000 characters'),
};

const tenantRetentionBody = z.object(
  {
    days: z.union([z.number().int('must be a whole number of days').min(0).max(36_500), z.null()], {
      error: 'must be a whole number of days (0 to 36500) or null for the deployment default',
    }),
    ...who,
  },
  { error: 'must be a JSON object with days, by and reason' },
);

const tenantRetentionSchema = z
  .object({
    tenantId: z.string(),
    days: z.number().int().describe('Captures completed from now on are retained this many days (0: none).'),
    source: z.enum(['tenant', 'default']).describe("The tenant's own setting, or RETENTION_DEFAULT_DAYS."),
    defaultDays: z.number().int(),
    locked: z.boolean().describe('Whether storage locks objects (S3 with Object Lock); false: no retention applies.'),
  })
  .describe("The tenant's retention of stored captures.");

const tenantRetentionSetSchema = tenantRetentionSchema
  .extend({
    appliesTo: z
      .literal('captures completed from now on')
      .describe('A new retention (lower or higher) applies to captures completed from now on only.'),
    detail: z
      .string()
      .describe(
        'What the change does: captures stored before keep the retain-until dates storage holds them to (compliance mode cannot shorten them).',
      ),
  })
  .describe("The tenant's retention of stored captures, as set, and what the change applies to.");

const legalHoldBody = z.object(
  { active: z.boolean({ error: 'must be true (place) or false (lift)' }), ...who },
  { error: 'must be a JSON object with active, by and reason' },
);

const retainBody = z.object(
  { retainUntil: z.iso.datetime({ error: 'must be an ISO 8601 date-time' }), ...who },
  { error: 'must be a JSON object with retainUntil, by and reason' },
);

const captureRetentionSchema = z
  .object({
    captureId: z.string(),
    storage: z.enum(['jetstream', 's3']),
    retainUntil: dateTime()
      .nullable()
      .describe(
        'The retain-until date storage holds every object of the capture to (compliance mode; the earliest of them, read back from storage); null: one is not retained.',
      ),
    legalHold: z.object({
      active: z.boolean(),
      by: z.string().optional(),
      reason: z.string().optional(),
      at: dateTime().optional().describe('When the last hold was placed or lifted.'),
    }),
  })
  .describe(
    "The capture's retention and legal hold as storage holds them, with who last placed or lifted a hold and why.",
  );

const captureParams = z.object({ captureId: idParam('capture', 'cap_<id>') });

export function retentionRoutes(guard: TenantGuard, operator: OperatorGuard, retention: Retention) {
  return async (app: TypedApp) => {
    app.register(async (admin: TypedApp) => {
      admin.addHook('onRequest', guard.perIp());
      admin.addHook('onRequest', operator.credential());
      registerRoutes(admin, RETENTION_ROUTES, retention);
    });
  };
}

const RETENTION_ROUTES: RouteRegistrar<Retention>[] = [
  tenantRetentionRoute,
  setTenantRetentionRoute,
  captureRetentionRoute,
  legalHoldRoute,
  extendRetentionRoute,
];

function tenantRetentionRoute(admin: TypedApp, retention: Retention) {
  admin.get(
    '/v1/admin/tenants/:tenantId/retention',
    {
      schema: {
        tags: ['admin'],
        summary: "A tenant's retention of stored captures (extension)",
        operationId: 'getTenantRetention',
        security: [{ bearer: [] }],
        params: z.object({ tenantId: tenantIdSchema }),
        response: {
          200: tenantRetentionSchema,
          ...problemResponses({ ...OPERATOR_ANSWERS, 400: 'Invalid tenantId.' }),
        },
      },
    },
    async (req) => retention.tenant(req.params.tenantId),
  );
}

function setTenantRetentionRoute(admin: TypedApp, retention: Retention) {
  admin.put(
    '/v1/admin/tenants/:tenantId/retention',
    {
      preValidation: requireJsonBody,
      schema: {
        tags: ['admin'],
        summary: "Set a tenant's retention of stored captures (extension)",
        description:
          'Captures the tenant completes from now on are stored under S3 Object Lock (compliance mode) for `days` days; null returns to RETENTION_DEFAULT_DAYS. Captures stored before keep their dates: lowering the retention answers 200 and applies to future captures only (`appliesTo`, `detail`). Recorded on the ledger (tenant.retention_set) with `by` and `reason`.',
        operationId: 'setTenantRetention',
        security: [{ bearer: [] }],
        params: z.object({ tenantId: tenantIdSchema }),
        body: tenantRetentionBody,
        response: {
          200: tenantRetentionSetSchema,
          ...problemResponses({
            ...OPERATOR_ANSWERS,
            ...ANSWERS.jsonBody,
            400: 'Invalid tenantId, days, by or reason; the detail names the field.',
          }),
        },
      },
    },
    async (req) =>
      retention.setTenant(req.id, req.params.tenantId, req.body.days, { by: req.body.by, reason: req.body.reason }),
  );
}

function captureRetentionRoute(admin: TypedApp, retention: Retention) {
  admin.get(
    '/v1/admin/captures/:captureId/retention',
    {
      schema: {
        tags: ['admin'],
        summary: "A capture's retention and legal hold in storage (extension)",
        operationId: 'getCaptureRetention',
        security: [{ bearer: [] }],
        params: captureParams,
        response: {
          200: captureRetentionSchema,
          ...problemResponses({
            ...OPERATOR_ANSWERS,
            ...STORAGE_DOWN,
            404: 'No such capture.',
            409: 'The capture is not complete.',
          }),
        },
      },
    },
    async (req) => retention.capture(req.params.captureId),
  );
}

function legalHoldRoute(admin: TypedApp, retention: Retention) {
  admin.put(
    '/v1/admin/captures/:captureId/legal-hold',
    {
      preValidation: requireJsonBody,
      schema: {
        tags: ['admin'],
        summary: 'Place or lift a legal hold on a capture (extension)',
        description:
          'Storage holds (or releases) every stored object of the capture (S3 Object Lock legal hold): none can be deleted while held, whatever its retention. Recorded on the ledger (capture.legal_hold_placed / capture.legal_hold_lifted) with `by` and `reason`.',
        operationId: 'setCaptureLegalHold',
        security: [{ bearer: [] }],
        params: captureParams,
        body: legalHoldBody,
        response: {
          200: captureRetentionSchema,
          ...problemResponses({
            ...OPERATOR_ANSWERS,
            ...ANSWERS.jsonBody,
            ...STORAGE_DOWN,
            400: 'Invalid active, by or reason; the detail names the field.',
            404: 'No such capture.',
            409: 'The capture is not complete, or storage cannot lock objects (not S3 with Object Lock).',
          }),
        },
      },
    },
    async (req) =>
      retention.setLegalHold(req.id, req.params.captureId, req.body.active, {
        by: req.body.by,
        reason: req.body.reason,
      }),
  );
}

function extendRetentionRoute(admin: TypedApp, retention: Retention) {
  admin.put(
    '/v1/admin/captures/:captureId/retention',
    {
      preValidation: requireJsonBody,
      schema: {
        tags: ['admin'],
        summary: "Extend a capture's retention (extension)",
        description:
          'Moves the retain-until date of every stored object of the capture. Storage extends it; a shorter date is refused by storage itself (compliance mode), answered 409. Recorded on the ledger (capture.retention_extended) with `by` and `reason`.',
        operationId: 'extendCaptureRetention',
        security: [{ bearer: [] }],
        params: captureParams,
        body: retainBody,
        response: {
          200: captureRetentionSchema,
          ...problemResponses({
            ...OPERATOR_ANSWERS,
            ...ANSWERS.jsonBody,
            ...STORAGE_DOWN,
            400: 'Invalid retainUntil, by or reason; the detail names the field.',
            404: 'No such capture.',
            409: 'Storage refused shortening the retention, the capture is not complete, or storage cannot lock objects.',
          }),
        },
      },
    },
    async (req) =>
      retention.retainUntil(req.id, req.params.captureId, new Date(req.body.retainUntil), {
        by: req.body.by,
        reason: req.body.reason,
      }),
  );
}
