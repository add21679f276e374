import type { Tier } from '../../src/domain/events.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import { dayOf, type EventRef, type ExpectedRow, type SettledCapture, type Sql, type TableComparison, type TenantEnvelope, type TenantEventType } from './read-model.js';

/**
 * `usage_monthly` (per tenant and billing period, spec 8.2: an outcome counts in the month its capture was
 * submitted in) and `usage_daily` (per tenant and UTC day of the event). Counters only, so a batch's deltas are
 * summed in memory and added with one upsert per table. Outcomes count once, when they settle a pending
 * capture: the captures read model says which (SettledCapture).
 */

export const USAGE_HANDLES: readonly TenantEventType[] = ['capture.submitted', 'usage.api_calls_recorded'];

export interface UsageRow {
  tenant_id: string;
  period: string;
  captures_submitted: number;
  captures_completed: number;
  captures_failed: number;
  storage_bytes: number;
  api_call_count: number;
  updated_at: Date | null;
}

type UsageDelta = { submitted: number; completed: number; failed: number; bytes: number; apiCalls: number };
const zero = (): UsageDelta => ({ submitted: 0, completed: 0, failed: 0, bytes: 0, apiCalls: 0 });

/** The delta an event or a settled capture adds, and where it counts. */
function deltaOf(e: TenantEnvelope): { period: string; day: string; delta: Partial<UsageDelta> } | null {
  if (e.type === 'capture.submitted') return { period: e.data.period, day: dayOf(e.occurredAt), delta: { submitted: e.data.captures.length } };
  if (e.type === 'usage.api_calls_recorded') return { period: e.data.period, day: dayOf(e.occurredAt), delta: { apiCalls: e.data.count } };
  return null;
}
const settledDelta = (s: SettledCapture): { period: string; day: string; delta: Partial<UsageDelta> } => ({
  period: s.period,
  day: dayOf(s.at),
  delta: s.status === 'complete' ? { completed: 1, bytes: s.storedBytes } : { failed: 1 },
});

// ---- batch writer ---------------------------------------------------------------------------------------

export function createUsageWriter(q: Sql) {
  const monthly = new Map<string, UsageDelta & { updatedAt: string }>();
  const daily = new Map<string, UsageDelta>();
  const bump = (tenantId: string, at: string, d: { period: string; day: string; delta: Partial<UsageDelta> }) => {
    const m = monthly.get(`${tenantId}|${d.period}`) ?? { ...zero(), updatedAt: at };
    const dd = daily.get(`${tenantId}|${d.day}`) ?? zero();
    for (const k of Object.keys(dd) as Array<keyof UsageDelta>) {
      m[k] += d.delta[k] ?? 0;
      dd[k] += d.delta[k] ?? 0;
    }
    if (at > m.updatedAt) m.updatedAt = at;
    monthly.set(`${tenantId}|${d.period}`, m);
    daily.set(`${tenantId}|${d.day}`, dd);
  };

  return {
    apply(stored: StoredEvent): void {
      const e = stored.event as TenantEnvelope;
      const d = deltaOf(e);
      if (d) bump(e.tenantId, e.occurredAt, d);
    },

    async flush(settled: SettledCapture[]): Promise<void> {
      for (const s of settled) bump(s.tenantId, s.occurredAt, settledDelta(s));
      if (monthly.size > 0) {
        const rows = [...monthly.entries()].map(([k, v]) => ({ k: k.split('|'), v }));
        await q.query(
          `INSERT INTO usage_monthly (tenant_id, period, captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count, updated_at)
           SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::timestamptz[])
           ON CONFLICT (tenant_id, period) DO UPDATE SET
             captures_submitted = usage_monthly.captures_submitted + EXCLUDED.captures_submitted,
             captures_completed = usage_monthly.captures_completed + EXCLUDED.captures_completed,
             captures_failed = usage_monthly.captures_failed + EXCLUDED.captures_failed,
             storage_bytes = usage_monthly.storage_bytes + EXCLUDED.storage_bytes,
             api_call_count = usage_monthly.api_call_count + EXCLUDED.api_call_count,
             updated_at = GREATEST(usage_monthly.updated_at, EXCLUDED.updated_at)`,
          [
            rows.map((r) => r.k[0]),
            rows.map((r) => r.k[1]),
            rows.map((r) => r.v.submitted),
            rows.map((r) => r.v.completed),
            rows.map((r) => r.v.failed),
            rows.map((r) => r.v.bytes),
            rows.map((r) => r.v.apiCalls),
            rows.map((r) => r.v.updatedAt),
          ],
        );
        monthly.clear();
      }
      if (daily.size > 0) {
        const rows = [...daily.entries()].map(([k, v]) => ({ k: k.split('|'), v }));
        await q.query(
          `INSERT INTO usage_daily (tenant_id, day, captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count)
           SELECT * FROM unnest($1::text[], $2::date[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
           ON CONFLICT (tenant_id, day) DO UPDATE SET
             captures_submitted = usage_daily.captures_submitted + EXCLUDED.captures_submitted,
             captures_completed = usage_daily.captures_completed + EXCLUDED.captures_completed,
             captures_failed = usage_daily.captures_failed + EXCLUDED.captures_failed,
             storage_bytes = usage_daily.storage_bytes + EXCLUDED.storage_bytes,
             api_call_count = usage_daily.api_call_count + EXCLUDED.api_call_count`,
          [
            rows.map((r) => r.k[0]),
            rows.map((r) => r.k[1]),
            rows.map((r) => r.v.submitted),
            rows.map((r) => r.v.completed),
            rows.map((r) => r.v.failed),
            rows.map((r) => r.v.bytes),
            rows.map((r) => r.v.apiCalls),
          ],
        );
        daily.clear();
      }
    },
  };
}

// ---- pure fold (usage_monthly: what the audit compares) -------------------------------------------------

export interface ExpectedUsage {
  capturesSubmitted: number;
  capturesCompleted: number;
  capturesFailed: number;
  storageBytes: number;
  apiCalls: number;
}

export function createUsageFold() {
  const usage = new Map<string, { value: ExpectedUsage; ref: EventRef }>();
  const bump = (ref: EventRef, d: { period: string; delta: Partial<UsageDelta> }) => {
    const u = usage.get(d.period) ?? { value: { capturesSubmitted: 0, capturesCompleted: 0, capturesFailed: 0, storageBytes: 0, apiCalls: 0 }, ref };
    u.value.capturesSubmitted += d.delta.submitted ?? 0;
    u.value.capturesCompleted += d.delta.completed ?? 0;
    u.value.capturesFailed += d.delta.failed ?? 0;
    u.value.storageBytes += d.delta.bytes ?? 0;
    u.value.apiCalls += d.delta.apiCalls ?? 0;
    u.ref = ref;
    usage.set(d.period, u);
  };
  return {
    usage,
    apply(stored: StoredEvent, ref: EventRef, settled: SettledCapture | null): void {
      const d = deltaOf(stored.event as TenantEnvelope);
      if (d) bump(ref, d);
      if (settled) bump(ref, settledDelta(settled));
    },
  };
}
export type UsageFold = ReturnType<typeof createUsageFold>;

// ---- queries --------------------------------------------------------------------------------------------

export async function findMonthlyUsage(q: Sql, tenantId: string, period: string): Promise<UsageRow | null> {
  return (await q.query<UsageRow>('SELECT * FROM usage_monthly WHERE tenant_id = $1 AND period = $2', [tenantId, period])).rows[0] ?? null;
}

export interface TenantUsageRow {
  tenant_id: string;
  tier: Tier | null;
  captures_override: number | null;
  storage_override: number | null;
  captures_submitted: number;
  captures_completed: number;
  captures_failed: number;
  storage_bytes: number;
  api_call_count: number;
}

/** Every tenant (or one) with its usage in `period`; zeros for a tenant with no activity then. */
export async function readUsageReport(q: Sql, period: string, tenantId: string | null): Promise<TenantUsageRow[]> {
  const r = await q.query<TenantUsageRow>(
    `SELECT t.tenant_id, t.tier, t.captures_override, t.storage_override,
            COALESCE(u.captures_submitted, 0) AS captures_submitted, COALESCE(u.captures_completed, 0) AS captures_completed,
            COALESCE(u.captures_failed, 0) AS captures_failed, COALESCE(u.storage_bytes, 0) AS storage_bytes,
            COALESCE(u.api_call_count, 0) AS api_call_count
       FROM tenants t LEFT JOIN usage_monthly u ON u.tenant_id = t.tenant_id AND u.period = $1
      WHERE $2::text IS NULL OR t.tenant_id = $2
      ORDER BY t.tenant_id`,
    [period, tenantId],
  );
  return r.rows;
}

export type AuditUsageRow = Pick<UsageRow, 'period' | 'captures_submitted' | 'captures_completed' | 'captures_failed' | 'storage_bytes' | 'api_call_count'>;

export async function readUsageForAudit(q: Sql, tenantId: string): Promise<AuditUsageRow[]> {
  return (
    await q.query<AuditUsageRow>(
      'SELECT period, captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count FROM usage_monthly WHERE tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

export function compareUsage(fold: UsageFold, rows: AuditUsageRow[]): TableComparison {
  return {
    table: 'usage_monthly',
    expected: new Map(
      [...fold.usage].map(([period, u]): [string, ExpectedRow] => [
        period,
        {
          row: {
            captures_submitted: u.value.capturesSubmitted,
            captures_completed: u.value.capturesCompleted,
            captures_failed: u.value.capturesFailed,
            storage_bytes: u.value.storageBytes,
            api_call_count: u.value.apiCalls,
          },
          ref: u.ref,
        },
      ]),
    ),
    actual: new Map(rows.map(({ period, ...counters }) => [period, counters])),
  };
}
