import type pg from 'pg';
import type { TenantEvent } from '../src/domain/events.js';
import type { EventEnvelope } from '../src/ledger/envelope.js';
import type { StoredEvent } from '../src/ledger/event-store.js';
import { SYSTEM_TENANT } from '../src/ledger/streams.js';

/**
 * Event → table handlers. Deterministic: every value comes from the event, never from the clock, so a
 * rebuild from sequence 1 yields the same rows as the live projection.
 */

type Q = Pick<pg.PoolClient, 'query'>;

const day = (iso: string) => iso.slice(0, 10);

async function bumpUsage(
  q: Q,
  tenantId: string,
  period: string,
  at: string,
  delta: { submitted?: number; completed?: number; failed?: number; bytes?: number; apiCalls?: number },
  dayOf: string,
): Promise<void> {
  const values = [delta.submitted ?? 0, delta.completed ?? 0, delta.failed ?? 0, delta.bytes ?? 0, delta.apiCalls ?? 0];
  await q.query(
    `INSERT INTO usage_monthly (tenant_id, period, captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (tenant_id, period) DO UPDATE SET
       captures_submitted = usage_monthly.captures_submitted + EXCLUDED.captures_submitted,
       captures_completed = usage_monthly.captures_completed + EXCLUDED.captures_completed,
       captures_failed = usage_monthly.captures_failed + EXCLUDED.captures_failed,
       storage_bytes = usage_monthly.storage_bytes + EXCLUDED.storage_bytes,
       api_call_count = usage_monthly.api_call_count + EXCLUDED.api_call_count,
       updated_at = GREATEST(usage_monthly.updated_at, EXCLUDED.updated_at)`,
    [tenantId, period, ...values, at],
  );
  await q.query(
    `INSERT INTO usage_daily (tenant_id, day, captures_submitted, captures_completed, captures_failed, storage_bytes, api_call_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (tenant_id, day) DO UPDATE SET
       captures_submitted = usage_daily.captures_submitted + EXCLUDED.captures_submitted,
       captures_completed = usage_daily.captures_completed + EXCLUDED.captures_completed,
       captures_failed = usage_daily.captures_failed + EXCLUDED.captures_failed,
       storage_bytes = usage_daily.storage_bytes + EXCLUDED.storage_bytes,
       api_call_count = usage_daily.api_call_count + EXCLUDED.api_call_count`,
    [tenantId, dayOf, ...values],
  );
}

async function countCaptures(q: Q, tenantId: string, status: string, delta: number): Promise<void> {
  await q.query(
    `INSERT INTO capture_counts (tenant_id, status, n) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id, status) DO UPDATE SET n = capture_counts.n + EXCLUDED.n`,
    [tenantId, status, delta],
  );
}

export async function applyEvent(q: Q, stored: StoredEvent): Promise<void> {
  const e = stored.event;
  if (e.tenantId === SYSTEM_TENANT) return applySystemEvent(q, e);
  const t = e as EventEnvelope<TenantEvent>;
  await q.query(
    `INSERT INTO tenants (tenant_id, created_at, updated_at, last_seq, last_hash) VALUES ($1, $2, $2, $3, $4)
     ON CONFLICT (tenant_id) DO UPDATE SET updated_at = EXCLUDED.updated_at, last_seq = EXCLUDED.last_seq, last_hash = EXCLUDED.last_hash`,
    [t.tenantId, t.occurredAt, stored.seq, t.hash],
  );
  switch (t.type) {
    case 'key.created':
      await q.query(
        `INSERT INTO api_keys (key_hash, tenant_id, scopes, name, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (key_hash) DO NOTHING`,
        [t.data.keyHash, t.tenantId, t.data.scopes, t.data.name, t.data.createdAt, t.causedBy.kind === 'admin' ? 'admin' : t.causedBy.kind],
      );
      break;
    case 'key.revoked':
      await q.query('UPDATE api_keys SET revoked_at = $2 WHERE key_hash = $1 AND revoked_at IS NULL', [t.data.keyHash, t.data.revokedAt]);
      break;
    case 'tenant.tier_set':
      await q.query('UPDATE tenants SET tier = $2, config_updated_at = $3 WHERE tenant_id = $1', [t.tenantId, t.data.tier, t.occurredAt]);
      break;
    case 'tenant.quota_overrides_set':
      await q.query('UPDATE tenants SET captures_override = $2, storage_override = $3, config_updated_at = $4 WHERE tenant_id = $1', [
        t.tenantId,
        t.data.capturesPerMonth,
        t.data.storageBytes,
        t.occurredAt,
      ]);
      break;
    case 'capture.submitted': {
      let inserted = 0;
      for (const c of t.data.captures) {
        const r = await q.query(
          `INSERT INTO captures (capture_id, tenant_id, url, status, period, created_at, schedule_id, source)
           VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7) ON CONFLICT (capture_id) DO NOTHING`,
          [c.captureId, t.tenantId, c.url, t.data.period, t.occurredAt, t.data.scheduleId ?? null, t.data.source],
        );
        inserted += r.rowCount ?? 0;
      }
      if (inserted > 0) await countCaptures(q, t.tenantId, 'pending', inserted);
      await bumpUsage(q, t.tenantId, t.data.period, t.occurredAt, { submitted: t.data.captures.length }, day(t.occurredAt));
      if (t.data.scheduleId) {
        await q.query(
          `UPDATE schedules SET last_run_at = $2, last_capture_id = $3, last_capture_status = 'pending' WHERE schedule_id = $1`,
          [t.data.scheduleId, t.data.fireTime ?? t.occurredAt, t.data.captures[0]?.captureId ?? null],
        );
      }
      break;
    }
    case 'capture.completed': {
      const d = t.data;
      const row = await q.query<{ period: string; schedule_id: string | null }>(
        `UPDATE captures SET status = 'complete', completed_at = $2, render_quality = $3, render = $4, artifacts = $5, bundle = $6,
           capture_settings = $7, stored_bytes = $8, attempts = $9
         WHERE capture_id = $1 AND status = 'pending' RETURNING period, schedule_id`,
        [d.captureId, d.completedAt, d.renderQuality, d.render, d.artifacts, d.bundle ?? null, d.captureSettings ?? null, d.storedBytes, d.attempts],
      );
      const hit = row.rows[0];
      if (hit) {
        await countCaptures(q, t.tenantId, 'pending', -1);
        await countCaptures(q, t.tenantId, 'complete', 1);
        await bumpUsage(q, t.tenantId, hit.period, t.occurredAt, { completed: 1, bytes: d.storedBytes }, day(d.completedAt));
        if (hit.schedule_id) {
          await q.query(`UPDATE schedules SET last_capture_status = 'complete' WHERE schedule_id = $1 AND last_capture_id = $2`, [hit.schedule_id, d.captureId]);
        }
      }
      break;
    }
    case 'capture.failed': {
      const d = t.data;
      const row = await q.query<{ period: string; schedule_id: string | null }>(
        `UPDATE captures SET status = 'failed', failed_at = $2, error = $3, retryable = $4, attempts = $5
         WHERE capture_id = $1 AND status = 'pending' RETURNING period, schedule_id`,
        [d.captureId, d.failedAt, d.error, d.retryable, d.attempts],
      );
      const hit = row.rows[0];
      if (hit) {
        await countCaptures(q, t.tenantId, 'pending', -1);
        await countCaptures(q, t.tenantId, 'failed', 1);
        await bumpUsage(q, t.tenantId, hit.period, t.occurredAt, { failed: 1 }, day(d.failedAt));
        if (hit.schedule_id) {
          await q.query(`UPDATE schedules SET last_capture_status = 'failed' WHERE schedule_id = $1 AND last_capture_id = $2`, [hit.schedule_id, d.captureId]);
        }
      }
      break;
    }
    case 'webhook.registered':
      await q.query(
        `INSERT INTO webhooks (webhook_id, tenant_id, url, events, name, secret, created_at, registered_seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (webhook_id) DO NOTHING`,
        [t.data.webhookId, t.tenantId, t.data.url, t.data.events, t.data.name, t.data.secret, t.data.createdAt, stored.seq],
      );
      break;
    case 'webhook.deleted':
      // Deletion discards the secret (spec 3.3).
      await q.query('UPDATE webhooks SET deleted_at = $2, secret = NULL, deleted_seq = $3 WHERE webhook_id = $1 AND deleted_at IS NULL', [
        t.data.webhookId,
        t.data.deletedAt,
        stored.seq,
      ]);
      break;
    case 'webhook.delivery_attempted':
      await q.query(
        `INSERT INTO webhook_deliveries (delivery_id, attempt, tenant_id, webhook_id, event_id, event_type, outcome, http_status, detail, latency_ms, attempted_at, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
        [
          t.data.deliveryId,
          t.data.attempt,
          t.tenantId,
          t.data.webhookId,
          t.data.eventId,
          t.data.eventType,
          t.data.outcome,
          t.data.httpStatus,
          t.data.detail ?? null,
          t.data.latencyMs,
          t.occurredAt,
          t.data.nextAttemptAt ?? null,
        ],
      );
      break;
    case 'webhook.delivery_dead_lettered':
      await q.query(
        `INSERT INTO webhook_dead_letters (delivery_id, tenant_id, webhook_id, event_id, event_type, attempts, reason, dead_lettered_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [t.data.deliveryId, t.tenantId, t.data.webhookId, t.data.eventId, t.data.eventType, t.data.attempts, t.data.reason, t.occurredAt],
      );
      break;
    case 'schedule.created':
      await q.query(
        `INSERT INTO schedules (schedule_id, tenant_id, url, name, cron, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
        [t.data.scheduleId, t.tenantId, t.data.url, t.data.name, t.data.cron, t.data.createdAt],
      );
      break;
    case 'schedule.deleted':
      await q.query('UPDATE schedules SET deleted_at = $2 WHERE schedule_id = $1', [t.data.scheduleId, t.data.deletedAt]);
      break;
    case 'schedule.skipped':
      await q.query(
        `UPDATE schedules SET last_run_at = $2, last_capture_id = NULL, last_capture_status = 'skipped_quota' WHERE schedule_id = $1`,
        [t.data.scheduleId, t.data.fireTime],
      );
      break;
    case 'usage.api_calls_recorded':
      await bumpUsage(q, t.tenantId, t.data.period, t.occurredAt, { apiCalls: t.data.count }, day(t.occurredAt));
      break;
  }
}

async function applySystemEvent(q: Q, e: EventEnvelope): Promise<void> {
  if (e.type !== 'signing.key_rotated') return;
  await q.query('UPDATE signing_keys SET is_current = false WHERE is_current');
  await q.query(
    `INSERT INTO signing_keys (key_id, public_key, archived_at, is_current) VALUES ($1, $2, $3, true)
     ON CONFLICT (key_id) DO UPDATE SET is_current = true`,
    [e.data.keyId, e.data.publicKey, e.data.rotatedAt],
  );
}
