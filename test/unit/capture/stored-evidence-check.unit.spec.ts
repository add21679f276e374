import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimeoutError } from '@nats-io/transport-node';
import type { ArtifactStore } from '../../../src/storage/artifact-store.js';
import { checkStoredEvidence } from '../../../src/storage/stored-evidence-check.js';
import type { EventStore, StoredEvent } from '../../../src/ledger/event-store.js';

/**
 * The walk of `storage verify` through an interruption (an election after a restart): it resumes where it was
 * and counts nothing twice. The store and the log are in memory here; the real walk over a cluster with node
 * kills is test/e2e/nats-chaos.e2e.spec.ts.
 */
const completed = (seq: number, index: number): StoredEvent =>
  ({
    seq,
    index,
    subject: 'ledger.tenant.t',
    event: {
      type: 'capture.completed',
      tenantId: 't',
      data: { captureId: `cap_${seq}_${index}`, artifacts: { screenshot: `cap_${seq}_${index}/screenshot` } },
    },
  }) as unknown as StoredEvent;

// Commit 2 holds two events; the interruption comes between them.
const LOG = [completed(1, 0), completed(2, 0), completed(2, 1), completed(3, 0)];

function interruptedLog(failAfter: number, failures: number) {
  const starts: number[] = [];
  let delivered = 0;
  let failed = 0;
  const events = {
    async replay(fromSeq: number, onEvent: (e: StoredEvent) => Promise<void> | void) {
      starts.push(fromSeq);
      for (const e of LOG.filter((x) => x.seq >= fromSeq)) {
        if (delivered === failAfter && failed < failures) {
          failed++;
          throw new TimeoutError();
        }
        delivered++;
        await onEvent(e);
      }
      return LOG.at(-1)!.seq;
    },
  } as unknown as EventStore;
  return { events, starts };
}

const wholeStore = {
  async check(name: string) {
    return { status: 'ok' as const, size: name.length, digest: 'SHA-256=x' };
  },
} as unknown as ArtifactStore;

describe('storage verify through an election', () => {
  it('resumes inside a commit after an interruption and counts every capture once', async () => {
    const { events, starts } = interruptedLog(2, 1);
    const checked: string[] = [];
    const tally = await checkStoredEvidence({
      events,
      artifacts: {
        async check(n: string) {
          checked.push(n);
          return wholeStore.check(n);
        },
      } as unknown as ArtifactStore,
      fromSeq: 1,
      untilSeq: 3,
      onProblem: () => undefined,
      unavailableBudgetMs: 10_000,
    });
    assert.deepEqual(starts, [1, 2], 'the second pass starts at the commit it was in');
    assert.equal(tally.captures, 4);
    assert.equal(tally.ok, 4);
    assert.deepEqual(
      checked,
      LOG.map((e) => `cap_${e.seq}_${e.index}/screenshot`),
    );
    assert.equal(tally.lastSeq, 3);
  });

  it('gives up with the NATS error once the outage outlasts its budget without progress', async () => {
    const { events } = interruptedLog(1, Number.POSITIVE_INFINITY);
    await assert.rejects(
      checkStoredEvidence({
        events,
        artifacts: wholeStore,
        fromSeq: 1,
        untilSeq: 3,
        onProblem: () => undefined,
        unavailableBudgetMs: 0,
      }),
      TimeoutError,
    );
  });
});
