import type { ServiceContext } from './service-context.js';
import { periodEnd, periodOf } from '../domain/clock.js';
import type { Tier } from '../domain/events.js';
import { DEFAULT_TIER, TIER_LIMITS } from '../domain/tiers.js';
import type { TenantRow } from '../../projections/read-models/tenants.js';
import { findTenant } from '../../projections/read-models/tenants.js';
import { findMonthlyUsage } from '../../projections/read-models/usage.js';

/**
 * A tenant's quotas in effect and its usage this month (spec 2.11, 4.14). GET /v1/account/usage and the MCP
 * usage tool call this (DESIGN decision 15); the admin config endpoints read `limitsOf` too.
 */

const TIER_DISPLAY: Record<Tier, string> = { starter: 'Starter (free)', pro: 'Pro' };

/** The tier and the quotas in effect: the override, else the tier default (spec 8.2). */
export const limitsOf = (t: TenantRow | null) => {
  const tier = t?.tier ?? DEFAULT_TIER;
  return {
    tier,
    capturesPerMonth: t?.captures_override ?? TIER_LIMITS[tier].capturesPerMonth,
    storageBytes: t?.storage_override ?? TIER_LIMITS[tier].storageBytes,
  };
};

/** The service as the routes and MCP tools are given it: bound to the context. */
export type AccountUsage = (tenantId: string) => ReturnType<typeof accountUsage>;

export async function accountUsage(ctx: ServiceContext, tenantId: string) {
  const period = periodOf(ctx.clock.now());
  const [t, u] = await Promise.all([findTenant(ctx.pool, tenantId), findMonthlyUsage(ctx.pool, tenantId, period)]);
  const limits = limitsOf(t);
  const used = { captures: u?.captures_submitted ?? 0, storage: u?.storage_bytes ?? 0 };
  return {
    tenantId,
    period,
    tierDisplay: TIER_DISPLAY[limits.tier],
    captures: {
      used: used.captures,
      limit: limits.capturesPerMonth,
      remaining: Math.max(0, limits.capturesPerMonth - used.captures),
    },
    storageBytes: {
      used: used.storage,
      limit: limits.storageBytes,
      remaining: Math.max(0, limits.storageBytes - used.storage),
    },
    resetsAt: periodEnd(period).toISOString(),
  };
}
