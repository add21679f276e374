import type { ProfileVersionFacts, Scope, Tier, TenantEvent, WebhookEventType } from '../events.js';
import type { CaptureOptions } from '../capture-options.js';
import { DEFAULT_TIER } from '../tiers.js';
import { watchedRunOptions } from '../../watch/watch-policy.js';

/**
 * What a tenant actor knows: folded from the tenant's events by `evolveTenant`. Only what decisions need, so
 * its size does not grow with the tenant's history (docs/architecture.md, Actors): keys (a revoked one answers a repeated revoke
 * with its time, spec 4.11), the usage of the latest period, captures still pending, active webhooks and
 * schedules. Change the shape or the fold and bump TENANT_STATE_VERSION (tenant-snapshot.ts).
 */
export interface TenantState {
  tenantId: string;
  exists: boolean;
  keys: Map<string, { scopes: Scope[]; name: string; createdAt: string; revokedAt: string | null }>;
  tier: Tier;
  overrides: { capturesPerMonth: number | null; storageBytes: number | null };
  /** Usage of the most recent billing period that saw activity. */
  usage: { period: string; captures: number; storageBytes: number };
  /** Captures submitted and not yet complete or failed. */
  pending: Map<string, { url: string; createdAt: string; period: string; scheduleId?: string }>;
  webhooks: Map<string, { url: string; events: WebhookEventType[]; name: string; createdAt: string }>;
  /** Active schedules; `lastFireTime` is the latest fire time already handled (fired or skipped). */
  schedules: Map<
    string,
    {
      url: string;
      name: string;
      cron: string;
      createdAt: string;
      options?: CaptureOptions;
      lastFireTime: string | null;
    }
  >;
  /** Browser profiles not deleted: the latest version's facts (never their contents). */
  profiles: Map<string, { name: string; version: number; digest: string }>;
}

/** The latest version's facts a decision needs. */
const profileFacts = (name: string, facts: ProfileVersionFacts) => ({
  name,
  version: facts.version,
  digest: facts.digest,
});

export const initialTenantState = (tenantId: string): TenantState => ({
  tenantId,
  exists: false,
  keys: new Map(),
  tier: DEFAULT_TIER,
  overrides: { capturesPerMonth: null, storageBytes: null },
  usage: { period: '', captures: 0, storageBytes: 0 },
  pending: new Map(),
  webhooks: new Map(),
  schedules: new Map(),
  profiles: new Map(),
});

const usageIn = (state: TenantState, period: string) =>
  state.usage.period === period ? state.usage : { period, captures: 0, storageBytes: 0 };

/** Pure fold of one event into the state. Mutates and returns `state` (actors own their state exclusively). */
export function evolveTenant(state: TenantState, event: TenantEvent & { occurredAt: string }): TenantState {
  state.exists = true;
  switch (event.type) {
    case 'key.created':
      state.keys.set(event.data.keyHash, {
        scopes: event.data.scopes,
        name: event.data.name,
        createdAt: event.data.createdAt,
        revokedAt: null,
      });
      break;
    case 'key.revoked': {
      const key = state.keys.get(event.data.keyHash);
      if (key && key.revokedAt === null) key.revokedAt = event.data.revokedAt;
      break;
    }
    case 'tenant.tier_set':
      state.tier = event.data.tier;
      break;
    case 'tenant.quota_overrides_set':
      state.overrides = { ...event.data };
      break;
    case 'capture.submitted': {
      const usage = usageIn(state, event.data.period);
      if (usage.period >= state.usage.period) {
        state.usage = { ...usage, captures: usage.captures + event.data.captures.length };
      }
      for (const c of event.data.captures) {
        state.pending.set(c.captureId, {
          url: c.url,
          createdAt: event.occurredAt,
          period: event.data.period,
          ...(event.data.scheduleId ? { scheduleId: event.data.scheduleId } : {}),
        });
      }
      if (event.data.scheduleId && event.data.fireTime) {
        const schedule = state.schedules.get(event.data.scheduleId);
        if (schedule) schedule.lastFireTime = event.data.fireTime;
      }
      break;
    }
    case 'capture.completed': {
      const pending = state.pending.get(event.data.captureId);
      if (pending) {
        if (pending.period === state.usage.period) state.usage.storageBytes += event.data.storedBytes;
        state.pending.delete(event.data.captureId);
      }
      break;
    }
    case 'capture.failed':
      state.pending.delete(event.data.captureId);
      break;
    case 'webhook.registered': {
      // No secret in the state, sealed or not: no decision needs it.
      const { webhookId, url, events, name, createdAt } = event.data;
      state.webhooks.set(webhookId, { url, events, name, createdAt });
      break;
    }
    case 'webhook.deleted':
      state.webhooks.delete(event.data.webhookId);
      break;
    case 'schedule.created': {
      // The watch settings are the projection's, for the watch consumer; only what each run must
      // record for them is kept here: the boxes of its ignoreSelectors and ignoreText, so the diff can mask them in pixels.
      const { scheduleId, watch, options, ...rest } = event.data;
      const runOptions = watchedRunOptions(options, watch);
      state.schedules.set(scheduleId, { ...rest, ...(runOptions ? { options: runOptions } : {}), lastFireTime: null });
      break;
    }
    case 'schedule.deleted':
      state.schedules.delete(event.data.scheduleId);
      break;
    case 'schedule.skipped': {
      const schedule = state.schedules.get(event.data.scheduleId);
      if (schedule) schedule.lastFireTime = event.data.fireTime;
      break;
    }
    case 'profile.created':
      state.profiles.set(event.data.profileId, profileFacts(event.data.name, event.data));
      break;
    case 'profile.updated': {
      const profile = state.profiles.get(event.data.profileId);
      if (profile) state.profiles.set(event.data.profileId, profileFacts(profile.name, event.data));
      break;
    }
    case 'profile.renamed': {
      const profile = state.profiles.get(event.data.profileId);
      if (profile) profile.name = event.data.name;
      break;
    }
    case 'profile.deleted':
      state.profiles.delete(event.data.profileId);
      break;
    case 'profile.used':
    case 'webhook.delivery_attempted':
    case 'webhook.delivery_dead_lettered':
    case 'usage.api_calls_recorded':
    // Retention and holds live in storage and the projection; no decision here needs them.
    case 'tenant.retention_set':
    case 'capture.legal_hold_placed':
    case 'capture.legal_hold_lifted':
    case 'capture.retention_extended':
    case 'capture.compared':
    case 'capture.diff_attested':
    case 'capture.corroboration_attested':
      break;
  }
  return state;
}
