import type { Causer, SystemEvent } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import { ConcurrencyConflictError, type EventStore } from '../ledger/event-store.js';
import { stampEnvelope } from '../ledger/envelope.js';
import { SYSTEM_SUBJECT, SYSTEM_TENANT } from '../ledger/streams.js';

/**
 * Deployment-wide identities (signing keys, built-in TSA certificates) are events on the system subject, so
 * every process of a cluster learns them from the log rather than from a disk another process wrote.
 * `decide` sees the system events so far and returns the event to append, or null when there is nothing to
 * record; a concurrent append (OCC conflict) makes it decide again on the new log.
 */
export async function appendSystemEvent(
  store: EventStore,
  decide: (events: SystemEvent[]) => SystemEvent | null,
  meta: { now: () => Date; causedBy: Causer; correlationId: string },
): Promise<boolean> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const last = await store.last(SYSTEM_SUBJECT);
    const events = last ? (await store.readSubject(SYSTEM_SUBJECT)).map((e) => e.event as unknown as SystemEvent) : [];
    const next = decide(events);
    if (!next) return false;
    try {
      await store.append<SystemEvent>(
        SYSTEM_SUBJECT,
        [
          stampEnvelope(next, {
            id: newId('evt'),
            tenantId: SYSTEM_TENANT,
            occurredAt: meta.now(),
            causedBy: meta.causedBy,
            correlationId: meta.correlationId,
          }),
        ],
        { expectedLastSeq: last?.seq ?? 0, prevHash: last?.event.hash ?? null },
      );
      return true;
    } catch (err) {
      if (!(err instanceof ConcurrencyConflictError)) throw err;
    }
  }
  throw new Error('could not record a system event: the system subject kept changing');
}
