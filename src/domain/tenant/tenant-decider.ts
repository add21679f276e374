import { periodEnd, periodOf } from '../clock.js';
import type { Decider, Decision } from '../decider.js';
import { conflict, DomainError, notFound, refusal } from '../errors.js';
import type { TenantEvent } from '../events.js';
import { TIER_LIMITS } from '../tiers.js';
import type {
  Admission,
  TenantCommand,
  TenantCommandOf,
  TenantCommandType,
  TenantReplies,
  TenantReply,
} from './tenant-commands.js';
import { evolveTenant, initialTenantState, type TenantState } from './tenant-state.js';

/**
 * The tenant's decider: `decideTenant(command, state, now) → events + reply`, or a DomainError. Pure; the
 * actor runtime folds the state, appends what this returns and decides again after a conflict.
 */

type Handler<T extends TenantCommandType> = (
  data: TenantCommandOf<T>['data'],
  state: TenantState,
  now: Date,
) => Decision<TenantEvent, TenantReplies[T]>;

// ---- keys (spec 4.11) --------------------------------------------------------------------------------

const createKey: Handler<'CreateKey'> = (cmd, state, now) => {
  if (state.keys.has(cmd.keyHash)) throw conflict('a key with this hash already exists');
  const createdAt = now.toISOString();
  return { events: [{ type: 'key.created', data: { ...cmd, createdAt } }], reply: { createdAt } };
};

const revokeKey: Handler<'RevokeKey'> = (cmd, state, now) => {
  const key = state.keys.get(cmd.keyHash);
  if (!key) throw notFound(`no API key with keyHash ${cmd.keyHash}`);
  // Idempotent: revoking a revoked key changes nothing and answers with the original time.
  if (key.revokedAt) return { events: [], reply: { revokedAt: key.revokedAt, alreadyRevoked: true } };
  const revokedAt = now.toISOString();
  return {
    events: [{ type: 'key.revoked', data: { keyHash: cmd.keyHash, revokedAt } }],
    reply: { revokedAt, alreadyRevoked: false },
  };
};

// ---- tier and quota overrides (spec 8.2) -------------------------------------------------------------

const setTier: Handler<'SetTier'> = (cmd, state) => {
  if (state.exists && state.tier === cmd.tier) return { events: [], reply: null };
  return { events: [{ type: 'tenant.tier_set', data: { tier: cmd.tier } }], reply: null };
};

const setQuotaOverrides: Handler<'SetQuotaOverrides'> = (cmd, state) => {
  const same =
    state.exists &&
    state.overrides.capturesPerMonth === cmd.capturesPerMonth &&
    state.overrides.storageBytes === cmd.storageBytes;
  if (same) return { events: [], reply: null };
  return { events: [{ type: 'tenant.quota_overrides_set', data: { ...cmd } }], reply: null };
};

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

/** The monthly capture quota as X-Quota-* answer it (spec 8.2), after `used` captures. */
export const admissionOf = (view: QuotaView, used = view.capturesUsed): Admission => ({
  limit: view.capturesLimit,
  used,
  remaining: Math.max(0, view.capturesLimit - used),
});

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

/** Admit a whole submission or none of it (spec 8.2: a batch is checked up front as a whole). */
const submitCaptures: Handler<'SubmitCaptures'> = (cmd, state, now) => {
  const view = quotaView(state, now);
  const requested = cmd.captures.length;
  if (view.storageUsed >= view.storageLimit)
    throw quotaExceeded(view, 'storage', cmd.source === 'batch' ? requested : undefined);
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
      ...profilesUsed(cmd, state),
    ],
    reply: admissionOf(view, used),
  };
};

/**
 * One `profile.used` per capture with `options.profile`. A profile that is not the tenant's is a 422 naming the
 * field; a schedule's run is admitted all the same (its profile may have been deleted since the schedule was made)
 * and fails in the worker, which finds no contents to load.
 */
function profilesUsed(cmd: TenantCommandOf<'SubmitCaptures'>['data'], state: TenantState): TenantEvent[] {
  const events: TenantEvent[] = [];
  for (const [index, capture] of cmd.captures.entries()) {
    const profileId = capture.options?.profile;
    if (profileId === undefined) continue;
    const profile = state.profiles.get(profileId);
    if (!profile) {
      if (cmd.source === 'schedule') continue;
      const field = cmd.source === 'batch' ? `urls[${index}].options.profile` : 'options.profile';
      throw unknownProfile(field, profileId);
    }
    events.push({
      type: 'profile.used',
      data: { profileId, captureId: capture.captureId, version: profile.version, digest: profile.digest },
    });
  }
  return events;
}

/** The 422 for a profile the tenant does not have (spec 7.2's body; the field and the id named). */
export const unknownProfile = (field: string, profileId: string): DomainError =>
  refusal(422, `${field}: no browser profile ${profileId} (GET /v1/profiles lists yours).`);

// ---- browser profiles (docs/profiles.md) -------------------------------------------------------------

/** Profiles a tenant may keep at once. */
export const MAX_PROFILES = 100;

const createProfile: Handler<'CreateProfile'> = (cmd, state, now) => {
  if (state.profiles.has(cmd.profileId)) throw conflict(`profile ${cmd.profileId} already exists`);
  if (state.profiles.size >= MAX_PROFILES) {
    throw conflict(`This tenant already has ${MAX_PROFILES} browser profiles; delete one before creating another.`);
  }
  const createdAt = now.toISOString();
  return { events: [{ type: 'profile.created', data: { ...cmd, createdAt } }], reply: { createdAt } };
};

const updateProfile: Handler<'UpdateProfile'> = (cmd, state, now) => {
  const profile = state.profiles.get(cmd.profileId);
  if (!profile) throw notFound(`No profile ${cmd.profileId}.`);
  // The vault sealed the contents for this version; another update in between makes it stale.
  if (cmd.version !== profile.version + 1) {
    throw conflict(
      `Profile ${cmd.profileId} changed while this update was made (now version ${profile.version}); try again.`,
    );
  }
  const updatedAt = now.toISOString();
  return { events: [{ type: 'profile.updated', data: { ...cmd, updatedAt } }], reply: { updatedAt } };
};

const renameProfile: Handler<'RenameProfile'> = (cmd, state, now) => {
  if (!state.profiles.has(cmd.profileId)) throw notFound(`No profile ${cmd.profileId}.`);
  const renamedAt = now.toISOString();
  return { events: [{ type: 'profile.renamed', data: { ...cmd, renamedAt } }], reply: { renamedAt } };
};

const deleteProfile: Handler<'DeleteProfile'> = (cmd, state, now) => {
  if (!state.profiles.has(cmd.profileId)) throw notFound(`No profile ${cmd.profileId}.`);
  const deletedAt = now.toISOString();
  return { events: [{ type: 'profile.deleted', data: { profileId: cmd.profileId, deletedAt } }], reply: { deletedAt } };
};

/** Idempotent: only a pending capture can complete; a repeat is a no-op (decision 3). */
const completeCapture: Handler<'CompleteCapture'> = (data, state) => {
  if (!state.pending.has(data.captureId)) return { events: [], reply: { applied: false } };
  return { events: [{ type: 'capture.completed', data }], reply: { applied: true } };
};

const failCapture: Handler<'FailCapture'> = (data, state, now) => {
  if (!state.pending.has(data.captureId)) return { events: [], reply: { applied: false } };
  return {
    events: [{ type: 'capture.failed', data: { ...data, failedAt: now.toISOString() } }],
    reply: { applied: true },
  };
};

// ---- webhooks (spec 4.13) ----------------------------------------------------------------------------

export const MAX_WEBHOOKS = 5;

const registerWebhook: Handler<'RegisterWebhook'> = (cmd, state, now) => {
  if (state.webhooks.size >= MAX_WEBHOOKS) {
    throw conflict(`This tenant already has ${MAX_WEBHOOKS} webhooks; delete one before registering another.`);
  }
  const createdAt = now.toISOString();
  return { events: [{ type: 'webhook.registered', data: { ...cmd, createdAt } }], reply: { createdAt } };
};

const deleteWebhook: Handler<'DeleteWebhook'> = (cmd, state, now) => {
  if (!state.webhooks.has(cmd.webhookId)) throw notFound(`no webhook ${cmd.webhookId}`);
  return {
    events: [{ type: 'webhook.deleted', data: { webhookId: cmd.webhookId, deletedAt: now.toISOString() } }],
    reply: null,
  };
};

/**
 * Every delivery attempt is recorded; a job redelivered after a crash may record the same attempt again, so
 * readers key attempts by (deliveryId, attempt) — the projection keeps the first (docs/webhooks.md).
 */
const recordDeliveryAttempt: Handler<'RecordDeliveryAttempt'> = (data) => ({
  events: [{ type: 'webhook.delivery_attempted', data }],
  reply: null,
});

/** A delivery given up for good (spec 6.6 item 3); readers keep one per delivery. */
const deadLetterDelivery: Handler<'DeadLetterDelivery'> = (data) => ({
  events: [{ type: 'webhook.delivery_dead_lettered', data }],
  reply: null,
});

// ---- schedules (spec 4.12) ---------------------------------------------------------------------------

const createSchedule: Handler<'CreateSchedule'> = (cmd, state, now) => {
  const max = TIER_LIMITS[state.tier].activeSchedules;
  if (state.schedules.size >= max) {
    throw new DomainError(
      429,
      'Too Many Schedules',
      `The ${state.tier} tier allows ${max} active schedules; delete one to free a slot.`,
      {
        body: { limitType: 'schedules' },
      },
    );
  }
  const profileId = cmd.options?.profile;
  if (profileId !== undefined && !state.profiles.has(profileId)) throw unknownProfile('options.profile', profileId);
  const createdAt = now.toISOString();
  return { events: [{ type: 'schedule.created', data: { ...cmd, createdAt } }], reply: { createdAt } };
};

const deleteSchedule: Handler<'DeleteSchedule'> = (cmd, state, now) => {
  if (!state.schedules.has(cmd.scheduleId)) throw notFound(`no schedule ${cmd.scheduleId}`);
  return {
    events: [{ type: 'schedule.deleted', data: { scheduleId: cmd.scheduleId, deletedAt: now.toISOString() } }],
    reply: null,
  };
};

/**
 * One run per fire time: a fire time at or before the last handled one is a no-op, so several schedulers
 * (or a restarted one) never double-fire (OCC makes the check-and-append atomic).
 */
const fireSchedule: Handler<'FireSchedule'> = (cmd, state, now) => {
  const schedule = state.schedules.get(cmd.scheduleId);
  // A deleted schedule never fires again (its ids are never reused), so its fire times need not be kept.
  const handled = schedule?.lastFireTime ?? null;
  if (!schedule || (handled !== null && handled >= cmd.fireTime)) return { events: [], reply: { kind: 'not-due' } };
  try {
    const capture = {
      captureId: cmd.captureId,
      url: schedule.url,
      ...(schedule.options ? { options: schedule.options } : {}),
    };
    const submitted = submitCaptures(
      { captures: [capture], source: 'schedule', scheduleId: cmd.scheduleId, fireTime: cmd.fireTime },
      state,
      now,
    );
    return { events: submitted.events, reply: { kind: 'fired', captureId: cmd.captureId } };
  } catch (err) {
    if (!(err instanceof DomainError) || err.status !== 429) throw err;
    return {
      events: [
        {
          type: 'schedule.skipped',
          data: { scheduleId: cmd.scheduleId, fireTime: cmd.fireTime, reason: 'quota', detail: err.detail },
        },
      ],
      reply: { kind: 'skipped', detail: err.detail },
    };
  }
};

/** A watched run's comparison: a fact computed elsewhere, recorded as it is. */
const recordComparison: Handler<'RecordComparison'> = (data, _state, now) => ({
  events: [{ type: 'capture.compared', data: { ...data, comparedAt: now.toISOString() } }],
  reply: null,
});

/** A diff issued as evidence: recorded so the sequencer logs its record's hash like a bundle's. */
const recordDiffAttestation: Handler<'RecordDiffAttestation'> = (data, _state, now) => ({
  events: [{ type: 'capture.diff_attested', data: { ...data, attestedAt: now.toISOString() } }],
  reply: null,
});

/** A corroboration record issued: recorded so the sequencer logs its hash like a bundle's. */
const recordCorroborationAttestation: Handler<'RecordCorroborationAttestation'> = (data, _state, now) => ({
  events: [{ type: 'capture.corroboration_attested', data: { ...data, attestedAt: now.toISOString() } }],
  reply: null,
});

// ---- usage -------------------------------------------------------------------------------------------

const recordApiCalls: Handler<'RecordApiCalls'> = (cmd) => {
  if (cmd.count <= 0) return { events: [], reply: null };
  return { events: [{ type: 'usage.api_calls_recorded', data: cmd }], reply: null };
};

// ---- retention and legal hold -----------------------------------------------------------------

/** Recorded as asked: the operator route checked the capture and storage applied the change first. */
const recorded =
  <T extends 'SetRetention' | 'PlaceLegalHold' | 'LiftLegalHold' | 'ExtendRetention'>(
    type: Extract<TenantEvent, { data: { by: string } }>['type'],
  ): Handler<T> =>
  (cmd, _state, now) => {
    const at = now.toISOString();
    return { events: [{ type, data: { ...cmd, at } } as TenantEvent], reply: { at } as TenantReplies[T] };
  };

// ---- the decider -------------------------------------------------------------------------------------

/** One handler per command type; a command type without one does not compile. */
const handlers: { [T in TenantCommandType]: Handler<T> } = {
  CreateKey: createKey,
  RevokeKey: revokeKey,
  SetTier: setTier,
  SetQuotaOverrides: setQuotaOverrides,
  SubmitCaptures: submitCaptures,
  CompleteCapture: completeCapture,
  FailCapture: failCapture,
  RegisterWebhook: registerWebhook,
  DeleteWebhook: deleteWebhook,
  RecordDeliveryAttempt: recordDeliveryAttempt,
  DeadLetterDelivery: deadLetterDelivery,
  CreateSchedule: createSchedule,
  DeleteSchedule: deleteSchedule,
  FireSchedule: fireSchedule,
  RecordComparison: recordComparison,
  RecordDiffAttestation: recordDiffAttestation,
  RecordCorroborationAttestation: recordCorroborationAttestation,
  CreateProfile: createProfile,
  UpdateProfile: updateProfile,
  RenameProfile: renameProfile,
  DeleteProfile: deleteProfile,
  RecordApiCalls: recordApiCalls,
  SetRetention: recorded('tenant.retention_set'),
  PlaceLegalHold: recorded('capture.legal_hold_placed'),
  LiftLegalHold: recorded('capture.legal_hold_lifted'),
  ExtendRetention: recorded('capture.retention_extended'),
};

export function decideTenant<C extends TenantCommand>(
  command: C,
  state: TenantState,
  now: Date,
): Decision<TenantEvent, TenantReply<C>> {
  // The map pairs each type with its own handler; TypeScript cannot follow that through the generic C.
  const handler = handlers[command.type] as (
    data: C['data'],
    state: TenantState,
    now: Date,
  ) => Decision<TenantEvent, TenantReply<C>>;
  return handler(command.data, state, now);
}

export const tenantDecider: Decider<TenantState, TenantCommand, TenantEvent, TenantReplies> = {
  initialState: initialTenantState,
  decide: decideTenant,
  evolve: evolveTenant,
};
