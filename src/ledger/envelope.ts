import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/canonical-json.js';
import { type Causer, type DomainEvent, SCHEMA_VERSION } from '../domain/events.js';

/**
 * The stored form of every event (DESIGN decision 1): immutable, versioned, attributed, and chained per
 * tenant — `hash` is SHA-256 over the canonical JSON (RFC 8785) of the envelope without `hash`, and
 * `prevHash` is the `hash` of the tenant's previous event (null for its first).
 */
export type EventEnvelope<E extends DomainEvent = DomainEvent> = E & {
  id: string;
  schemaVersion: number;
  tenantId: string;
  occurredAt: string;
  causedBy: Causer;
  correlationId: string;
  prevHash: string | null;
  hash: string;
};

export type UnsealedEnvelope<E extends DomainEvent = DomainEvent> = Omit<EventEnvelope<E>, 'hash' | 'prevHash'>;

/** Who and what an event is stamped with when it is decided (the envelope less the chain). */
export interface EnvelopeStamp {
  id: string;
  tenantId: string;
  occurredAt: Date;
  causedBy: Causer;
  correlationId: string;
}

/** The one place an event gets its envelope fields, at the current SCHEMA_VERSION. */
export const stampEnvelope = <E extends DomainEvent>(event: E, stamp: EnvelopeStamp): UnsealedEnvelope<E> =>
  ({
    ...event,
    ...stamp,
    schemaVersion: SCHEMA_VERSION,
    occurredAt: stamp.occurredAt.toISOString(),
  }) as UnsealedEnvelope<E>;

export const envelopeHash = (envelope: Omit<EventEnvelope, 'hash'>): string =>
  createHash('sha256').update(canonicalJson(envelope)).digest('hex');

/** Link an envelope into the tenant's chain. */
export const seal = <E extends DomainEvent>(
  unsealed: UnsealedEnvelope<E>,
  prevHash: string | null,
): EventEnvelope<E> => {
  const linked = { ...unsealed, prevHash } as Omit<EventEnvelope<E>, 'hash'>;
  return { ...linked, hash: envelopeHash(linked as Omit<EventEnvelope, 'hash'>) } as EventEnvelope<E>;
};

/** Link a commit's events into the chain, each to the one before it, the first to `prevHash`. */
export const sealChain = <E extends DomainEvent>(
  events: readonly UnsealedEnvelope<E>[],
  prevHash: string | null,
): EventEnvelope<E>[] => {
  const sealed: EventEnvelope<E>[] = [];
  for (const unsealed of events) {
    const event = seal(unsealed, sealed.at(-1)?.hash ?? prevHash);
    sealed.push(event);
  }
  return sealed;
};

/**
 * What is wrong with an envelope's place in the chain: `prev-hash` — it does not link to the event before it
 * (that one was altered, or an event was removed or inserted); `hash` — its own content was altered.
 */
export interface EnvelopeProblem {
  kind: 'prev-hash' | 'hash';
  detail: string;
}

/** Recompute an envelope's hash and check its link: null when both hold. */
export const checkEnvelope = (envelope: EventEnvelope, expectedPrevHash: string | null): EnvelopeProblem | null => {
  if (envelope.prevHash !== expectedPrevHash) {
    return {
      kind: 'prev-hash',
      detail: `prevHash ${envelope.prevHash} does not match the previous event's hash ${expectedPrevHash}`,
    };
  }
  const { hash, ...rest } = envelope;
  const actual = envelopeHash(rest);
  return actual === hash ? null : { kind: 'hash', detail: `hash ${hash} does not match the recomputed ${actual}` };
};
