import type { StoredEvent } from '../../src/ledger/event-store.js';
import { readModel, type Sql, type TenantEnvelope } from './read-model.js';

/**
 * `tenant_retention` and `legal_holds`: a tenant's default retention and each capture's legal hold,
 * as the last event about it says. The storage holds the lock itself (S3 Object Lock); these rows let the
 * worker find a tenant's retention and the operator API show who placed or lifted a hold, and why.
 */

const RETENTION_HANDLES = ['tenant.retention_set', 'capture.legal_hold_placed', 'capture.legal_hold_lifted'] as const;

export interface LegalHoldRow {
  capture_id: string;
  tenant_id: string;
  active: boolean;
  changed_by: string;
  reason: string;
  changed_at: Date;
}

function createRetentionWriter(q: Sql) {
  return {
    async apply(stored: StoredEvent): Promise<void> {
      const e = stored.event as TenantEnvelope;
      if (e.type === 'tenant.retention_set') {
        await q.query(
          `INSERT INTO tenant_retention (tenant_id, days, set_by, reason, set_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (tenant_id) DO UPDATE SET days = $2, set_by = $3, reason = $4, set_at = $5`,
          [e.tenantId, e.data.days, e.data.by, e.data.reason, e.data.at],
        );
      } else if (e.type === 'capture.legal_hold_placed' || e.type === 'capture.legal_hold_lifted') {
        await q.query(
          `INSERT INTO legal_holds (capture_id, tenant_id, active, changed_by, reason, changed_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (capture_id) DO UPDATE SET active = $3, changed_by = $4, reason = $5, changed_at = $6`,
          [e.data.captureId, e.tenantId, e.type === 'capture.legal_hold_placed', e.data.by, e.data.reason, e.data.at],
        );
      }
    },
  };
}

/** The tenant's own retention in days: a number, null (the deployment default), or undefined when never set. */
export async function findTenantRetentionDays(q: Sql, tenantId: string): Promise<number | null | undefined> {
  const r = await q.query<{ days: number | null }>('SELECT days FROM tenant_retention WHERE tenant_id = $1', [
    tenantId,
  ]);
  return r.rows.length ? r.rows[0]!.days : undefined;
}

export async function findLegalHold(q: Sql, captureId: string): Promise<LegalHoldRow | null> {
  return (await q.query<LegalHoldRow>('SELECT * FROM legal_holds WHERE capture_id = $1', [captureId])).rows[0] ?? null;
}

/** The captures under a legal hold now. */
export async function findActiveLegalHolds(q: Sql): Promise<string[]> {
  const r = await q.query<{ capture_id: string }>(
    'SELECT capture_id FROM legal_holds WHERE active ORDER BY capture_id',
  );
  return r.rows.map((row) => row.capture_id);
}

export const retentionReadModel = readModel({
  name: 'retention',
  tables: ['tenant_retention', 'legal_holds'],
  handles: RETENTION_HANDLES,
  writer: createRetentionWriter,
});

/** Whether any tenant has a retention of its own (a storage that cannot lock objects must then not be used). */
export async function anyTenantRetention(q: Sql): Promise<boolean> {
  return (await q.query('SELECT 1 FROM tenant_retention WHERE days > 0 LIMIT 1')).rows.length > 0;
}
