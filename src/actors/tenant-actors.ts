import type { TenantEvent } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import {
  decodeTenantState,
  encodeTenantState,
  TENANT_STATE_VERSION,
  type TenantCommand,
  tenantDecider,
  type TenantReplies,
  type TenantState,
} from '../domain/tenant/index.js';
import type { EventStore, StoredEvent } from '../ledger/event-store.js';
import { tenantSubject } from '../ledger/streams.js';
import {
  type ActorDefinition,
  type ActorRuntime,
  type ActorRuntimeOptions,
  createActorRuntime,
} from './actor-runtime.js';

export const tenantActorDefinition: ActorDefinition<TenantState, TenantCommand, TenantEvent, TenantReplies> = {
  ...tenantDecider,
  subjectOf: tenantSubject,
  snapshot: { version: TENANT_STATE_VERSION, encode: encodeTenantState, decode: decodeTenantState },
};

/** The tenant actors: `execute(tenantId, command, meta)` with a TenantCommand. */
export type TenantActors = ActorRuntime<TenantState, TenantCommand, TenantEvent, TenantReplies>;

/** The per-tenant actors: state folded from `ledger.tenant.<id>` (from a snapshot and the tail when `snapshots` is given). */
export function createTenantActors(
  store: EventStore,
  opts: Pick<ActorRuntimeOptions, 'idleMs' | 'now' | 'snapshots' | 'snapshotEvery' | 'onSnapshotProblem'> & {
    onAppended?: (e: StoredEvent[]) => void;
  } = {},
): TenantActors {
  return createActorRuntime(store, tenantActorDefinition, { ...opts, newEventId: () => newId('evt') });
}
