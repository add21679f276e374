import type { NatsConnection } from '@nats-io/transport-node';
import type { Config } from '../config/config.js';
import type { ApiRuntime, Feature } from '../features/feature.js';
import type { ProfileStates } from './browser-state.js';
import type { OpenProfile } from './capture-profile.js';
import { loadProfileKeyRing } from './profile-key.js';
import { openProfileVault, type ProfileVault } from './profile-vault.js';
import { createProfiles, type Profiles } from './profiles-service.js';

/**
 * Browser profiles (docs/profiles.md): what each role runs of them. The api serves `/v1/profiles` and gives the
 * remote browser its `ProfileStates`; the worker opens a capture's profile from the vault itself.
 */

export type { BrowserState, ProfileStates, ProfileSummary } from './browser-state.js';
export type { Profiles } from './profiles-service.js';

async function openVault(nc: NatsConnection, config: Config): Promise<ProfileVault> {
  return openProfileVault(nc, await loadProfileKeyRing(config), config.NATS_REPLICAS);
}

export interface ProfilesFeature extends Feature {
  profiles: Profiles;
  /** What the remote browser loads and saves through. */
  states: ProfileStates;
}

export async function profilesFeature(api: ApiRuntime): Promise<ProfilesFeature> {
  const { ctx } = api.data;
  const profiles = createProfiles(ctx, await openVault(api.runtime.nats.nc, ctx.config));
  // The routes (and with them Fastify's modules) load in the api only: the worker imports this module too.
  const { profileRoutes } = await import('./profile-routes.js');
  return { profiles, routes: [profileRoutes({ guard: api.guard, profiles })], states: profiles.states() };
}

/** The worker's opener: the sealed contents straight from the vault, opened with PROFILE_KEY in the worker. */
export async function profilesForWorker(input: {
  nc: NatsConnection;
  config: Config;
}): Promise<{ openProfile: OpenProfile }> {
  const vault = await openVault(input.nc, input.config);
  return { openProfile: (tenantId, profileId) => vault.open(tenantId, profileId) };
}

/** Re-wraps every tenant data key under the current PROFILE_KEY (after a rotation); how many it re-wrapped. */
export async function rewrapProfileKeys(nc: NatsConnection, config: Config): Promise<number> {
  return (await openVault(nc, config)).rewrapAll();
}
