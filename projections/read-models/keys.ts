import type { Scope } from '../../src/domain/events.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import {
  type EventRef,
  instant,
  auditedReadModel,
  type Sql,
  type TableComparison,
  type TenantEnvelope,
  type TenantEventType,
} from './read-model.js';
import {
  compareFoldedRows,
  type FoldedRows,
  foldChange,
  type InsertChange,
  tableSpec,
  type UpdateChange,
  writeChange,
} from './row-changes.js';

/** `api_keys`: tenant API keys by SHA-256 (never the key itself), with who created them and when revoked. */

const KEYS_HANDLES: readonly TenantEventType[] = ['key.created', 'key.revoked'];

export interface KeyRow {
  key_hash: string;
  tenant_id: string;
  scopes: Scope[];
  name: string;
  created_at: Date;
  created_by: string;
  revoked_at: Date | null;
}

/** An `api_keys` row as the events give it (timestamps as ISO text). */
export type KeyValues = {
  key_hash: string;
  tenant_id: string;
  scopes: Scope[];
  name: string;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
};

export const API_KEYS = tableSpec<KeyValues>({
  name: 'api_keys',
  key: ['key_hash'],
  columns: {
    key_hash: 'text',
    tenant_id: 'text',
    scopes: 'text[]',
    name: 'text',
    created_at: 'timestamptz',
    created_by: 'text',
    revoked_at: 'timestamptz',
  },
});

// ---- what an event does to the rows (the one definition the writer and the fold carry out) -------------

/** A key is created once; its first revocation stands. */
export function keyChange(e: TenantEnvelope): InsertChange<KeyValues> | UpdateChange<KeyValues> | null {
  if (e.type === 'key.created') {
    return {
      op: 'insert',
      row: {
        key_hash: e.data.keyHash,
        tenant_id: e.tenantId,
        scopes: [...e.data.scopes],
        name: e.data.name,
        created_at: e.data.createdAt,
        created_by: e.causedBy.kind,
      },
    };
  }
  if (e.type === 'key.revoked')
    return {
      op: 'update',
      key: { key_hash: e.data.keyHash },
      set: { revoked_at: e.data.revokedAt },
      when: { revoked_at: null },
    };
  return null;
}

// ---- batch writer (rare events: one statement each, in order) ------------------------------------------

function createKeysWriter(q: Sql) {
  return {
    async apply(stored: StoredEvent): Promise<void> {
      const change = keyChange(stored.event as TenantEnvelope);
      if (change) await writeChange(q, API_KEYS, change);
    },
  };
}

// ---- pure fold ------------------------------------------------------------------------------------------

function createKeysFold() {
  const keys: FoldedRows<KeyValues> = new Map();
  return {
    keys,
    apply(stored: StoredEvent, ref: EventRef): void {
      const change = keyChange(stored.event as TenantEnvelope);
      if (change) foldChange(API_KEYS, keys, change, ref);
    },
  };
}
export type KeysFold = ReturnType<typeof createKeysFold>;

// ---- queries --------------------------------------------------------------------------------------------

/** What request authentication needs of a key. */
export async function findKeyForAuth(
  q: Sql,
  keyHash: string,
): Promise<Pick<KeyRow, 'tenant_id' | 'scopes' | 'revoked_at'> | null> {
  const r = await q.query<Pick<KeyRow, 'tenant_id' | 'scopes' | 'revoked_at'>>(
    'SELECT tenant_id, scopes, revoked_at FROM api_keys WHERE key_hash = $1',
    [keyHash],
  );
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

export type AuditKeyRow = Pick<KeyRow, 'key_hash' | 'scopes' | 'name' | 'created_by'> & {
  created_at: Date | string;
  revoked_at: Date | string | null;
};

export async function readKeysForAudit(q: Sql, tenantId: string): Promise<AuditKeyRow[]> {
  return (
    await q.query<AuditKeyRow>(
      'SELECT key_hash, scopes, name, created_at, created_by, revoked_at FROM api_keys WHERE tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

/** The same columns of a folded row and of a row read back. */
const comparableKey = (r: Pick<AuditKeyRow, 'scopes' | 'name' | 'created_at' | 'created_by' | 'revoked_at'>) => ({
  scopes: r.scopes,
  name: r.name,
  created_at: instant(r.created_at),
  created_by: r.created_by,
  revoked_at: instant(r.revoked_at),
});

export function compareKeys(fold: KeysFold, rows: AuditKeyRow[]): TableComparison {
  return compareFoldedRows('api_keys', fold.keys, rows, (r) => r.key_hash, comparableKey);
}

// ---- the read model ---------------------------------------------------------------------------------------

export const keysReadModel = auditedReadModel({
  name: 'keys',
  tables: [API_KEYS.name],
  handles: KEYS_HANDLES,
  changes: { event: keyChange },
  writer: createKeysWriter,
  fold: createKeysFold,
  audit: { read: readKeysForAudit, compare: (fold, rows) => [compareKeys(fold, rows)] },
});
