import type pg from 'pg';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import { readModel, type Sql, type TenantEnvelope, type TenantEventType } from './read-model.js';

/**
 * `webhook_deliveries` (one row per attempt, kept once by its (deliveryId, attempt) key when a crash records
 * it twice) and `webhook_dead_letters` (deliveries given up). Not compared by the audit: they record what the
 * dispatcher did, not tenant state, and the analyst view v_webhook_delivery_outcomes reads them.
 */

const WEBHOOK_DELIVERIES_HANDLES: readonly TenantEventType[] = [
  'webhook.delivery_attempted',
  'webhook.delivery_dead_lettered',
];

export interface DeliveryAttemptRow {
  delivery_id: string;
  attempt: number;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  outcome: 'delivered' | 'failed';
  http_status: number | null;
  detail: string | null;
  latency_ms: number | null;
  attempted_at: Date;
  next_attempt_at: Date | null;
}

export interface DeadLetterRow {
  delivery_id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  reason: string;
  dead_lettered_at: Date;
}

// ---- batch writer (one statement each, in order) --------------------------------------------------------

function createWebhookDeliveriesWriter(q: Sql) {
  return {
    async apply(stored: StoredEvent): Promise<void> {
      const t = stored.event as TenantEnvelope;
      if (t.type === 'webhook.delivery_attempted') {
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
      } else if (t.type === 'webhook.delivery_dead_lettered') {
        await q.query(
          `INSERT INTO webhook_dead_letters (delivery_id, tenant_id, webhook_id, event_id, event_type, attempts, reason, dead_lettered_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
          [
            t.data.deliveryId,
            t.tenantId,
            t.data.webhookId,
            t.data.eventId,
            t.data.eventType,
            t.data.attempts,
            t.data.reason,
            t.occurredAt,
          ],
        );
      }
    },
  };
}

// ---- queries --------------------------------------------------------------------------------------------

/** Already delivered or dead-lettered (a redelivery after a crash between recording and acking). */
/** Which of `deliveryIds` are finished — delivered, or dead-lettered — in one query. */
export async function finishedDeliveries(q: Sql, deliveryIds: readonly string[]): Promise<Set<string>> {
  if (deliveryIds.length === 0) return new Set();
  const r = await q.query<{ delivery_id: string }>(
    `SELECT delivery_id FROM webhook_deliveries WHERE delivery_id = ANY($1) AND outcome = 'delivered'
     UNION SELECT delivery_id FROM webhook_dead_letters WHERE delivery_id = ANY($1)`,
    [deliveryIds],
  );
  return new Set(r.rows.map((row) => row.delivery_id));
}

export async function isDeliveryFinished(q: Sql, deliveryId: string): Promise<boolean> {
  return (await finishedDeliveries(q, [deliveryId])).has(deliveryId);
}

/** A webhook's latest attempts, newest first. */
export async function listDeliveryAttempts(q: Sql, webhookId: string, limit: number): Promise<DeliveryAttemptRow[]> {
  return (
    await q.query<DeliveryAttemptRow>(
      `SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY attempted_at DESC, attempt DESC, delivery_id LIMIT $2`,
      [webhookId, limit],
    )
  ).rows;
}

/** A webhook's latest dead letters, newest first. */
export async function listDeadLetters(q: Sql, webhookId: string, limit: number): Promise<DeadLetterRow[]> {
  return (
    await q.query<DeadLetterRow>(
      `SELECT * FROM webhook_dead_letters WHERE webhook_id = $1 ORDER BY dead_lettered_at DESC, delivery_id LIMIT $2`,
      [webhookId, limit],
    )
  ).rows;
}

/**
 * A webhook's latest attempts and dead letters, read in one snapshot of the projection. A dead letter follows
 * its delivery's attempts in the log and the projector commits in log order, so a dead letter read here comes
 * with the attempts recorded before it (two separate reads could see a later commit in the second only).
 */
export async function readDeliveryLog(
  pool: pg.Pool,
  webhookId: string,
  limit: number,
): Promise<{ attempts: DeliveryAttemptRow[]; deadLetters: DeadLetterRow[] }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const attempts = await listDeliveryAttempts(client, webhookId, limit);
    const deadLetters = await listDeadLetters(client, webhookId, limit);
    await client.query('COMMIT');
    return { attempts, deadLetters };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Dead letters of every tenant (or one), newest first, a page at a time: `before` is the last row of the page
 * before (keyset on (dead_lettered_at, delivery_id), served by webhook_dead_letters_recent / _tenant_recent).
 */
export async function listRecentDeadLetters(
  q: Sql,
  page: { tenantId: string | null; before: { at: Date; deliveryId: string } | null; limit: number },
): Promise<DeadLetterRow[]> {
  return (
    await q.query<DeadLetterRow>(
      `SELECT * FROM webhook_dead_letters
        WHERE ($1::text IS NULL OR tenant_id = $1)
          AND ($2::timestamptz IS NULL OR (dead_lettered_at, delivery_id) < ($2::timestamptz, $3::text))
        ORDER BY dead_lettered_at DESC, delivery_id DESC LIMIT $4`,
      [page.tenantId, page.before?.at ?? null, page.before?.deliveryId ?? null, page.limit],
    )
  ).rows;
}

// ---- the read model (not audited: no fold) ----------------------------------------------------------------

export const webhookDeliveriesReadModel = readModel({
  name: 'webhookDeliveries',
  tables: ['webhook_deliveries', 'webhook_dead_letters'],
  handles: WEBHOOK_DELIVERIES_HANDLES,
  writer: createWebhookDeliveriesWriter,
});
