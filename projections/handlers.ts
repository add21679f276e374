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

type UsageDelta = { submitted: number; completed: number; failed: number; bytes: number; apiCalls: number };
type CompletedData = Extract<TenantEvent, { type: 'capture.completed' }>['data'];
type FailedData = Extract<TenantEvent, { type: 'capture.failed' }>['data'];
type Outcome = { tenantId: string; occurredAt: string } & (
  | { status: 'complete'; data: CompletedData }
  | { status: 'failed'; data: FailedData }
);

/**
 * The hot path of a batch — tenant rows, capture rows, capture outcomes, usage and count aggregates — is
 * collected while the batch's events are applied and written with a few set-based statements at the end
 * (`flush`), instead of several round trips per event. Everything else is applied per event, in order.
 * The deferred writes commute with the per-event ones (see `flush`), so the result equals applying the
 * events one by one.
 */
export interface BatchApplier {
  apply(stored: StoredEvent): Promise<void>;
  flush(): Promise<void>;
}

export function createBatchApplier(q: Q): BatchApplier {
  const inserts: Array<{ captureId: string; tenantId: string; url: string; period: string; createdAt: string; scheduleId: string | null; source: string }> = [];
  const outcomes = new Map<string, Outcome>(); // first outcome per capture wins, as sequential application would
  const monthly = new Map<string, UsageDelta & { updatedAt: string }>();
  const daily = new Map<string, UsageDelta>();
  const counts = new Map<string, number>();

  const bump = (tenantId: string, period: string, at: string, dayOf: string, delta: Partial<UsageDelta>) => {
    const zero = { submitted: 0, completed: 0, failed: 0, bytes: 0, apiCalls: 0 };
    const m = monthly.get(`${tenantId}|${period}`) ?? { ...zero, updatedAt: at };
    const d = daily.get(`${tenantId}|${dayOf}`) ?? { ...zero };
    for (const k of Object.keys(zero) as Array<keyof UsageDelta>) {
      m[k] += delta[k] ?? 0;
      d[k] += delta[k] ?? 0;
    }
    if (at > m.updatedAt) m.updatedAt = at;
    monthly.set(`${tenantId}|${period}`, m);
    daily.set(`${tenantId}|${dayOf}`, d);
  };
  const count = (tenantId: string, status: string, delta: number) => counts.set(`${tenantId}|${status}`, (counts.get(`${tenantId}|${status}`) ?? 0) + delta);

  async function flush(): Promise<void> {
    if (inserts.length > 0) {
      const r = await q.query<{ tenant_id: string }>(
        `INSERT INTO captures (capture_id, tenant_id, url, status, period, created_at, schedule_id, source)
         SELECT u.id, u.tenant, u.url, 'pending', u.period, u.created, u.sched, u.source
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[]) AS u(id, tenant, url, period, created, sched, source)
         ON CONFLICT (capture_id) DO NOTHING RETURNING tenant_id`,
        [
          inserts.map((i) => i.captureId),
          inserts.map((i) => i.tenantId),
          inserts.map((i) => i.url),
          inserts.map((i) => i.period),
          inserts.map((i) => i.createdAt),
          inserts.map((i) => i.scheduleId),
          inserts.map((i) => i.source),
        ],
      );
      for (const row of r.rows) count(row.tenant_id, 'pending', 1);
      inserts.length = 0;
    }
    if (outcomes.size > 0) {
      const list = [...outcomes.entries()];
      const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
      const r = await q.query<{ capture_id: string; tenant_id: string; period: string; schedule_id: string | null }>(
        `UPDATE captures c SET status = u.status, completed_at = u.completed_at, failed_at = u.failed_at, render_quality = u.rq,
           render = u.render::jsonb, artifacts = u.artifacts::jsonb, bundle = u.bundle::jsonb, capture_settings = u.cs::jsonb,
           stored_bytes = u.bytes, attempts = u.attempts, error = u.error, retryable = u.retryable
         FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                     $10::bigint[], $11::int[], $12::text[], $13::boolean[])
              AS u(id, status, completed_at, failed_at, rq, render, artifacts, bundle, cs, bytes, attempts, error, retryable)
         WHERE c.capture_id = u.id AND c.status = 'pending'
         RETURNING c.capture_id, c.tenant_id, c.period, c.schedule_id`,
        [
          list.map(([id]) => id),
          list.map(([, o]) => o.status),
          list.map(([, o]) => (o.status === 'complete' ? o.data.completedAt : null)),
          list.map(([, o]) => (o.status === 'failed' ? o.data.failedAt : null)),
          list.map(([, o]) => (o.status === 'complete' ? o.data.renderQuality : null)),
          list.map(([, o]) => (o.status === 'complete' ? json(o.data.render) : null)),
          list.map(([, o]) => (o.status === 'complete' ? json(o.data.artifacts) : null)),
          list.map(([, o]) => (o.status === 'complete' ? json(o.data.bundle) : null)),
          list.map(([, o]) => (o.status === 'complete' ? json(o.data.captureSettings) : null)),
          list.map(([, o]) => (o.status === 'complete' ? o.data.storedBytes : null)),
          list.map(([, o]) => o.data.attempts),
          list.map(([, o]) => (o.status === 'failed' ? o.data.error : null)),
          list.map(([, o]) => (o.status === 'failed' ? o.data.retryable : null)),
        ],
      );
      for (const hit of r.rows) {
        const o = outcomes.get(hit.capture_id)!;
        count(hit.tenant_id, 'pending', -1);
        count(hit.tenant_id, o.status, 1);
        if (o.status === 'complete') bump(hit.tenant_id, hit.period, o.occurredAt, day(o.data.completedAt), { completed: 1, bytes: o.data.storedBytes });
        else bump(hit.tenant_id, hit.period, o.occurredAt, day(o.data.failedAt), { failed: 1 });
        if (hit.schedule_id) {
          // Commutes with the per-event schedule writes: a later run or skip has moved last_capture_id on.
          await q.query('UPDATE schedules SET last_capture_status = $3 WHERE schedule_id = $1 AND last_capture_id = $2', [hit.schedule_id, hit.capture_id, o.status]);
        }
      }
      outcomes.clear();
    }
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
    const changed = [...counts.entries()].filter(([, n]) => n !== 0);
    if (changed.length > 0) {
      await q.query(
        `INSERT INTO capture_counts (tenant_id, status, n)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
         ON CONFLICT (tenant_id, status) DO UPDATE SET n = capture_counts.n + EXCLUDED.n`,
        [changed.map(([k]) => k.split('|')[0]), changed.map(([k]) => k.split('|')[1]), changed.map(([, n]) => n)],
      );
    }
    counts.clear();
  }

  return {
    flush,
    async apply(stored) {
      const e = stored.event;
      if (e.tenantId === SYSTEM_TENANT) return applySystemEvent(q, e);
      await applyTenantEvent(q, stored, {
        insertCaptures: (rows) => void inserts.push(...rows),
        outcome: (o) => {
          if (!outcomes.has(o.data.captureId)) outcomes.set(o.data.captureId, o);
        },
        bump,
      });
    },
  };
}

/** Apply a batch of events in order (tenant rows first, set-based writes last). */
export async function applyEvents(q: Q, events: StoredEvent[]): Promise<void> {
  await upsertTenants(q, events);
  const applier = createBatchApplier(q);
  for (const e of events) await applier.apply(e);
  await applier.flush();
}

/** One event on its own. */
export const applyEvent = (q: Q, stored: StoredEvent): Promise<void> => applyEvents(q, [stored]);

/** Every tenant of the batch gets its row before any event: created at its first event, updated to its last. */
async function upsertTenants(q: Q, events: StoredEvent[]): Promise<void> {
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
    [rows.map(([id]) => id), rows.map(([, t]) => t.first), rows.map(([, t]) => t.last), rows.map(([, t]) => t.seq), rows.map(([, t]) => t.hash)],
  );
}

interface Deferred {
  insertCaptures(rows: Array<{ captureId: string; tenantId: string; url: string; period: string; createdAt: string; scheduleId: string | null; source: string }>): void;
  outcome(o: Outcome): void;
  bump(tenantId: string, period: string, at: string, dayOf: string, delta: Partial<UsageDelta>): void;
}

async function applyTenantEvent(q: Q, stored: StoredEvent, deferred: Deferred): Promise<void> {
  const t = stored.event as EventEnvelope<TenantEvent>;
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
      deferred.insertCaptures(
        t.data.captures.map((c) => ({
          captureId: c.captureId,
          tenantId: t.tenantId,
          url: c.url,
          period: t.data.period,
          createdAt: t.occurredAt,
          scheduleId: t.data.scheduleId ?? null,
          source: t.data.source,
        })),
      );
      deferred.bump(t.tenantId, t.data.period, t.occurredAt, day(t.occurredAt), { submitted: t.data.captures.length });
      if (t.data.scheduleId) {
        await q.query(
          `UPDATE schedules SET last_run_at = $2, last_capture_id = $3, last_capture_status = 'pending' WHERE schedule_id = $1`,
          [t.data.scheduleId, t.data.fireTime ?? t.occurredAt, t.data.captures[0]?.captureId ?? null],
        );
      }
      break;
    }
    case 'capture.completed':
      deferred.outcome({ tenantId: t.tenantId, occurredAt: t.occurredAt, status: 'complete', data: t.data });
      break;
    case 'capture.failed':
      deferred.outcome({ tenantId: t.tenantId, occurredAt: t.occurredAt, status: 'failed', data: t.data });
      break;
    case 'webhook.registered':
      await q.query(
        `INSERT INTO webhooks (webhook_id, tenant_id, url, events, name, secret, sealed_secret, created_at, registered_seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (webhook_id) DO NOTHING`,
        [t.data.webhookId, t.tenantId, t.data.url, t.data.events, t.data.name, t.data.secret ?? null, t.data.sealedSecret ?? null, t.data.createdAt, stored.seq],
      );
      break;
    case 'webhook.deleted':
      // Deletion discards the secret (spec 3.3).
      await q.query('UPDATE webhooks SET deleted_at = $2, secret = NULL, sealed_secret = NULL, deleted_seq = $3 WHERE webhook_id = $1 AND deleted_at IS NULL', [
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
        `INSERT INTO schedules (schedule_id, tenant_id, url, name, cron, options, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [t.data.scheduleId, t.tenantId, t.data.url, t.data.name, t.data.cron, t.data.options ? JSON.stringify(t.data.options) : null, t.data.createdAt],
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
      deferred.bump(t.tenantId, t.data.period, t.occurredAt, day(t.occurredAt), { apiCalls: t.data.count });
      break;
  }
}

async function applySystemEvent(q: Q, e: EventEnvelope): Promise<void> {
  if (e.type === 'tsa.certificate_published') {
    await q.query(
      'INSERT INTO tsa_certificates (fingerprint, ca_cert_pem, published_at) VALUES ($1, $2, $3) ON CONFLICT (fingerprint) DO NOTHING',
      [e.data.fingerprint, e.data.caCertPem, e.data.publishedAt],
    );
    return;
  }
  if (e.type !== 'signing.key_rotated') return;
  await q.query('UPDATE signing_keys SET is_current = false WHERE is_current');
  await q.query(
    `INSERT INTO signing_keys (key_id, public_key, archived_at, is_current) VALUES ($1, $2, $3, true)
     ON CONFLICT (key_id) DO UPDATE SET is_current = true`,
    [e.data.keyId, e.data.publicKey, e.data.rotatedAt],
  );
}
