import type { Scope } from '../../src/domain/events.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import { type EventRef, type ExpectedRow, instant, type Sql, type TableComparison, type TenantEnvelope, type TenantEventType } from './read-model.js';

/** `api_keys`: tenant API keys by SHA-256 (never the key itself), with who created them and when revoked. */

export const KEYS_HANDLES: readonly TenantEventType[] = ['key.created', 'key.revoked'];

export interface KeyRow {
  key_hash: string;
  tenant_id: string;
  scopes: Scope[];
  name: string;
  created_at: Date;
  created_by: string;
  revoked_at: Date | null;
}

// ---- batch writer (rare events: one statement each, in order) ------------------------------------------

export function createKeysWriter(q: Sql) {
  return {
    async apply(stored: StoredEvent): Promise<void> {
      const t = stored.event as TenantEnvelope;
      if (t.type === 'key.created') {
        await q.query(
          `INSERT INTO api_keys (key_hash, tenant_id, scopes, name, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (key_hash) DO NOTHING`,
          [t.data.keyHash, t.tenantId, t.data.scopes, t.data.name, t.data.createdAt, t.causedBy.kind],
        );
      } else if (t.type === 'key.revoked') {
        await q.query('UPDATE api_keys SET revoked_at = $2 WHERE key_hash = $1 AND revoked_at IS NULL', [t.data.keyHash, t.data.revokedAt]);
      }
    },
  };
}

// ---- pure fold ------------------------------------------------------------------------------------------

export interface ExpectedKey {
  scopes: Scope[];
  name: string;
  created_at: string | null;
  created_by: string;
  revoked_at: string | null;
}

export function createKeysFold() {
  const keys = new Map<string, { value: ExpectedKey; ref: EventRef }>();
  return {
    keys,
    apply(stored: StoredEvent, ref: EventRef): void {
      const e = stored.event as TenantEnvelope;
      if (e.type === 'key.created') {
        if (!keys.has(e.data.keyHash)) {
          keys.set(e.data.keyHash, {
            value: { scopes: [...e.data.scopes], name: e.data.name, created_at: instant(e.data.createdAt), created_by: e.causedBy.kind, revoked_at: null },
            ref,
          });
        }
      } else if (e.type === 'key.revoked') {
        const k = keys.get(e.data.keyHash);
        if (!k) return;
        if (k.value.revoked_at === null) k.value.revoked_at = instant(e.data.revokedAt);
        k.ref = ref;
      }
    },
  };
}
export type KeysFold = ReturnType<typeof createKeysFold>;

// ---- queries --------------------------------------------------------------------------------------------

/** What request authentication needs of a key. */
export async function findKeyForAuth(q: Sql, keyHash: string): Promise<Pick<KeyRow, 'tenant_id' | 'scopes' | 'revoked_at'> | null> {
  const r = await q.query<Pick<KeyRow, 'tenant_id' | 'scopes' | 'revoked_at'>>('SELECT tenant_id, scopes, revoked_at FROM api_keys WHERE key_hash = $1', [keyHash]);
  return r.rows[0] ?? null;
}

export async function findKey(q: Sql, keyHash: string): Promise<KeyRow | null> {
  return (await q.query<KeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [keyHash])).rows[0] ?? null;
}

/** Keys of one tenant (or all), oldest first; revoked ones only when asked. */
export async function listKeys(q: Sql, f: { tenantId: string | null; includeRevoked: boolean }): Promise<KeyRow[]> {
  const r = await q.query<KeyRow>(
    `SELECT * FROM api_keys WHERE ($1::text IS NULL OR tenant_id = $1) AND ($2 OR revoked_at IS NULL)
     ORDER BY created_at, key_hash`,
    [f.tenantId, f.includeRevoked],
  );
  return r.rows;
}

export type AuditKeyRow = Pick<KeyRow, 'key_hash' | 'scopes' | 'name' | 'created_by'> & { created_at: Date | string; revoked_at: Date | string | null };

export async function readKeysForAudit(q: Sql, tenantId: string): Promise<AuditKeyRow[]> {
  return (await q.query<AuditKeyRow>('SELECT key_hash, scopes, name, created_at, created_by, revoked_at FROM api_keys WHERE tenant_id = $1', [tenantId])).rows;
}

export function compareKeys(fold: KeysFold, rows: AuditKeyRow[]): TableComparison {
  const comparable = (v: ExpectedKey) => ({ scopes: v.scopes, name: v.name, created_at: v.created_at, created_by: v.created_by, revoked_at: v.revoked_at });
  return {
    table: 'api_keys',
    expected: new Map([...fold.keys].map(([k, v]): [string, ExpectedRow] => [k, { row: comparable(v.value), ref: v.ref }])),
    actual: new Map(
      rows.map((r) => [r.key_hash, comparable({ scopes: r.scopes, name: r.name, created_at: instant(r.created_at), created_by: r.created_by, revoked_at: instant(r.revoked_at) })]),
    ),
  };
}
