import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { periodEnd, periodOf } from '../../domain/clock.js';
import type { Tier } from '../../domain/events.js';
import { DEFAULT_TIER, TIER_LIMITS } from '../../domain/tiers.js';
import { requireJsonBody } from '../app.js';
import { checkAdmin } from '../auth.js';
import type { ApiContext } from '../context.js';
import { HttpProblem } from '../problem.js';
import { iso, TENANT_ID_PATTERN } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import { causedByAdmin } from './admin-keys.js';
import { findTenant, type TenantRow } from '../../../projections/read-models/tenants.js';
import { findMonthlyUsage } from '../../../projections/read-models/usage.js';

/** Usage (spec 2.11, 4.11, 4.14) and per-tenant configuration: quota overrides and tier. */

const TIER_DISPLAY: Record<Tier, string> = { starter: 'Starter (free)', pro: 'Pro' };
const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;

const quotaValue = z.union([z.number().int('must be an integer').min(0, 'must be 0 or more').max(Number.MAX_SAFE_INTEGER), z.null()], {
  error: 'must be an integer (0 or more) or null',
});
const configBody = z.object(
  {
    quotas: z
      .object({ capturesPerMonth: quotaValue.optional(), storageBytes: quotaValue.optional() }, { error: 'must be an object' })
      .strict()
      .optional(),
    tier: z.enum(['starter', 'pro'], { error: "must be 'starter' or 'pro'" }).optional(),
  },
  { error: 'must be a JSON object with a quotas object' },
);

export function tenancyRoutes(ctx: ApiContext, guard: TenantGuard) {
  const tenantRow = (tenantId: string) => findTenant(ctx.pool, tenantId);
  const usageRow = (tenantId: string, period: string) => findMonthlyUsage(ctx.pool, tenantId, period);
  const limitsOf = (t: TenantRow | null) => {
    const tier = t?.tier ?? DEFAULT_TIER;
    return {
      tier,
      capturesPerMonth: t?.captures_override ?? TIER_LIMITS[tier].capturesPerMonth,
      storageBytes: t?.storage_override ?? TIER_LIMITS[tier].storageBytes,
    };
  };
  const configRecord = (tenantId: string, t: TenantRow | null) => {
    const limits = limitsOf(t);
    return {
      tenantId,
      config: {
        quotas: { capturesPerMonth: limits.capturesPerMonth, storageBytes: limits.storageBytes },
        tier: limits.tier,
        overrides: { capturesPerMonth: t?.captures_override ?? null, storageBytes: t?.storage_override ?? null },
      },
      updatedAt: iso(t?.config_updated_at ?? t?.updated_at ?? null) ?? null,
    };
  };

  return async (app: FastifyInstance) => {
    app.get('/v1/account/usage', { onRequest: guard.require('read'), schema: { tags: ['usage'], summary: "The authenticated tenant's usage" } }, async (req) => {
      const tenantId = req.principal!.tenantId;
      const period = periodOf(ctx.clock.now());
      const [t, u] = await Promise.all([tenantRow(tenantId), usageRow(tenantId, period)]);
      const limits = limitsOf(t);
      const used = { captures: u?.captures_submitted ?? 0, storage: u?.storage_bytes ?? 0 };
      return {
        tenantId,
        period,
        tierDisplay: TIER_DISPLAY[limits.tier],
        captures: { used: used.captures, limit: limits.capturesPerMonth, remaining: Math.max(0, limits.capturesPerMonth - used.captures) },
        storageBytes: { used: used.storage, limit: limits.storageBytes, remaining: Math.max(0, limits.storageBytes - used.storage) },
        resetsAt: periodEnd(period).toISOString(),
      };
    });

    app.register(async (admin) => {
      admin.addHook('onRequest', guard.perIp());
      admin.addHook('onRequest', async (req) => checkAdmin(req, ctx.config.ADMIN_KEY));

      admin.get('/v1/admin/usage', { schema: { tags: ['admin'], summary: "A tenant's usage in a period" } }, async (req) => {
        const q = req.query as Record<string, unknown>;
        const tenantId = typeof q.tenant === 'string' ? q.tenant : undefined;
        if (!tenantId) throw new HttpProblem(400, 'The tenant query parameter is required.', 'Bad Request');
        if (!TENANT_ID_PATTERN.test(tenantId)) throw new HttpProblem(400, 'tenant must match ^[a-z0-9_-]{1,64}$.', 'Bad Request');
        const period = q.period === undefined ? periodOf(ctx.clock.now()) : String(q.period);
        if (!PERIOD.test(period)) throw new HttpProblem(400, `period must be YYYY-MM, got '${period}'.`, 'Bad Request');
        if (!(await tenantRow(tenantId))) throw new HttpProblem(404, `No tenant ${tenantId}.`, 'Not Found');
        const u = await usageRow(tenantId, period);
        return {
          tenantId,
          period,
          captureCount: u?.captures_completed ?? 0,
          storageBytes: u?.storage_bytes ?? 0,
          apiCallCount: u?.api_call_count ?? 0,
          updatedAt: iso(u?.updated_at ?? null) ?? null,
        };
      });

      admin.get('/v1/admin/tenants/:tenantId/config', { schema: { tags: ['admin'], summary: "Read a tenant's configuration" } }, async (req) => {
        const { tenantId } = req.params as { tenantId: string };
        const t = TENANT_ID_PATTERN.test(tenantId) ? await tenantRow(tenantId) : null;
        if (!t) throw new HttpProblem(404, `No tenant ${tenantId}.`, 'Not Found');
        return configRecord(tenantId, t);
      });

      admin.put(
        '/v1/admin/tenants/:tenantId/config',
        { preValidation: requireJsonBody, schema: { tags: ['admin'], summary: "Set a tenant's quota overrides and tier", body: configBody } },
        async (req) => {
          const { tenantId } = req.params as { tenantId: string };
          if (!TENANT_ID_PATTERN.test(tenantId)) throw new HttpProblem(400, 'tenantId must match ^[a-z0-9_-]{1,64}$.', 'Bad Request');
          const body = req.body as z.infer<typeof configBody>;
          // spec 4.11: omitting a field or sending null removes that override.
          const overrides = { capturesPerMonth: body.quotas?.capturesPerMonth ?? null, storageBytes: body.quotas?.storageBytes ?? null };
          const by = causedByAdmin(req);
          let lastSeq = 0;
          if (body.tier) {
            const r = await ctx.tenants.execute(tenantId, { type: 'SetTier', data: { tier: body.tier! } }, by);
            lastSeq = r.appended.at(-1)?.seq ?? lastSeq;
          }
          const r = await ctx.tenants.execute(tenantId, { type: 'SetQuotaOverrides', data: overrides }, by);
          lastSeq = r.appended.at(-1)?.seq ?? lastSeq;
          if (lastSeq) await ctx.waiter.waitFor(lastSeq);
          return configRecord(tenantId, await tenantRow(tenantId));
        },
      );
    });
  };
}

