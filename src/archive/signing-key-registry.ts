import type { EventStore } from '../ledger/event-store.js';
import type { SigningKey } from './signing-key.js';
import { appendSystemEvent } from './system-log.js';

/**
 * The published signing keys are rebuilt from `signing.key_rotated` events on the system subject. A process
 * whose configured key is not the current one records the change as a rotation, so old keys stay published
 * (old bundles keep verifying) and the new one becomes current.
 */
export async function registerSigningKey(
  store: EventStore,
  key: SigningKey,
  now: () => Date,
  reason = 'configured key',
): Promise<boolean> {
  return appendSystemEvent(
    store,
    (events) => {
      const rotations = events.filter((e) => e.type === 'signing.key_rotated');
      const currentKeyId = rotations.at(-1)?.data.keyId ?? null;
      if (currentKeyId === key.keyId) return null;
      return {
        type: 'signing.key_rotated',
        data: {
          keyId: key.keyId,
          publicKey: key.publicKeyBase64,
          previousKeyId: currentKeyId,
          rotatedAt: now().toISOString(),
        },
      };
    },
    { now, causedBy: { kind: 'system', component: reason }, correlationId: `signing:${key.keyId}` },
  );
}
