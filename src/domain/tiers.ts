import type { Tier } from './events.js';

/** Spec 8.2 tier defaults; 1 GB and 50 GB are decimal gigabytes. Schedules: our own numbers (docs/schedules.md). */
export const TIER_LIMITS: Record<Tier, { capturesPerMonth: number; storageBytes: number; activeSchedules: number }> = {
  starter: { capturesPerMonth: 200, storageBytes: 1_000_000_000, activeSchedules: 5 },
  pro: { capturesPerMonth: 5_000, storageBytes: 50_000_000_000, activeSchedules: 50 },
};

export const DEFAULT_TIER: Tier = 'starter';
export const TIERS: readonly Tier[] = ['starter', 'pro'];
