import type { Causer, Scope } from '../domain/events.js';

/** An authenticated tenant key, or a person signed in to the console with OpenID Connect. */
export interface Principal {
  tenantId: string;
  scopes: Scope[];
  /** null for the legacy single key and for an OpenID Connect session (then `oidc` says who). */
  keyHash: string | null;
  /** A console session opened by OpenID Connect: the configured provider's id and the person's `sub` there. */
  oidc?: { provider: string; subject: string };
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
  causedBy: causerOf(caller.principal),
});

const causerOf = (p: Principal): Causer =>
  p.keyHash
    ? { kind: 'key', keyHash: p.keyHash }
    : p.oidc
      ? { kind: 'oidc', provider: p.oidc.provider, subject: p.oidc.subject }
      : { kind: 'legacy-key' };
