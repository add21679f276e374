import type { SystemEvent } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import { ConcurrencyConflictError, type EventStore } from '../ledger/event-store.js';
import { SYSTEM_SUBJECT, SYSTEM_TENANT } from '../ledger/streams.js';
import type { SigningKey } from './signing-key.js';

/**
 * The published signing keys are rebuilt from `signing.key_rotated` events on the system subject. A process
 * whose configured key is not the current one records the change as a rotation, so old keys stay published
 * (old bundles keep verifying) and the new one becomes current.
 */
export async function registerSigningKey(store: EventStore, key: SigningKey, now: () => Date, reason = 'configured key'): Promise<boolean> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const last = await store.last(SYSTEM_SUBJECT);
    const events = last ? await store.readSubject(SYSTEM_SUBJECT) : [];
    const current = [...events].reverse().find((e) => e.event.type === 'signing.key_rotated');
    const currentKeyId = current ? (current.event as unknown as SystemEvent).data.keyId : null;
    if (currentKeyId === key.keyId) return false;
    try {
      await store.append<SystemEvent>(
        SYSTEM_SUBJECT,
        [
          {
            type: 'signing.key_rotated',
            data: { keyId: key.keyId, publicKey: key.publicKeyBase64, previousKeyId: currentKeyId, rotatedAt: now().toISOString() },
            id: newId('evt'),
            schemaVersion: 1,
            tenantId: SYSTEM_TENANT,
            occurredAt: now().toISOString(),
            causedBy: { kind: 'system', component: reason },
            correlationId: `signing:${key.keyId}`,
          },
        ],
        { expectedLastSeq: last?.seq ?? 0, prevHash: last?.event.hash ?? null },
      );
      return true;
    } catch (err) {
      if (!(err instanceof ConcurrencyConflictError)) throw err;
    }
  }
  throw new Error('could not record the signing key: the system subject kept changing');
}
