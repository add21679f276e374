import { periodEnd, periodOf } from '../clock.js';
import type { CaptureOptions } from '../capture-options.js';
import { DomainError, notFound } from '../errors.js';
import type { Scope, SubmittedCapture, TenantEvent, Tier, WebhookEventType } from '../events.js';
import { TIER_LIMITS } from '../tiers.js';
import type { TenantState } from './tenant-state.js';

/**
 * Pure decisions of the tenant actor: `(command, state, now) → events + reply`, or a DomainError.
 * No I/O here; the actor runtime appends what these return.
 */

export interface Decided<R> {
  events: TenantEvent[];
  reply: R;
}

// ---- keys (spec 4.11) --------------------------------------------------------------------------------

export function decideCreateKey(
  cmd: { keyHash: string; scopes: Scope[]; name: string },
  state: TenantState,
  now: Date,
): Decided<{ createdAt: string }> {
  if (state.keys.has(cmd.keyHash)) throw new DomainError(409, 'Conflict', 'a key with this hash already exists');
  const createdAt = now.toISOString();
  return { events: [{ type: 'key.created', data: { ...cmd, createdAt } }], reply: { createdAt } };
}

export function decideRevokeKey(
  cmd: { keyHash: string },
  state: TenantState,
  now: Date,
): Decided<{ revokedAt: string; alreadyRevoked: boolean }> {
  const key = state.keys.get(cmd.keyHash);
  if (!key) throw notFound(`no API key with keyHash ${cmd.keyHash}`);
  // Idempotent: revoking a revoked key changes nothing and answers with the original time.
  if (key.revokedAt) return { events: [], reply: { revokedAt: key.revokedAt, alreadyRevoked: true } };
  const revokedAt = now.toISOString();
  return { events: [{ type: 'key.revoked', data: { keyHash: cmd.keyHash, revokedAt } }], reply: { revokedAt, alreadyRevoked: false } };
}

// ---- tier and quota overrides (spec 8.2) -------------------------------------------------------------

export function decideSetTier(cmd: { tier: Tier }, state: TenantState): Decided<null> {
  if (state.exists && state.tier === cmd.tier) return { events: [], reply: null };
  return { events: [{ type: 'tenant.tier_set', data: { tier: cmd.tier } }], reply: null };
}

export function decideSetQuotaOverrides(
  cmd: { capturesPerMonth: number | null; storageBytes: number | null },
  state: TenantState,
): Decided<null> {
  const same =
    state.exists &&
    state.overrides.capturesPerMonth === cmd.capturesPerMonth &&
    state.overrides.storageBytes === cmd.storageBytes;
  if (same) return { events: [], reply: null };
  return { events: [{ type: 'tenant.quota_overrides_set', data: { ...cmd } }], reply: null };
}

// ---- quotas ------------------------------------------------------------------------------------------

export interface QuotaView {
  period: string;
  capturesLimit: number;
  capturesUsed: number;
  storageLimit: number;
  storageUsed: number;
  resetsAt: string;
}

export function quotaView(state: TenantState, now: Date): QuotaView {
  const period = periodOf(now);
  const defaults = TIER_LIMITS[state.tier];
  const current = state.usage.period === period ? state.usage : { captures: 0, storageBytes: 0 };
  return {
    period,
    capturesLimit: state.overrides.capturesPerMonth ?? defaults.capturesPerMonth,
    capturesUsed: current.captures,
    storageLimit: state.overrides.storageBytes ?? defaults.storageBytes,
    storageUsed: current.storageBytes,
    resetsAt: periodEnd(period).toISOString(),
  };
}

/** The 429 of spec 7.3 for an exhausted monthly quota. */
export function quotaExceeded(view: QuotaView, resource: 'captures' | 'storage', requested?: number): DomainError {
  const limit = resource === 'captures' ? view.capturesLimit : view.storageLimit;
  const used = resource === 'captures' ? view.capturesUsed : view.storageUsed;
  const quota: Record<string, unknown> = {
    resource,
    limit,
    used,
    remaining: Math.max(0, limit - used),
    resetsAt: view.resetsAt,
  };
  if (requested !== undefined) quota.requested = requested;
  const detail =
    resource === 'storage'
      ? `Monthly storage quota of ${limit} bytes is used up (${used} used); it resets at ${view.resetsAt}.`
      : requested !== undefined && requested > 1
        ? `This batch needs ${requested} captures but only ${Math.max(0, limit - used)} of the monthly quota of ${limit} remain; it resets at ${view.resetsAt}.`
        : `Monthly capture quota of ${limit} is used up (${used} used); it resets at ${view.resetsAt}.`;
  return new DomainError(429, 'Quota Exceeded', detail, {
    body: { limitType: 'quota', quota },
    headers: { 'Retry-After': new Date(view.resetsAt).toUTCString() },
  });
}

// ---- captures ----------------------------------------------------------------------------------------

export interface SubmitCapturesCommand {
  captures: SubmittedCapture[];
  source: 'single' | 'batch' | 'schedule';
  scheduleId?: string;
  fireTime?: string;
}

export interface Admission {
  limit: number;
  used: number;
  remaining: number;
}

/** Admit a whole submission or none of it (spec 8.2: a batch is checked up front as a whole). */
export function decideSubmitCaptures(cmd: SubmitCapturesCommand, state: TenantState, now: Date): Decided<Admission> {
  const view = quotaView(state, now);
  const requested = cmd.captures.length;
  if (view.storageUsed >= view.storageLimit) throw quotaExceeded(view, 'storage', cmd.source === 'batch' ? requested : undefined);
  if (view.capturesUsed + requested > view.capturesLimit) {
    throw quotaExceeded(view, 'captures', cmd.source === 'batch' ? requested : undefined);
  }
  const used = view.capturesUsed + requested;
  return {
    events: [
      {
        type: 'capture.submitted',
        data: {
          captures: cmd.captures,
          period: view.period,
          source: cmd.source,
          ...(cmd.scheduleId ? { scheduleId: cmd.scheduleId } : {}),
          ...(cmd.fireTime ? { fireTime: cmd.fireTime } : {}),
        },
      },
    ],
    reply: { limit: view.capturesLimit, used, remaining: Math.max(0, view.capturesLimit - used) },
  };
}

type CompletedData = Extract<TenantEvent, { type: 'capture.completed' }>['data'];
type FailedData = Extract<TenantEvent, { type: 'capture.failed' }>['data'];

/** Idempotent: only a pending capture can complete; a repeat is a no-op (decision 3). */
export function decideCompleteCapture(data: CompletedData, state: TenantState): Decided<{ applied: boolean }> {
  if (!state.pending.has(data.captureId)) return { events: [], reply: { applied: false } };
  return {
    events: [{ type: 'capture.completed', data }],
    reply: { applied: true },
  };
}

export function decideFailCapture(data: FailedData, state: TenantState): Decided<{ applied: boolean }> {
  if (!state.pending.has(data.captureId)) return { events: [], reply: { applied: false } };
  return {
    events: [{ type: 'capture.failed', data }],
    reply: { applied: true },
  };
}

// ---- webhooks (spec 4.13) ----------------------------------------------------------------------------

export const MAX_WEBHOOKS = 5;

export function decideRegisterWebhook(
  cmd: { webhookId: string; url: string; events: WebhookEventType[]; name: string; sealedSecret: string },
  state: TenantState,
  now: Date,
): Decided<{ createdAt: string }> {
  if (state.webhooks.size >= MAX_WEBHOOKS) {
    throw new DomainError(409, 'Conflict', `This tenant already has ${MAX_WEBHOOKS} webhooks; delete one before registering another.`);
  }
  const createdAt = now.toISOString();
  return { events: [{ type: 'webhook.registered', data: { ...cmd, createdAt } }], reply: { createdAt } };
}

export function decideDeleteWebhook(cmd: { webhookId: string }, state: TenantState, now: Date): Decided<null> {
  if (!state.webhooks.has(cmd.webhookId)) throw notFound(`no webhook ${cmd.webhookId}`);
  return { events: [{ type: 'webhook.deleted', data: { webhookId: cmd.webhookId, deletedAt: now.toISOString() } }], reply: null };
}

type DeliveryAttemptData = Extract<TenantEvent, { type: 'webhook.delivery_attempted' }>['data'];
type DeadLetterData = Extract<TenantEvent, { type: 'webhook.delivery_dead_lettered' }>['data'];

/**
 * Every delivery attempt is recorded; a job redelivered after a crash may record the same attempt again, so
 * readers key attempts by (deliveryId, attempt) — the projection keeps the first (docs/webhooks.md).
 */
export function decideRecordDeliveryAttempt(data: DeliveryAttemptData): Decided<null> {
  return { events: [{ type: 'webhook.delivery_attempted', data }], reply: null };
}

/** A delivery given up for good (spec 6.6 item 3); readers keep one per delivery. */
export function decideDeadLetterDelivery(data: DeadLetterData): Decided<null> {
  return { events: [{ type: 'webhook.delivery_dead_lettered', data }], reply: null };
}

// ---- schedules (spec 4.12) ---------------------------------------------------------------------------

export function decideCreateSchedule(
  cmd: { scheduleId: string; url: string; name: string; cron: string; options?: CaptureOptions },
  state: TenantState,
  now: Date,
): Decided<{ createdAt: string }> {
  const max = TIER_LIMITS[state.tier].activeSchedules;
  if (state.schedules.size >= max) {
    throw new DomainError(429, 'Too Many Schedules', `The ${state.tier} tier allows ${max} active schedules; delete one to free a slot.`, {
      body: { limitType: 'schedules' },
    });
  }
  const createdAt = now.toISOString();
  return { events: [{ type: 'schedule.created', data: { ...cmd, createdAt } }], reply: { createdAt } };
}

export function decideDeleteSchedule(cmd: { scheduleId: string }, state: TenantState, now: Date): Decided<null> {
  if (!state.schedules.has(cmd.scheduleId)) throw notFound(`no schedule ${cmd.scheduleId}`);
  return { events: [{ type: 'schedule.deleted', data: { scheduleId: cmd.scheduleId, deletedAt: now.toISOString() } }], reply: null };
}

export type FireOutcome = { kind: 'fired'; captureId: string } | { kind: 'skipped'; detail: string } | { kind: 'not-due' };

/**
 * One run per fire time: a fire time at or before the last handled one is a no-op, so several schedulers
 * (or a restarted one) never double-fire (OCC makes the check-and-append atomic).
 */
export function decideFireSchedule(
  cmd: { scheduleId: string; fireTime: string; captureId: string },
  state: TenantState,
  now: Date,
): Decided<FireOutcome> {
  const schedule = state.schedules.get(cmd.scheduleId);
  // A deleted schedule never fires again (its ids are never reused), so its fire times need not be kept.
  const handled = schedule?.lastFireTime ?? null;
  if (!schedule || (handled !== null && handled >= cmd.fireTime)) return { events: [], reply: { kind: 'not-due' } };
  try {
    const submitted = decideSubmitCaptures(
      { captures: [{ captureId: cmd.captureId, url: schedule.url, ...(schedule.options ? { options: schedule.options } : {}) }], source: 'schedule', scheduleId: cmd.scheduleId, fireTime: cmd.fireTime },
      state,
      now,
    );
    return { events: submitted.events, reply: { kind: 'fired', captureId: cmd.captureId } };
  } catch (err) {
    if (!(err instanceof DomainError) || err.status !== 429) throw err;
    return {
      events: [{ type: 'schedule.skipped', data: { scheduleId: cmd.scheduleId, fireTime: cmd.fireTime, reason: 'quota', detail: err.detail } }],
      reply: { kind: 'skipped', detail: err.detail },
    };
  }
}

export function decideRecordApiCalls(cmd: { period: string; count: number }): Decided<null> {
  if (cmd.count <= 0) return { events: [], reply: null };
  return { events: [{ type: 'usage.api_calls_recorded', data: cmd }], reply: null };
}
