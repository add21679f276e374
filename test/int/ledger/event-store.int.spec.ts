import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../../src/domain/ids.js';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { checkEnvelope, sealChain } from '../../../src/ledger/envelope.js';
import {
  ConcurrencyConflictError,
  createEventStore,
  encodeCommit,
  type EventStore,
} from '../../../src/ledger/event-store.js';
import { tenantSubject } from '../../../src/ledger/streams.js';
import { startNatsOnly } from '../../support/harness.js';

const event = (tenantId: string, i: number) => ({
  type: 'usage.api_calls_recorded' as const,
  data: { period: '2026-11', count: i },
  id: newId('evt'),
  schemaVersion: 1,
  tenantId,
  occurredAt: new Date().toISOString(),
  causedBy: { kind: 'system' as const, component: 'test' },
  correlationId: 'test',
});

describe('event store on a real nats-server', () => {
  let env: Awaited<ReturnType<typeof startNatsOnly>>;
  let nats: NatsHandles;
  let store: EventStore;
  before(async () => {
    env = await startNatsOnly();
    nats = await connectNats(env.nats.url, 'test');
    store = createEventStore(nats.js, nats.jsm);
  });
  after(async () => {
    await nats.nc.close();
    await env.stop();
  });

  it('appends with optimistic concurrency, chains hashes, and refuses a stale writer with a conflict', async () => {
    const subject = tenantSubject('occ');
    const [a] = await store.append(subject, [event('occ', 1)], { expectedLastSeq: 0, prevHash: null });
    const [b] = await store.append(subject, [event('occ', 2)], { expectedLastSeq: a!.seq, prevHash: a!.event.hash });
    await assert.rejects(
      store.append(subject, [event('occ', 3)], { expectedLastSeq: a!.seq, prevHash: a!.event.hash }),
      (e) => e instanceof ConcurrencyConflictError,
    );
    const read = await store.readSubject(subject);
    assert.deepEqual(
      read.map((e) => e.seq),
      [a!.seq, b!.seq],
    );
    assert.equal(checkEnvelope(read[0]!.event, null), null);
    assert.equal(checkEnvelope(read[1]!.event, read[0]!.event.hash), null);
  });

  it('lets one commit take a (subject, expected sequence) slot: a rival for the same slot is a conflict', async () => {
    const subject = tenantSubject('slot');
    const [first] = await store.append(subject, [event('slot', 1)], { expectedLastSeq: 0, prevHash: null });
    const rivals = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        store.append(subject, [event('slot', 10 + i)], { expectedLastSeq: first!.seq, prevHash: first!.event.hash }),
      ),
    );
    assert.equal(rivals.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of rivals)
      if (r.status === 'rejected') assert.ok(r.reason instanceof ConcurrencyConflictError, String(r.reason));
    assert.equal((await store.readSubject(subject)).length, 2);
  });

  it('treats its own commit found in the slot as appended: an earlier try landed, its acknowledgement and msgID dedupe lost', async () => {
    const subject = tenantSubject('landed');
    const [first] = await store.append(subject, [event('landed', 1)], { expectedLastSeq: 0, prevHash: null });
    const mine = [event('landed', 2)];
    // The earlier try, as a new stream leader holds it: in the slot, with no msgID left to deduplicate the retry.
    const earlier = await nats.js.publish(subject, encodeCommit(sealChain(mine, first!.event.hash)), {
      expect: { lastSubjectSequence: first!.seq },
    });
    const appended = await store.append(subject, mine, { expectedLastSeq: first!.seq, prevHash: first!.event.hash });
    assert.deepEqual(
      appended.map((e) => [e.seq, e.index, e.event.id]),
      mine.map((e, i) => [earlier.seq, i, e.id]),
    );
    assert.equal((await store.readSubject(subject)).length, 2, 'the commit is in the log once');
    // A rival's commit in that slot is still a conflict.
    await assert.rejects(
      store.append(subject, [event('landed', 4)], { expectedLastSeq: first!.seq, prevHash: first!.event.hash }),
      (e) => e instanceof ConcurrencyConflictError,
    );
  });

  it('replays the whole log in order', async () => {
    for (let i = 0; i < 30; i++) {
      const last = await store.last(tenantSubject('replay'));
      await store.append(tenantSubject('replay'), [event('replay', i)], {
        expectedLastSeq: last?.seq ?? 0,
        prevHash: last?.event.hash ?? null,
      });
    }
    const seqs: number[] = [];
    await store.replay(1, (e) => void seqs.push(e.seq));
    assert.equal(seqs.length, await store.lastSeq());
    assert.deepEqual(
      seqs,
      [...seqs].sort((x, y) => x - y),
    );
  });
});
