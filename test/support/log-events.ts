import { randomBytes } from 'node:crypto';
import type { DomainEvent } from '../../src/domain/events.js';
import { newId } from '../../src/domain/ids.js';
import type { EventStore } from '../../src/ledger/event-store.js';
import { SYSTEM_SUBJECT, SYSTEM_TENANT, tenantSubject } from '../../src/ledger/streams.js';
import { encodeLeaf, leafOfEvent } from '../../src/transparency/leaf.js';

/** Ledger events for transparency-log tests, appended straight to the event store with OCC. */

export function completed(captureId: string, withBundle = true): DomainEvent {
  return {
    type: 'capture.completed',
    data: {
      captureId,
      completedAt: new Date().toISOString(),
      renderQuality: withBundle ? 'full' : 'partial',
      render: { durationMs: 1 } as any,
      artifacts: {} as any,
      ...(withBundle
        ? {
            bundle: {
              bundleHash: `sha256:${randomBytes(32).toString('hex')}`,
              size: 10,
              version: '0.2.0',
              keyId: 'abcd1234',
              genTime: new Date().toISOString(),
            },
          }
        : {}),
      storedBytes: 10,
      attempts: 1,
    },
  } as DomainEvent;
}

export const keyRotated = (keyId: string): DomainEvent =>
  ({
    type: 'signing.key_rotated',
    data: {
      keyId,
      publicKey: randomBytes(32).toString('base64'),
      previousKeyId: null,
      rotatedAt: new Date().toISOString(),
    },
  }) as DomainEvent;

export const usageRecorded = (): DomainEvent =>
  ({ type: 'usage.api_calls_recorded', data: { period: '2026-11', count: 1 } }) as DomainEvent;

/** Append `events` as one commit on the tenant's subject (or ledger.system for tenant null), retrying OCC conflicts. */
export async function appendCommit(store: EventStore, tenantId: string | null, events: DomainEvent[]): Promise<void> {
  const subject = tenantId === null ? SYSTEM_SUBJECT : tenantSubject(tenantId);
  for (;;) {
    const last = await store.last(subject);
    try {
      await store.append(
        subject,
        events.map((e) => ({
          ...e,
          id: newId('evt'),
          schemaVersion: 1,
          tenantId: tenantId ?? SYSTEM_TENANT,
          occurredAt: new Date().toISOString(),
          causedBy: { kind: 'system', component: 'test' },
          correlationId: 'test',
        })) as any,
        { expectedLastSeq: last?.seq ?? 0, prevHash: last?.event.hash ?? null },
      );
      return;
    } catch (err) {
      if ((err as Error).name !== 'ConcurrencyConflictError') throw err;
    }
  }
}

/** The leaves the log must hold: every logged event of the ledger, in ledger order, once. */
export async function expectedLeaves(store: EventStore): Promise<string[]> {
  const out: string[] = [];
  await store.replay(1, (e) => {
    const leaf = leafOfEvent(e.event);
    if (leaf) out.push(new TextDecoder().decode(encodeLeaf(leaf)));
  });
  return out;
}
