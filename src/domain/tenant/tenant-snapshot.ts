import { TIERS } from '../tiers.js';
import type { TenantState } from './tenant-state.js';

/**
 * TenantState as plain JSON, for actor snapshots (DESIGN decision 12: a cache, never the truth). Maps become
 * entry lists in insertion order, so a decoded state iterates like the folded one.
 *
 * TENANT_STATE_VERSION names the shape *and* the fold: bump it whenever TenantState or evolveTenant changes,
 * and every older snapshot is ignored (the actor folds the log instead and writes a new one).
 */
export const TENANT_STATE_VERSION = 7;

type Entries<M> = M extends Map<infer K, infer V> ? Array<[K, V]> : never;

export interface EncodedTenantState {
  tenantId: string;
  exists: boolean;
  keys: Entries<TenantState['keys']>;
  tier: TenantState['tier'];
  overrides: TenantState['overrides'];
  usage: TenantState['usage'];
  pending: Entries<TenantState['pending']>;
  webhooks: Entries<TenantState['webhooks']>;
  schedules: Entries<TenantState['schedules']>;
  profiles: Entries<TenantState['profiles']>;
}

/** A deep copy as JSON values: the actor keeps mutating its own state after this returns. */
export function encodeTenantState(state: TenantState): EncodedTenantState {
  return JSON.parse(
    JSON.stringify({
      tenantId: state.tenantId,
      exists: state.exists,
      keys: [...state.keys],
      tier: state.tier,
      overrides: state.overrides,
      usage: state.usage,
      pending: [...state.pending],
      webhooks: [...state.webhooks],
      schedules: [...state.schedules],
      profiles: [...state.profiles],
    }),
  ) as EncodedTenantState;
}

export class SnapshotShapeError extends Error {
  override name = 'SnapshotShapeError';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const entries = (v: unknown, field: string): Array<[string, Record<string, unknown>]> => {
  if (
    !Array.isArray(v) ||
    !v.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && isObject(e[1]))
  ) {
    throw new SnapshotShapeError(`${field} is not a list of [id, object] entries`);
  }
  return v as Array<[string, Record<string, unknown>]>;
};

/**
 * The state back from JSON, for `tenantId`. Throws SnapshotShapeError on anything that is not the shape
 * encodeTenantState writes: the caller then ignores the snapshot and folds the log.
 */
export function decodeTenantState(tenantId: string, data: unknown): TenantState {
  if (!isObject(data)) throw new SnapshotShapeError('state is not an object');
  if (data.tenantId !== tenantId)
    throw new SnapshotShapeError(`state is of tenant ${String(data.tenantId)}, not ${tenantId}`);
  if (typeof data.exists !== 'boolean') throw new SnapshotShapeError('exists is not a boolean');
  if (!TIERS.includes(data.tier as TenantState['tier']))
    throw new SnapshotShapeError(`tier ${String(data.tier)} is unknown`);
  const overrides = data.overrides;
  if (
    !isObject(overrides) ||
    !['capturesPerMonth', 'storageBytes'].every((k) => overrides[k] === null || typeof overrides[k] === 'number')
  ) {
    throw new SnapshotShapeError('overrides are malformed');
  }
  const usage = data.usage;
  if (
    !isObject(usage) ||
    typeof usage.period !== 'string' ||
    typeof usage.captures !== 'number' ||
    typeof usage.storageBytes !== 'number'
  ) {
    throw new SnapshotShapeError('usage is malformed');
  }
  return {
    tenantId,
    exists: data.exists,
    keys: new Map(entries(data.keys, 'keys')) as unknown as TenantState['keys'],
    tier: data.tier as TenantState['tier'],
    overrides: {
      capturesPerMonth: overrides.capturesPerMonth as number | null,
      storageBytes: overrides.storageBytes as number | null,
    },
    usage: { period: usage.period, captures: usage.captures, storageBytes: usage.storageBytes },
    pending: new Map(entries(data.pending, 'pending')) as unknown as TenantState['pending'],
    webhooks: new Map(entries(data.webhooks, 'webhooks')) as unknown as TenantState['webhooks'],
    schedules: new Map(entries(data.schedules, 'schedules')) as unknown as TenantState['schedules'],
    profiles: new Map(entries(data.profiles, 'profiles')) as unknown as TenantState['profiles'],
  };
}
