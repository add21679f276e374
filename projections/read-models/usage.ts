import type { Tier } from '../../src/domain/events.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import type { TenantState } from '../../src/domain/tenant/index.js';
import {
  type BatchHandoff,
  dayOf,
  type EventHandoff,
  type EventRef,
  type ExpectedRow,
  type ReadRow,
  auditedReadModel,
  type SettledCapture,
  type Sql,
  type TableComparison,
  type TenantEnvelope,
  type TenantEventType,
} from './read-model.js';
import { type AddChange, addRows, CounterDeltas, type FoldedRows, foldChange, tableSpec } from './row-changes.js';

/**
 * `usage_monthly` (per tenant and billing period, spec 8.2: an outcome counts in the month its capture was
 * submitted in) and `usage_daily` (per tenant and UTC day of the event). Counters only: what an event adds is
 * said once (`usageChanges`, `settledUsageChanges`); the writer sums a batch's additions in memory and adds
 * them with one upsert per table, the fold adds them to its rows. Outcomes count once, when they settle a pending
 * capture: the captures read model says which (SettledCapture).
 */

const USAGE_HANDLES: readonly TenantEventType[] = ['capture.submitted', 'usage.api_calls_recorded'];

const COUNTERS = [
  'captures_submitted',
  'captures_completed',
  'captures_failed',
  'storage_bytes',
  'api_call_count',
] as const;
type Counters = Pick<UsageMonthlyValues, (typeof COUNTERS)[number]>;

/** A `usage_monthly` row as the events give it. */
export type UsageMonthlyValues = {
  tenant_id: string;
  period: string;
  captures_submitted: number;
  captures_completed: number;
  captures_failed: number;
  storage_bytes: number;
  api_call_count: number;
  updated_at: string | null;
};

/** A row of `usage_monthly`. */
export type UsageRow = ReadRow<UsageMonthlyValues, 'updated_at'>;

export type UsageDailyValues = Omit<UsageMonthlyValues, 'period' | 'updated_at'> & { day: string };

const counterColumns = {
  captures_submitted: 'bigint',
  captures_completed: 'bigint',
  captures_failed: 'bigint',
  storage_bytes: 'bigint',
  api_call_count: 'bigint',
} as const;
export const USAGE_MONTHLY = tableSpec<UsageMonthlyValues>({
  name: 'usage_monthly',
  key: ['tenant_id', 'period'],
  columns: { tenant_id: 'text', period: 'text', ...counterColumns, updated_at: 'timestamptz' },
  counters: COUNTERS,
});
export const USAGE_DAILY = tableSpec<UsageDailyValues>({
  name: 'usage_daily',
  key: ['tenant_id', 'day'],
  columns: { tenant_id: 'text', day: 'date', ...counterColumns },
  counters: COUNTERS,
});

// ---- what an event does to the rows (the one definition the writer and the fold carry out) -------------

interface UsageChanges {
  monthly: AddChange<UsageMonthlyValues>;
  daily: AddChange<UsageDailyValues>;
}

/** Counts land in the billing period they belong to (spec 8.2) and in the UTC day they happened on. */
const counted = (tenantId: string, period: string, day: string, at: string, add: Partial<Counters>): UsageChanges => ({
  monthly: { op: 'add', key: { tenant_id: tenantId, period }, add, max: { updated_at: at } },
  daily: { op: 'add', key: { tenant_id: tenantId, day }, add },
});

/** What an event counts itself (outcomes count through `settledUsageChanges`). */
export function usageChanges(e: TenantEnvelope): UsageChanges | null {
  if (e.type === 'capture.submitted')
    return counted(e.tenantId, e.data.period, dayOf(e.occurredAt), e.occurredAt, {
      captures_submitted: e.data.captures.length,
    });
  if (e.type === 'usage.api_calls_recorded')
    return counted(e.tenantId, e.data.period, dayOf(e.occurredAt), e.occurredAt, { api_call_count: e.data.count });
  return null;
}

/** An outcome that settled a pending capture counts in the month the capture was submitted in, on the day it finished. */
export const settledUsageChanges = (s: SettledCapture): UsageChanges =>
  counted(
    s.tenantId,
    s.period,
    dayOf(s.at),
    s.occurredAt,
    s.status === 'complete' ? { captures_completed: 1, storage_bytes: s.storedBytes } : { captures_failed: 1 },
  );

// ---- batch writer ---------------------------------------------------------------------------------------

function createUsageWriter(q: Sql) {
  const monthly = new CounterDeltas(USAGE_MONTHLY);
  const daily = new CounterDeltas(USAGE_DAILY);
  const count = (c: UsageChanges | null) => {
    if (!c) return;
    monthly.add(c.monthly);
    daily.add(c.daily);
  };

  return {
    apply(stored: StoredEvent): void {
      count(usageChanges(stored.event as TenantEnvelope));
    },

    async flush({ settled }: BatchHandoff): Promise<void> {
      for (const s of settled) count(settledUsageChanges(s));
      await addRows(q, USAGE_MONTHLY, monthly.take());
      await addRows(q, USAGE_DAILY, daily.take());
    },
  };
}

// ---- pure fold (usage_monthly is what the audit compares) -----------------------------------------------

function createUsageFold() {
  /** usage_monthly by period. */
  const usage: FoldedRows<UsageMonthlyValues> = new Map();
  /** usage_daily by day. */
  const daily: FoldedRows<UsageDailyValues> = new Map();
  const count = (c: UsageChanges | null, ref: EventRef) => {
    if (!c) return;
    foldChange(USAGE_MONTHLY, usage, c.monthly, ref);
    foldChange(USAGE_DAILY, daily, c.daily, ref);
  };
  return {
    usage,
    daily,
    apply(stored: StoredEvent, ref: EventRef, { settled }: EventHandoff): void {
      count(usageChanges(stored.event as TenantEnvelope), ref);
      if (settled) count(settledUsageChanges(settled), ref);
    },
  };
}
export type UsageFold = ReturnType<typeof createUsageFold>;

// ---- queries --------------------------------------------------------------------------------------------

export async function findMonthlyUsage(q: Sql, tenantId: string, period: string): Promise<UsageRow | null> {
  return (
    (await q.query<UsageRow>('SELECT * FROM usage_monthly WHERE tenant_id = $1 AND period = $2', [tenantId, period]))
      .rows[0] ?? null
  );
}

export type DailyUsageRow = { day: string; captures_completed: number; captures_failed: number; storage_bytes: number };

/** A tenant's usage_daily rows for the days `from`..`to` ('YYYY-MM-DD', inclusive): a range of the primary key. */
export async function listDailyUsage(q: Sql, tenantId: string, from: string, to: string): Promise<DailyUsageRow[]> {
  const r = await q.query<DailyUsageRow>(
    `SELECT day::text AS day, captures_completed, captures_failed, storage_bytes FROM usage_daily
      WHERE tenant_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
    [tenantId, from, to],
  );
  return r.rows;
}

/** Tenants with their usage in the period `$1` (zeros for a tenant with no activity then); a WHERE follows. */
const TENANTS_WITH_USAGE = `SELECT t.tenant_id, t.tier, t.captures_override, t.storage_override,
            COALESCE(u.captures_submitted, 0) AS captures_submitted, COALESCE(u.captures_completed, 0) AS captures_completed,
            COALESCE(u.captures_failed, 0) AS captures_failed, COALESCE(u.storage_bytes, 0) AS storage_bytes,
            COALESCE(u.api_call_count, 0) AS api_call_count
       FROM tenants t LEFT JOIN usage_monthly u ON u.tenant_id = t.tenant_id AND u.period = $1`;

/**
 * A page of tenants in tenant id order after `after` (keyset: the tenants primary key), each with its usage in
 * `period` (zeros when none).
 */
export async function listTenantsWithUsage(
  q: Sql,
  period: string,
  page: { after: string | null; limit: number },
): Promise<TenantUsageRow[]> {
  const r = await q.query<TenantUsageRow>(
    `${TENANTS_WITH_USAGE}
      WHERE $2::text IS NULL OR t.tenant_id > $2
      ORDER BY t.tenant_id
      LIMIT $3`,
    [period, page.after, page.limit],
  );
  return r.rows;
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
    `${TENANTS_WITH_USAGE}
      WHERE $2::text IS NULL OR t.tenant_id = $2
      ORDER BY t.tenant_id`,
    [period, tenantId],
  );
  return r.rows;
}

export type AuditUsageRow = Pick<
  UsageRow,
  'period' | 'captures_submitted' | 'captures_completed' | 'captures_failed' | 'storage_bytes' | 'api_call_count'
>;

export async function readUsageForAudit(q: Sql, tenantId: string): Promise<AuditUsageRow[]> {
  return (
    await q.query<AuditUsageRow>(
      'SELECT period, captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count FROM usage_monthly WHERE tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

export function compareUsage(fold: UsageFold, rows: AuditUsageRow[]): TableComparison {
  const counters = (r: Counters): Counters => Object.fromEntries(COUNTERS.map((c) => [c, r[c]])) as Counters;
  return {
    table: 'usage_monthly',
    expected: new Map(
      [...fold.usage].map(([period, u]): [string, ExpectedRow] => [period, { row: counters(u.value), ref: u.ref }]),
    ),
    actual: new Map(rows.map((r) => [r.period, counters(r)])),
  };
}

/** usage_monthly, and the actor's quota view (what admission decides on) for its period. */
function compareUsageAndQuota(fold: UsageFold, rows: AuditUsageRow[], actor: TenantState): TableComparison[] {
  const usage = compareUsage(fold, rows);
  const quota = actor.usage;
  const quotaRow = rows.find((r) => r.period === quota.period);
  const ref = fold.usage.get(quota.period)?.ref ?? null;
  if (quota.period && quotaRow) {
    usage.actorChecks = [
      {
        ref,
        key: quota.period,
        field: 'captures_submitted (actor quota)',
        projection: quotaRow.captures_submitted,
        actor: quota.captures,
      },
      {
        ref,
        key: quota.period,
        field: 'storage_bytes (actor quota)',
        projection: quotaRow.storage_bytes,
        actor: quota.storageBytes,
      },
    ];
  }
  return [usage];
}

// ---- the read model ---------------------------------------------------------------------------------------

export const usageReadModel = auditedReadModel({
  name: 'usage',
  tables: [USAGE_MONTHLY.name, USAGE_DAILY.name],
  handles: USAGE_HANDLES,
  changes: { event: usageChanges, settled: settledUsageChanges },
  writer: createUsageWriter,
  fold: createUsageFold,
  audit: { read: readUsageForAudit, compare: compareUsageAndQuota },
});
