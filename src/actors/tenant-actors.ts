import type { TenantEvent } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import { evolveTenant, initialTenantState, type TenantState } from '../domain/tenant/index.js';
import type { EventStore, StoredEvent } from '../ledger/event-store.js';
import { tenantSubject } from '../ledger/streams.js';
import { type ActorRuntime, createActorRuntime } from './actor-runtime.js';

/** The per-tenant actors: state folded from `ledger.tenant.<id>`. */
export function createTenantActors(
  store: EventStore,
  opts: { idleMs?: number; now?: () => Date; onAppended?: (e: StoredEvent[]) => void } = {},
): ActorRuntime<TenantState, TenantEvent> {
  return createActorRuntime<TenantState, TenantEvent>(
    store,
    { subjectOf: tenantSubject, initialState: initialTenantState, evolve: evolveTenant },
    { ...opts, newEventId: () => newId('evt') },
  );
}
