import { createHash } from 'node:crypto';
import type { TenantEvent } from '../../domain/events.js';
import { evolveTenant, initialTenantState, type TenantState } from '../../domain/tenant/index.js';
import { checkEnvelope, type EventEnvelope } from '../../ledger/envelope.js';
import type { StoredEvent } from '../../ledger/event-store.js';

/**
 * The pure half of `audit --tenant T`: walk the tenant's events checking the hash chain, re-fold the actor's
 * state with evolveTenant, fold what the projection tables must then hold, and compare that with the rows
 * read from Postgres. Every difference names the event that last shaped the value, so the first divergence
 * points at a place in the log.
 */

export interface EventRef {
  seq: number;
  /** Place of the event in its commit (a JetStream message holds one or more events). */
  index: number;
  eventId: string;
  type: string;
  occurredAt: string;
}

export interface Divergence {
  /** The event that last shaped the value (null: no event explains a row that exists). */
  ref: EventRef | null;
  /** 'ledger' for the hash chain, else the projection table. */
  table: string;
  key: string;
  field: string;
  projection: unknown;
  log: unknown;
  message: string;
}

type Tracked<V> = { value: V; ref: EventRef };

export interface ExpectedCapture {
  url: string;
  status: 'pending' | 'complete' | 'failed';
  period: string;
  scheduleId: string | null;
  storedBytes: number | null;
  error: string | null;
  retryable: boolean | null;
}

export interface ExpectedUsage {
  capturesSubmitted: number;
  capturesCompleted: number;
  capturesFailed: number;
  storageBytes: number;
  apiCalls: number;
}

const digestOf = (value: string | null): string | null => (value === null ? null : createHash('sha256').update(value).digest('hex'));

export interface ExpectedSchedule {
  url: string;
  name: string;
  cron: string;
  deleted: boolean;
  lastRunAt: string | null;
  lastCaptureId: string | null;
  lastCaptureStatus: string | null;
}

export interface ExpectedWebhook {
  url: string;
  events: string[];
  name: string;
  deleted: boolean;
  /** As the event carries it: sealed (ciphertext), or in the clear for webhooks registered before sealing. */
  sealedSecret: string | null;
  secret: string | null;
}

/** What the log says, folded up to the projection's checkpoint. */
export interface Expected {
  state: TenantState;
  events: number;
  head: (EventRef & { hash: string }) | null;
  tierRef: EventRef | null;
  overridesRef: EventRef | null;
  keys: Map<string, Tracked<{ createdBy: string }>>;
  captures: Map<string, Tracked<ExpectedCapture>>;
  /** The event that last changed the number of captures in each status. */
  statusRefs: Map<string, EventRef>;
  usage: Map<string, Tracked<ExpectedUsage>>;
  webhooks: Map<string, Tracked<ExpectedWebhook>>;
  schedules: Map<string, Tracked<ExpectedSchedule>>;
}

export const refOf = (e: StoredEvent): EventRef => ({ seq: e.seq, index: e.index, eventId: e.event.id, type: e.event.type, occurredAt: e.event.occurredAt });

/** The hash chain of one tenant's events: a divergence per broken link (a changed event breaks exactly one). */
export function checkChain(tenantId: string, events: StoredEvent[]): Divergence[] {
  const out: Divergence[] = [];
  let prev: string | null = null;
  for (const e of events) {
    const ref = refOf(e);
    if (e.event.tenantId !== tenantId) {
      out.push({ ref, table: 'ledger', key: e.event.id, field: 'tenantId', projection: null, log: e.event.tenantId, message: `event on ${e.subject} belongs to tenant '${e.event.tenantId}', not '${tenantId}'` });
    }
    const reason = checkEnvelope(e.event, prev);
    if (reason) {
      const altered = reason.startsWith('hash');
      out.push({
        ref,
        table: 'ledger',
        key: e.event.id,
        field: altered ? 'hash' : 'prevHash',
        projection: null,
        log: e.event.hash,
        message: `hash chain broken: ${reason}${altered ? ' (the stored event was altered after it was appended)' : ' (an event before it was altered, removed or inserted)'}`,
      });
    }
    // Continue from the stored hash: one altered event shows as one divergence, not a cascade.
    prev = e.event.hash;
  }
  return out;
}

const emptyUsage = (): ExpectedUsage => ({ capturesSubmitted: 0, capturesCompleted: 0, capturesFailed: 0, storageBytes: 0, apiCalls: 0 });

/** Fold the events (already cut at the projection's checkpoint) the way projections/handlers.ts applies them. */
export function foldExpected(tenantId: string, events: StoredEvent[]): Expected {
  const x: Expected = {
    state: initialTenantState(tenantId),
    events: 0,
    head: null,
    tierRef: null,
    overridesRef: null,
    keys: new Map(),
    captures: new Map(),
    statusRefs: new Map(),
    usage: new Map(),
    webhooks: new Map(),
    schedules: new Map(),
  };
  const bump = (period: string, ref: EventRef, f: (u: ExpectedUsage) => void) => {
    const u = x.usage.get(period) ?? { value: emptyUsage(), ref };
    f(u.value);
    u.ref = ref;
    x.usage.set(period, u);
  };
  const touchSchedule = (scheduleId: string, ref: EventRef, f: (s: ExpectedSchedule) => void) => {
    const s = x.schedules.get(scheduleId);
    if (!s) return; // the projection's UPDATE finds no row either
    f(s.value);
    s.ref = ref;
  };
  for (const stored of events) {
    const e = stored.event as EventEnvelope<TenantEvent>;
    const ref = refOf(stored);
    x.state = evolveTenant(x.state, e);
    x.events++;
    x.head = { ...ref, hash: e.hash };
    switch (e.type) {
      case 'key.created':
        if (!x.keys.has(e.data.keyHash)) x.keys.set(e.data.keyHash, { value: { createdBy: e.causedBy.kind }, ref });
        break;
      case 'key.revoked': {
        const k = x.keys.get(e.data.keyHash);
        if (k) k.ref = ref;
        break;
      }
      case 'tenant.tier_set':
        x.tierRef = ref;
        break;
      case 'tenant.quota_overrides_set':
        x.overridesRef = ref;
        break;
      case 'capture.submitted':
        for (const c of e.data.captures) {
          if (x.captures.has(c.captureId)) continue;
          x.captures.set(c.captureId, {
            value: { url: c.url, status: 'pending', period: e.data.period, scheduleId: e.data.scheduleId ?? null, storedBytes: null, error: null, retryable: null },
            ref,
          });
          x.statusRefs.set('pending', ref);
        }
        bump(e.data.period, ref, (u) => (u.capturesSubmitted += e.data.captures.length));
        if (e.data.scheduleId) {
          touchSchedule(e.data.scheduleId, ref, (s) => {
            s.lastRunAt = e.data.fireTime ?? e.occurredAt;
            s.lastCaptureId = e.data.captures[0]?.captureId ?? null;
            s.lastCaptureStatus = 'pending';
          });
        }
        break;
      case 'capture.completed':
      case 'capture.failed': {
        const c = x.captures.get(e.data.captureId);
        if (!c || c.value.status !== 'pending') break;
        c.ref = ref;
        const completed = e.type === 'capture.completed';
        x.statusRefs.set('pending', ref);
        x.statusRefs.set(completed ? 'complete' : 'failed', ref);
        if (e.type === 'capture.completed') {
          c.value.status = 'complete';
          c.value.storedBytes = e.data.storedBytes;
          bump(c.value.period, ref, (u) => {
            u.capturesCompleted += 1;
            u.storageBytes += e.data.storedBytes;
          });
        } else {
          c.value.status = 'failed';
          c.value.error = e.data.error;
          c.value.retryable = e.data.retryable;
          bump(c.value.period, ref, (u) => (u.capturesFailed += 1));
        }
        if (c.value.scheduleId) {
          touchSchedule(c.value.scheduleId, ref, (s) => {
            if (s.lastCaptureId === e.data.captureId) s.lastCaptureStatus = completed ? 'complete' : 'failed';
          });
        }
        break;
      }
      case 'webhook.registered':
        if (!x.webhooks.has(e.data.webhookId)) {
          x.webhooks.set(e.data.webhookId, {
            value: { url: e.data.url, events: [...e.data.events], name: e.data.name, deleted: false, sealedSecret: e.data.sealedSecret ?? null, secret: e.data.secret ?? null },
            ref,
          });
        }
        break;
      case 'webhook.deleted': {
        const w = x.webhooks.get(e.data.webhookId);
        if (w) {
          w.value.deleted = true;
          w.ref = ref;
        }
        break;
      }
      case 'schedule.created':
        if (!x.schedules.has(e.data.scheduleId)) {
          x.schedules.set(e.data.scheduleId, {
            value: { url: e.data.url, name: e.data.name, cron: e.data.cron, deleted: false, lastRunAt: null, lastCaptureId: null, lastCaptureStatus: null },
            ref,
          });
        }
        break;
      case 'schedule.deleted':
        touchSchedule(e.data.scheduleId, ref, (s) => (s.deleted = true));
        break;
      case 'schedule.skipped':
        touchSchedule(e.data.scheduleId, ref, (s) => {
          s.lastRunAt = e.data.fireTime;
          s.lastCaptureId = null;
          s.lastCaptureStatus = 'skipped_quota';
        });
        break;
      case 'usage.api_calls_recorded':
        bump(e.data.period, ref, (u) => (u.apiCalls += e.data.count));
        break;
      case 'webhook.delivery_attempted':
      case 'webhook.delivery_dead_lettered':
        break;
    }
  }
  return x;
}

// ---- projection rows (as read from Postgres) -------------------------------------------------------

export interface ProjectionRows {
  tenant: { tier: string; captures_override: number | null; storage_override: number | null; last_hash: string; last_seq: number } | null;
  apiKeys: Array<{ key_hash: string; scopes: string[]; name: string; created_at: Date | string; created_by: string; revoked_at: Date | string | null }>;
  captures: Array<{ capture_id: string; url: string; status: string; period: string; stored_bytes: number | null; error: string | null; retryable: boolean | null }>;
  usage: Array<{
    period: string;
    captures_submitted: number;
    captures_completed: number;
    captures_failed: number;
    storage_bytes: number;
    api_call_count: number;
  }>;
  /** Per-status capture counts (capture_counts); null when this projection has no such table. */
  captureCounts: Array<{ status: string; n: number }> | null;
  webhooks: Array<{ webhook_id: string; url: string; events: string[]; name: string; secret: string | null; sealed_secret: string | null; deleted_at: Date | string | null }>;
  schedules: Array<{
    schedule_id: string;
    url: string;
    name: string;
    cron: string;
    deleted_at: Date | string | null;
    last_run_at: Date | string | null;
    last_capture_id: string | null;
    last_capture_status: string | null;
  }>;
}

const instant = (v: Date | string | null | undefined): string | null => (v === null || v === undefined ? null : new Date(v).toISOString());
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Every difference between what the log implies and what the projection holds. */
export function compareProjection(x: Expected, rows: ProjectionRows): Divergence[] {
  const out: Divergence[] = [];
  const diff = (ref: EventRef | null, table: string, key: string, field: string, projection: unknown, log: unknown) => {
    if (same(projection, log)) return;
    out.push({
      ref,
      table,
      key,
      field,
      projection,
      log,
      message: `${table} ${key}: ${field} is ${JSON.stringify(projection)} in the projection but ${JSON.stringify(log)} from the log`,
    });
  };
  const missing = (ref: EventRef, table: string, key: string) =>
    out.push({ ref, table, key, field: '(row)', projection: null, log: 'present', message: `${table} ${key}: the log creates this row but the projection has none` });
  const extra = (table: string, key: string) =>
    out.push({ ref: null, table, key, field: '(row)', projection: 'present', log: null, message: `${table} ${key}: the projection has this row but no event of the tenant creates it` });

  // tenants
  if (!x.head) {
    if (rows.tenant) extra('tenants', x.state.tenantId);
  } else if (!rows.tenant) {
    missing(x.head, 'tenants', x.state.tenantId);
  } else {
    diff(x.tierRef ?? x.head, 'tenants', x.state.tenantId, 'tier', rows.tenant.tier, x.state.tier);
    diff(x.overridesRef ?? x.head, 'tenants', x.state.tenantId, 'captures_override', rows.tenant.captures_override, x.state.overrides.capturesPerMonth);
    diff(x.overridesRef ?? x.head, 'tenants', x.state.tenantId, 'storage_override', rows.tenant.storage_override, x.state.overrides.storageBytes);
    diff(x.head, 'tenants', x.state.tenantId, 'last_hash', rows.tenant.last_hash, x.head.hash);
  }

  // api_keys: the actor's folded keys
  const keyRows = new Map(rows.apiKeys.map((r) => [r.key_hash, r]));
  for (const [keyHash, key] of x.state.keys) {
    const tracked = x.keys.get(keyHash)!;
    const row = keyRows.get(keyHash);
    if (!row) {
      missing(tracked.ref, 'api_keys', keyHash);
      continue;
    }
    diff(tracked.ref, 'api_keys', keyHash, 'scopes', row.scopes, key.scopes);
    diff(tracked.ref, 'api_keys', keyHash, 'name', row.name, key.name);
    diff(tracked.ref, 'api_keys', keyHash, 'created_at', instant(row.created_at), instant(key.createdAt));
    diff(tracked.ref, 'api_keys', keyHash, 'created_by', row.created_by, tracked.value.createdBy);
    diff(tracked.ref, 'api_keys', keyHash, 'revoked_at', instant(row.revoked_at), instant(key.revokedAt));
  }
  for (const keyHash of keyRows.keys()) if (!x.state.keys.has(keyHash)) extra('api_keys', keyHash);

  // captures: statuses, and pending exactly as the actor sees it
  const captureRows = new Map(rows.captures.map((r) => [r.capture_id, r]));
  for (const [id, c] of x.captures) {
    const row = captureRows.get(id);
    if (!row) {
      missing(c.ref, 'captures', id);
      continue;
    }
    const v = c.value;
    diff(c.ref, 'captures', id, 'status', row.status, v.status);
    diff(c.ref, 'captures', id, 'url', row.url, v.url);
    diff(c.ref, 'captures', id, 'period', row.period, v.period);
    if (v.status === 'complete') diff(c.ref, 'captures', id, 'stored_bytes', row.stored_bytes, v.storedBytes);
    if (v.status === 'failed') {
      diff(c.ref, 'captures', id, 'error', row.error, v.error);
      diff(c.ref, 'captures', id, 'retryable', row.retryable, v.retryable);
    }
    if ((row.status === 'pending') !== x.state.pending.has(id)) {
      out.push({ ref: c.ref, table: 'captures', key: id, field: 'pending', projection: row.status, log: x.state.pending.has(id) ? 'pending' : 'done', message: `captures ${id}: the actor's state and the projection disagree on whether it is pending` });
    }
  }
  for (const id of captureRows.keys()) if (!x.captures.has(id)) extra('captures', id);
  if (rows.captureCounts) {
    const counted = new Map(rows.captureCounts.map((r) => [r.status, r.n]));
    for (const status of new Set(['pending', 'complete', 'failed', ...counted.keys()])) {
      const expected = [...x.captures.values()].filter((c) => c.value.status === status).length;
      diff(x.statusRefs.get(status) ?? null, 'capture_counts', status, 'n', counted.get(status) ?? 0, expected);
    }
  }

  // usage_monthly counters
  const usageRows = new Map(rows.usage.map((r) => [r.period, r]));
  for (const [period, u] of x.usage) {
    const row = usageRows.get(period);
    if (!row) {
      missing(u.ref, 'usage_monthly', period);
      continue;
    }
    diff(u.ref, 'usage_monthly', period, 'captures_submitted', row.captures_submitted, u.value.capturesSubmitted);
    diff(u.ref, 'usage_monthly', period, 'captures_completed', row.captures_completed, u.value.capturesCompleted);
    diff(u.ref, 'usage_monthly', period, 'captures_failed', row.captures_failed, u.value.capturesFailed);
    diff(u.ref, 'usage_monthly', period, 'storage_bytes', row.storage_bytes, u.value.storageBytes);
    diff(u.ref, 'usage_monthly', period, 'api_call_count', row.api_call_count, u.value.apiCalls);
  }
  for (const period of usageRows.keys()) if (!x.usage.has(period)) extra('usage_monthly', period);
  // The actor's quota view (what admission decides on) agrees with the projection for its period.
  const quota = x.state.usage;
  const quotaRow = usageRows.get(quota.period);
  const quotaRef = x.usage.get(quota.period)?.ref ?? null;
  if (quota.period && quotaRow) {
    diff(quotaRef, 'usage_monthly', quota.period, 'captures_submitted (actor quota)', quotaRow.captures_submitted, quota.captures);
    diff(quotaRef, 'usage_monthly', quota.period, 'storage_bytes (actor quota)', quotaRow.storage_bytes, quota.storageBytes);
  }

  // webhooks: every registered one, with the secret as the log carries it
  const webhookRows = new Map(rows.webhooks.map((r) => [r.webhook_id, r]));
  for (const [id, w] of x.webhooks) {
    const row = webhookRows.get(id);
    if (!row) {
      missing(w.ref, 'webhooks', id);
      continue;
    }
    diff(w.ref, 'webhooks', id, 'url', row.url, w.value.url);
    diff(w.ref, 'webhooks', id, 'events', row.events, w.value.events);
    diff(w.ref, 'webhooks', id, 'name', row.name, w.value.name);
    diff(w.ref, 'webhooks', id, 'deleted', row.deleted_at !== null, w.value.deleted);
    // Deletion discards the secret; a secret in the clear is compared by digest so no report ever shows it.
    diff(w.ref, 'webhooks', id, 'sealed_secret', row.sealed_secret, w.value.deleted ? null : w.value.sealedSecret);
    diff(w.ref, 'webhooks', id, 'secret (sha256)', digestOf(row.secret), w.value.deleted ? null : digestOf(w.value.secret));
  }
  for (const id of webhookRows.keys()) if (!x.webhooks.has(id)) extra('webhooks', id);

  // schedules
  const scheduleRows = new Map(rows.schedules.map((r) => [r.schedule_id, r]));
  for (const [id, s] of x.schedules) {
    const row = scheduleRows.get(id);
    if (!row) {
      missing(s.ref, 'schedules', id);
      continue;
    }
    const v = s.value;
    diff(s.ref, 'schedules', id, 'url', row.url, v.url);
    diff(s.ref, 'schedules', id, 'name', row.name, v.name);
    diff(s.ref, 'schedules', id, 'cron', row.cron, v.cron);
    diff(s.ref, 'schedules', id, 'deleted', row.deleted_at !== null, v.deleted);
    diff(s.ref, 'schedules', id, 'active (actor state)', row.deleted_at === null, x.state.schedules.has(id));
    diff(s.ref, 'schedules', id, 'last_run_at', instant(row.last_run_at), instant(v.lastRunAt));
    diff(s.ref, 'schedules', id, 'last_capture_id', row.last_capture_id, v.lastCaptureId);
    diff(s.ref, 'schedules', id, 'last_capture_status', row.last_capture_status, v.lastCaptureStatus);
  }
  for (const id of scheduleRows.keys()) if (!x.schedules.has(id)) extra('schedules', id);

  return out;
}

/** Earliest event first; differences no event explains last. */
export function sortDivergences(list: Divergence[]): Divergence[] {
  return [...list].sort((a, b) => {
    if (!a.ref || !b.ref) return a.ref ? -1 : b.ref ? 1 : 0;
    return a.ref.seq - b.ref.seq || a.ref.index - b.ref.index;
  });
}
