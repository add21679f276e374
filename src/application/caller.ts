import type { Scope } from '../domain/events.js';

/** An authenticated tenant key. */
export interface Principal {
  tenantId: string;
  scopes: Scope[];
  /** null for the legacy single key. */
  keyHash: string | null;
}

/**
 * Who asks an application service, whatever the protocol (REST route or MCP tool; DESIGN decision 15): the
 * authenticated tenant key, the request id that becomes the events' correlation id, and where to log.
 */
export interface Caller {
  principal: Principal;
  correlationId: string;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** The `causedBy` and correlation id of the events an operator's command appends (the admin key). */
export const causedByAdmin = (correlationId: string) => ({ correlationId, causedBy: { kind: 'admin' as const } });

/** The `causedBy` and correlation id of the events a caller's command appends (docs/architecture.md, The ledger). */
export const causedBy = (caller: Caller) => ({
  correlationId: caller.correlationId,
  causedBy: caller.principal.keyHash
    ? { kind: 'key' as const, keyHash: caller.principal.keyHash }
    : { kind: 'legacy-key' as const },
});
