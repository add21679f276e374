import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../../src/domain/ids.js';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { createEventStore, type EventStore } from '../../../src/ledger/event-store.js';
import type { UnsealedEnvelope } from '../../../src/ledger/envelope.js';
import { startNatsOnly } from '../../support/harness.js';

const event = (tenantId: string, i: number): UnsealedEnvelope => ({
  type: 'usage.api_calls_recorded',
  data: { period: '2026-11', count: i },
  id: newId('evt'),
  schemaVersion: 1,
  tenantId,
  occurredAt: new Date().toISOString(),
  causedBy: { kind: 'admin' },
  correlationId: 'test',
});

describe('event store: readers for hydration', () => {
  let env: Awaited<ReturnType<typeof startNatsOnly>>;
  let n: NatsHandles;
  let store: EventStore;
  before(async () => {
    env = await startNatsOnly();
    n = await connectNats(env.nats.url, 'range');
    store = createEventStore(n.js, n.jsm);
    // Two subjects interleaved, some commits of two events.
    const heads = new Map<string, { seq: number; hash: string | null }>([
      ['ledger.tenant.x', { seq: 0, hash: null }],
      ['ledger.tenant.y', { seq: 0, hash: null }],
    ]);
    for (let i = 0; i < 30; i++) {
      const subject = i % 3 === 0 ? 'ledger.tenant.y' : 'ledger.tenant.x';
      const h = heads.get(subject)!;
      const events =
        i % 4 === 0 ? [event(subject.slice(14), i), event(subject.slice(14), i)] : [event(subject.slice(14), i)];
      const stored = await store.append(subject, events, { expectedLastSeq: h.seq, prevHash: h.hash });
      heads.set(subject, { seq: stored.at(-1)!.seq, hash: stored.at(-1)!.event.hash });
    }
  });
  after(async () => {
    await n.nc.close();
    await env.stop();
  });

  it('readSubjectRange equals the matching slice of readSubject, short ranges and long ones', async () => {
    const all = await store.readSubject('ledger.tenant.x');
    const seqs = [...new Set(all.map((e) => e.seq))];
    const last = seqs.at(-1)!;
    for (const [from, until] of [
      [1, last],
      [seqs[3]!, last],
      [seqs[3]! + 1, seqs[5]!],
      [seqs.at(-2)!, last],
      [last, last],
      [last + 1, last + 10],
      [seqs[2]!, seqs[2]!],
    ] as Array<[number, number]>) {
      const got = await store.readSubjectRange('ledger.tenant.x', from, until);
      const want = all.filter((e) => e.seq >= from && e.seq <= until);
      assert.deepEqual(got, want, `range ${from}..${until}`);
    }
  });

  it('commitAt returns a commit only on its own subject', async () => {
    const x = await store.readSubject('ledger.tenant.x');
    const y = await store.readSubject('ledger.tenant.y');
    const two = x.filter((e) => e.seq === x.find((f) => f.index === 1)!.seq);
    assert.deepEqual(await store.commitAt('ledger.tenant.x', two[0]!.seq), two);
    assert.equal(await store.commitAt('ledger.tenant.x', y[0]!.seq), null);
    assert.equal(await store.commitAt('ledger.tenant.x', 100_000), null);
  });
});
