import type { ServiceContext } from './service-context.js';
import { periodEnd, periodOf } from '../domain/clock.js';
import type { Tier } from '../domain/events.js';
import { DEFAULT_TIER, TIER_LIMITS } from '../domain/tiers.js';
import type { TenantRow } from '../../projections/read-models/tenants.js';
import { findTenant } from '../../projections/read-models/tenants.js';
import { dayOf } from '../../projections/read-models/read-model.js';
import { findMonthlyUsage, listDailyUsage } from '../../projections/read-models/usage.js';

/**
 * A tenant's quotas in effect and its usage this month (spec 2.11, 4.14). GET /v1/account/usage and the MCP
 * usage tool call this (DESIGN decision 15); the admin config endpoints read `limitsOf` too.
 */

const TIER_DISPLAY: Record<Tier, string> = { starter: 'Starter (free)', pro: 'Pro' };

/** The tier and the quotas in effect: the override, else the tier default (spec 8.2). */
export const limitsOf = (
  t: (Pick<TenantRow, 'captures_override' | 'storage_override'> & { tier: Tier | null }) | null,
) => {
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

/** The service as the routes are given it: a period's days, bound to the context. */
export type AccountUsageDaily = (tenantId: string, period?: string) => ReturnType<typeof accountUsageDaily>;

/**
 * A tenant's usage per UTC day of `period` (default this month), every day from the first of the month up to today
 * (a past month: all its days; a future one: none), zeros where nothing happened. A completed capture and its
 * bytes count on the day it completed, a failure on the day it failed (usage_daily; docs/analysts.md).
 */
export async function accountUsageDaily(ctx: ServiceContext, tenantId: string, period?: string) {
  const today = dayOf(ctx.clock.now().toISOString());
  const inPeriod = period ?? periodOf(ctx.clock.now());
  const first = `${inPeriod}-01`;
  const lastOfMonth = dayOf(new Date(periodEnd(inPeriod).getTime() - 1).toISOString());
  const last = lastOfMonth.localeCompare(today) < 0 ? lastOfMonth : today;
  const rows = last < first ? [] : await listDailyUsage(ctx.pool, tenantId, first, last);
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days: Array<{ date: string; captures: number; failed: number; storageBytes: number }> = [];
  for (let d = new Date(`${first}T00:00:00Z`); dayOf(d.toISOString()) <= last; d = new Date(d.getTime() + 86_400_000)) {
    const date = dayOf(d.toISOString());
    const r = byDay.get(date);
    days.push({
      date,
      captures: r?.captures_completed ?? 0,
      failed: r?.captures_failed ?? 0,
      storageBytes: r?.storage_bytes ?? 0,
    });
  }
  return { tenantId, period: inPeriod, days };
}
