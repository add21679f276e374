import type { Tier } from '../../src/domain/events.js';
import { DEFAULT_TIER } from '../../src/domain/tiers.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import { SYSTEM_TENANT } from '../../src/ledger/streams.js';
import {
  type EventRef,
  type ExpectedRow,
  auditedReadModel,
  type Sql,
  type TableComparison,
  type TenantEnvelope,
  type TenantEventType,
} from './read-model.js';

/**
 * `tenants`: one row per tenant that has an event — its head (last sequence and hash, so the audit knows how
 * far the projection got for that tenant), tier and quota overrides.
 */

const TENANTS_HANDLES: readonly TenantEventType[] = ['tenant.tier_set', 'tenant.quota_overrides_set'];

export interface TenantRow {
  tenant_id: string;
  tier: Tier;
  captures_override: number | null;
  storage_override: number | null;
  config_updated_at: Date | null;
  created_at: Date;
  updated_at: Date;
  last_seq: number;
  last_hash: string;
}

// ---- batch writer ---------------------------------------------------------------------------------------

function createTenantsWriter(q: Sql) {
  return {
    /** Every tenant of the batch gets its row before any event: created at its first event, updated to its last. */
    async begin(events: StoredEvent[]): Promise<void> {
      const tenants = new Map<string, { first: string; last: string; seq: number; hash: string }>();
      for (const { seq, event } of events) {
        if (event.tenantId === SYSTEM_TENANT) continue;
        const t = tenants.get(event.tenantId);
        if (t) Object.assign(t, { last: event.occurredAt, seq, hash: event.hash });
        else tenants.set(event.tenantId, { first: event.occurredAt, last: event.occurredAt, seq, hash: event.hash });
      }
      if (tenants.size === 0) return;
      const rows = [...tenants.entries()];
      await q.query(
        `INSERT INTO tenants (tenant_id, created_at, updated_at, last_seq, last_hash)
         SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::bigint[], $5::text[])
         ON CONFLICT (tenant_id) DO UPDATE SET updated_at = EXCLUDED.updated_at, last_seq = EXCLUDED.last_seq, last_hash = EXCLUDED.last_hash`,
        [
          rows.map(([id]) => id),
          rows.map(([, t]) => t.first),
          rows.map(([, t]) => t.last),
          rows.map(([, t]) => t.seq),
          rows.map(([, t]) => t.hash),
        ],
      );
    },

    async apply(stored: StoredEvent): Promise<void> {
      const t = stored.event as TenantEnvelope;
      if (t.type === 'tenant.tier_set') {
        await q.query('UPDATE tenants SET tier = $2, config_updated_at = $3 WHERE tenant_id = $1', [
          t.tenantId,
          t.data.tier,
          t.occurredAt,
        ]);
      } else if (t.type === 'tenant.quota_overrides_set') {
        await q.query(
          'UPDATE tenants SET captures_override = $2, storage_override = $3, config_updated_at = $4 WHERE tenant_id = $1',
          [t.tenantId, t.data.capturesPerMonth, t.data.storageBytes, t.occurredAt],
        );
      }
    },
  };
}

// ---- pure fold ------------------------------------------------------------------------------------------

export interface TenantsFold {
  apply(stored: StoredEvent, ref: EventRef): void;
  /** The tenant's head: its last event, with that event's hash (null before any event). */
  head(): (EventRef & { hash: string }) | null;
  expected(): ExpectedRow | null;
}

function createTenantsFold(): TenantsFold {
  let head: (EventRef & { hash: string }) | null = null;
  let tier: { value: Tier; ref: EventRef | null } = { value: DEFAULT_TIER, ref: null };
  let overrides: { captures: number | null; storage: number | null; ref: EventRef | null } = {
    captures: null,
    storage: null,
    ref: null,
  };
  return {
    apply(stored, ref) {
      const e = stored.event as TenantEnvelope;
      head = { ...ref, hash: e.hash };
      if (e.type === 'tenant.tier_set') tier = { value: e.data.tier, ref };
      else if (e.type === 'tenant.quota_overrides_set')
        overrides = { captures: e.data.capturesPerMonth, storage: e.data.storageBytes, ref };
    },
    head: () => head,
    expected() {
      if (!head) return null;
      return {
        row: {
          tier: tier.value,
          captures_override: overrides.captures,
          storage_override: overrides.storage,
          last_hash: head.hash,
        },
        ref: head,
        fieldRefs: {
          tier: tier.ref ?? head,
          captures_override: overrides.ref ?? head,
          storage_override: overrides.ref ?? head,
        },
      };
    },
  };
}

// ---- queries --------------------------------------------------------------------------------------------

export async function findTenant(q: Sql, tenantId: string): Promise<TenantRow | null> {
  return (await q.query<TenantRow>('SELECT * FROM tenants WHERE tenant_id = $1', [tenantId])).rows[0] ?? null;
}

export type AuditTenantRow = Pick<
  TenantRow,
  'tier' | 'captures_override' | 'storage_override' | 'last_hash' | 'last_seq'
>;

export async function readTenantForAudit(q: Sql, tenantId: string): Promise<AuditTenantRow | null> {
  const r = await q.query<AuditTenantRow>(
    'SELECT tier, captures_override, storage_override, last_hash, last_seq FROM tenants WHERE tenant_id = $1',
    [tenantId],
  );
  return r.rows[0] ?? null;
}

export function compareTenant(tenantId: string, fold: TenantsFold, row: AuditTenantRow | null): TableComparison {
  const expected = fold.expected();
  return {
    table: 'tenants',
    expected: new Map(expected ? [[tenantId, expected]] : []),
    actual: new Map(
      row
        ? [
            [
              tenantId,
              {
                tier: row.tier,
                captures_override: row.captures_override,
                storage_override: row.storage_override,
                last_hash: row.last_hash,
              },
            ],
          ]
        : [],
    ),
  };
}

// ---- the read model ---------------------------------------------------------------------------------------

export const tenantsReadModel = auditedReadModel({
  name: 'tenants',
  tables: ['tenants'],
  handles: TENANTS_HANDLES,
  writer: createTenantsWriter,
  fold: createTenantsFold,
  audit: { read: readTenantForAudit, compare: (fold, row, actor) => [compareTenant(actor.tenantId, fold, row)] },
});
