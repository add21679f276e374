import type { ServiceContext } from './service-context.js';
import { causedByAdmin } from './caller.js';
import { limitsOf } from './account-usage.js';
import { refusal } from '../domain/errors.js';
import { iso, periodOf } from '../domain/clock.js';
import type { Tier } from '../domain/events.js';
import { TENANT_ID_PATTERN } from '../domain/tenant-keys.js';
import { findTenant, type TenantRow } from '../../projections/read-models/tenants.js';
import { findMonthlyUsage, listTenantsWithUsage } from '../../projections/read-models/usage.js';

/**
 * Operators' view and settings of a tenant (spec 2.11, 4.11): its usage in a period, its configuration (quota
 * overrides and tier). The admin usage and config routes call these with the request id that becomes the
 * events' correlation id; the tenant's own usage is `account-usage.ts`.
 */

export type TenantAdministration = ReturnType<typeof createTenantAdministration>;

/** spec 4.11: omitting a quota or sending null removes that override; no tier leaves the tier as it is. */
export interface TenantConfigChange {
  quotas?: { capturesPerMonth?: number | null; storageBytes?: number | null };
  tier?: Tier;
}

const unknownTenant = (tenantId: string) => refusal(404, `No tenant ${tenantId}.`);

/** spec 2.11 config record, with the tier and which quotas are overrides. */
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

export function createTenantAdministration(ctx: ServiceContext) {
  return {
    /** A tenant's usage in a period (default: the current UTC month); 404 for an unknown tenant. */
    async usage(tenantId: string, period?: string) {
      const inPeriod = period ?? periodOf(ctx.clock.now());
      if (!(await findTenant(ctx.pool, tenantId))) throw unknownTenant(tenantId);
      const u = await findMonthlyUsage(ctx.pool, tenantId, inPeriod);
      return {
        tenantId,
        period: inPeriod,
        captureCount: u?.captures_completed ?? 0,
        storageBytes: u?.storage_bytes ?? 0,
        apiCallCount: u?.api_call_count ?? 0,
        updatedAt: iso(u?.updated_at ?? null) ?? null,
      };
    },

    /**
     * Operators' tenant list: every tenant with its quotas in effect, its overrides and its usage this month, in
     * tenant id order, a page at a time (keyset on the tenants primary key: `cursor` is the last id of the page
     * before, `nextCursor` null on the last page).
     */
    async list(page: { limit: number; cursor?: string | undefined }) {
      const period = periodOf(ctx.clock.now());
      // One row more than asked says whether there is a next page.
      const rows = await listTenantsWithUsage(ctx.pool, period, { after: page.cursor ?? null, limit: page.limit + 1 });
      const shown = rows.slice(0, page.limit);
      return {
        data: shown.map((t) => {
          const limits = limitsOf(t);
          return {
            tenantId: t.tenant_id,
            tier: limits.tier,
            quotas: { capturesPerMonth: limits.capturesPerMonth, storageBytes: limits.storageBytes },
            overrides: { capturesPerMonth: t.captures_override, storageBytes: t.storage_override },
            usage: {
              period,
              captureCount: t.captures_completed,
              storageBytes: t.storage_bytes,
              apiCallCount: t.api_call_count,
            },
          };
        }),
        nextCursor: rows.length > page.limit ? shown.at(-1)!.tenant_id : null,
      };
    },

    /** 404 for an unknown tenant, and for an id that cannot name one. */
    async config(tenantId: string) {
      const t = TENANT_ID_PATTERN.test(tenantId) ? await findTenant(ctx.pool, tenantId) : null;
      if (!t) throw unknownTenant(tenantId);
      return configRecord(tenantId, t);
    },

    /** Sets the tier (when given), then the quota overrides, attributed to the operator (spec 4.11). */
    async setConfig(correlationId: string, tenantId: string, change: TenantConfigChange) {
      const overrides = {
        capturesPerMonth: change.quotas?.capturesPerMonth ?? null,
        storageBytes: change.quotas?.storageBytes ?? null,
      };
      const by = causedByAdmin(correlationId);
      let lastSeq = 0;
      if (change.tier) {
        const r = await ctx.tenants.execute(tenantId, { type: 'SetTier', data: { tier: change.tier } }, by);
        lastSeq = r.appended.at(-1)?.seq ?? lastSeq;
      }
      const r = await ctx.tenants.execute(tenantId, { type: 'SetQuotaOverrides', data: overrides }, by);
      lastSeq = r.appended.at(-1)?.seq ?? lastSeq;
      if (lastSeq) await ctx.waiter.waitFor(lastSeq);
      return configRecord(tenantId, await findTenant(ctx.pool, tenantId));
    },
  };
}
