import type { TenantEvent } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import { decodeTenantState, encodeTenantState, evolveTenant, initialTenantState, TENANT_STATE_VERSION, type TenantState } from '../domain/tenant/index.js';
import type { EventStore, StoredEvent } from '../ledger/event-store.js';
import { tenantSubject } from '../ledger/streams.js';
import { type ActorRuntime, type ActorRuntimeOptions, createActorRuntime } from './actor-runtime.js';

export const tenantActorDefinition = {
  subjectOf: tenantSubject,
  initialState: initialTenantState,
  evolve: evolveTenant,
  snapshot: { version: TENANT_STATE_VERSION, encode: encodeTenantState, decode: decodeTenantState },
};

/** The per-tenant actors: state folded from `ledger.tenant.<id>` (from a snapshot and the tail when `snapshots` is given). */
export function createTenantActors(
  store: EventStore,
  opts: Pick<ActorRuntimeOptions, 'idleMs' | 'now' | 'snapshots' | 'snapshotEvery' | 'onSnapshotProblem'> & { onAppended?: (e: StoredEvent[]) => void } = {},
): ActorRuntime<TenantState, TenantEvent> {
  return createActorRuntime<TenantState, TenantEvent>(store, tenantActorDefinition, { ...opts, newEventId: () => newId('evt') });
}
