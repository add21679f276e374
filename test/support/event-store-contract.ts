import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { newId } from '../../src/domain/ids.js';
import { checkEnvelope, type UnsealedEnvelope } from '../../src/ledger/envelope.js';
import { ConcurrencyConflictError, type EventStore, type StoredEvent } from '../../src/ledger/event-store.js';
import { tenantSubject } from '../../src/ledger/streams.js';

/**
 * What every EventStore promises, run against each implementation: the in-memory one from a unit spec
 * (test/unit/ledger/in-memory-event-store.unit.spec.ts) and the JetStream one on a real nats-server
 * (test/int/ledger/event-store-contract.int.spec.ts).
 *
 * `makeStore` is called before each test. A store may already hold other data (the JetStream stream is shared
 * by the tests of a server), so each test writes to its own fresh subjects and asserts only about them, about
 * sequences relative to its own commits, and about the stream's last sequence right after its own append.
 */
export function eventStoreContract(makeStore: () => EventStore | Promise<EventStore>): void {
  describe('EventStore contract', () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await makeStore();
    });

    const freshTenant = () => `contract-${randomBytes(6).toString('hex')}`;
    const event = (tenantId: string, count: number): UnsealedEnvelope => ({
      type: 'usage.api_calls_recorded',
      data: { period: '2026-11', count },
      id: newId('evt'),
      schemaVersion: 1,
      tenantId,
      occurredAt: '2026-11-22T10:00:00.000Z',
      causedBy: { kind: 'system', component: 'contract' },
      correlationId: 'contract',
    });
    /** Append `sizes.length` commits of those sizes to the tenant's subject, each at the subject's head. */
    const appendCommits = async (tenantId: string, sizes: number[]): Promise<StoredEvent[][]> => {
      const out: StoredEvent[][] = [];
      for (const size of sizes) {
        const head = await store.last(tenantSubject(tenantId));
        const events = Array.from({ length: size }, (_, i) => event(tenantId, out.length * 10 + i));
        out.push(
          await store.append(tenantSubject(tenantId), events, {
            expectedLastSeq: head?.seq ?? 0,
            prevHash: head?.event.hash ?? null,
          }),
        );
      }
      return out;
    };
    const isConflict = (subject: string, expectedSeq: number) => (err: unknown) => {
      assert.ok(err instanceof ConcurrencyConflictError, `expected a ConcurrencyConflictError, got ${String(err)}`);
      assert.equal(err.subject, subject);
      assert.equal(err.expectedSeq, expectedSeq);
      return true;
    };

    it('appends a first commit at expected sequence 0: sealed, chained from prevHash, read back as appended', async () => {
      const t = freshTenant();
      const subject = tenantSubject(t);
      assert.equal(await store.last(subject), null);
      assert.deepEqual(await store.readSubject(subject), []);
      const input = event(t, 1);
      const [a, ...rest] = await store.append(subject, [input], { expectedLastSeq: 0, prevHash: null });
      assert.deepEqual(rest, []);
      assert.ok(a!.seq >= 1);
      assert.equal(a!.index, 0);
      assert.equal(a!.subject, subject);
      assert.equal(a!.event.id, input.id);
      assert.deepEqual(a!.event.data, input.data);
      assert.equal(checkEnvelope(a!.event, null), null);
      assert.deepEqual(await store.readSubject(subject), [a]);
      assert.deepEqual(await store.last(subject), a);
    });

    it('stores a commit of several events under one sequence, chained in order; last() is its last event', async () => {
      const t = freshTenant();
      const [[a], commit] = (await appendCommits(t, [1, 3])) as [StoredEvent[], StoredEvent[]];
      assert.equal(commit.length, 3);
      assert.ok(commit[0]!.seq > a!.seq);
      assert.deepEqual(
        commit.map((e) => e.seq),
        [commit[0]!.seq, commit[0]!.seq, commit[0]!.seq],
      );
      assert.deepEqual(
        commit.map((e) => e.index),
        [0, 1, 2],
      );
      let prev = a!.event.hash;
      for (const e of commit) {
        assert.equal(checkEnvelope(e.event, prev), null);
        prev = e.event.hash;
      }
      assert.deepEqual(await store.last(tenantSubject(t)), commit[2]);
      assert.deepEqual(await store.readSubject(tenantSubject(t)), [a, ...commit]);
    });

    it('stores nothing for an empty append', async () => {
      const t = freshTenant();
      assert.deepEqual(await store.append(tenantSubject(t), [], { expectedLastSeq: 0, prevHash: null }), []);
      assert.equal(await store.last(tenantSubject(t)), null);
    });

    it('refuses an append whose expected sequence is not the subject’s last with a ConcurrencyConflictError, storing nothing', async () => {
      const t = freshTenant();
      const subject = tenantSubject(t);
      const [[a], [b]] = (await appendCommits(t, [1, 1])) as [StoredEvent[], StoredEvent[]];
      await assert.rejects(
        store.append(subject, [event(t, 9)], { expectedLastSeq: a!.seq, prevHash: a!.event.hash }),
        isConflict(subject, a!.seq),
      );
      await assert.rejects(
        store.append(subject, [event(t, 9)], { expectedLastSeq: 0, prevHash: null }),
        isConflict(subject, 0),
      );
      await assert.rejects(
        store.append(subject, [event(t, 9)], { expectedLastSeq: b!.seq + 1000, prevHash: b!.event.hash }),
        isConflict(subject, b!.seq + 1000),
      );
      const other = tenantSubject(freshTenant());
      await assert.rejects(
        store.append(other, [event(t, 9)], { expectedLastSeq: b!.seq, prevHash: b!.event.hash }),
        isConflict(other, b!.seq),
      );
      assert.deepEqual(await store.readSubject(subject), [a, b]);
      assert.deepEqual(await store.readSubject(other), []);
    });

    it('lets exactly one of concurrent rivals for the same slot land; the others conflict', async () => {
      const t = freshTenant();
      const subject = tenantSubject(t);
      const [[first]] = (await appendCommits(t, [1])) as [StoredEvent[]];
      const rivals = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          store.append(subject, [event(t, 100 + i)], { expectedLastSeq: first!.seq, prevHash: first!.event.hash }),
        ),
      );
      const landed = rivals.filter((r): r is PromiseFulfilledResult<StoredEvent[]> => r.status === 'fulfilled');
      assert.equal(landed.length, 1);
      for (const r of rivals) if (r.status === 'rejected') isConflict(subject, first!.seq)(r.reason);
      assert.deepEqual(await store.readSubject(subject), [first, ...landed[0]!.value]);
    });

    it('answers a retry of a commit that landed (same events, same slot) with the stored commit, storing nothing new', async () => {
      const t = freshTenant();
      const subject = tenantSubject(t);
      const events = [event(t, 1), event(t, 2)];
      const stored = await store.append(subject, events, { expectedLastSeq: 0, prevHash: null });
      const lastSeq = await store.lastSeq();
      assert.deepEqual(await store.append(subject, events, { expectedLastSeq: 0, prevHash: null }), stored);
      assert.equal(await store.lastSeq(), lastSeq);
      assert.deepEqual(await store.readSubject(subject), stored);
    });

    it('orders commits of all subjects by one stream sequence; each subject’s expected sequence is its own last', async () => {
      const x = freshTenant();
      const y = freshTenant();
      const seqs: number[] = [];
      for (const t of [x, y, x, x, y]) {
        const [[e]] = (await appendCommits(t, [1])) as [StoredEvent[]];
        seqs.push(e!.seq);
        // Right after our own append, the stream's last sequence is that commit's.
        assert.equal(await store.lastSeq(), e!.seq);
      }
      assert.deepEqual(
        [...seqs].sort((p, q) => p - q),
        seqs,
      );
      assert.equal(new Set(seqs).size, seqs.length);
      assert.deepEqual(
        (await store.readSubject(tenantSubject(x))).map((e) => e.seq),
        [seqs[0], seqs[2], seqs[3]],
      );
      assert.deepEqual(
        (await store.readSubject(tenantSubject(y))).map((e) => e.seq),
        [seqs[1], seqs[4]],
      );
    });

    it('reads a subject from a sequence, and by commit-sequence range, short and long, as slices of the whole', async () => {
      const x = freshTenant();
      const y = freshTenant();
      // Interleaved with another subject, some commits of two events; more than a few commits (the JetStream
      // store reads a long range through a consumer, a short one by direct gets).
      for (let i = 0; i < 12; i++) await appendCommits(i % 3 === 0 ? y : x, [i % 4 === 0 ? 2 : 1]);
      const subject = tenantSubject(x);
      const all = await store.readSubject(subject);
      const seqs = [...new Set(all.map((e) => e.seq))];
      assert.equal(seqs.length, 8);
      const last = seqs.at(-1)!;
      for (const from of [1, seqs[0]!, seqs[3]!, seqs[3]! + 1, last, last + 1]) {
        assert.deepEqual(
          await store.readSubject(subject, from),
          all.filter((e) => e.seq >= from),
          `readSubject from ${from}`,
        );
      }
      for (const [from, until] of [
        [1, last],
        [seqs[0]!, last],
        [seqs[1]!, last],
        [seqs[3]!, last],
        [seqs[3]! + 1, seqs[5]!],
        [seqs.at(-2)!, last],
        [last, last],
        [seqs[2]!, seqs[2]!],
        [seqs[4]!, seqs[2]!],
        [last + 1, last + 10],
      ] as Array<[number, number]>) {
        assert.deepEqual(
          await store.readSubjectRange(subject, from, until),
          all.filter((e) => e.seq >= from && e.seq <= until),
          `range ${from}..${until}`,
        );
      }
    });

    it('returns the commit at a sequence only on its own subject', async () => {
      const x = freshTenant();
      const y = freshTenant();
      const [[a], commit] = (await appendCommits(x, [1, 2])) as [StoredEvent[], StoredEvent[]];
      const [[b]] = (await appendCommits(y, [1])) as [StoredEvent[]];
      assert.deepEqual(await store.commitAt(tenantSubject(x), a!.seq), [a]);
      assert.deepEqual(await store.commitAt(tenantSubject(x), commit[0]!.seq), commit);
      assert.equal(await store.commitAt(tenantSubject(x), b!.seq), null);
      assert.equal(await store.commitAt(tenantSubject(y), a!.seq), null);
      assert.equal(await store.commitAt(tenantSubject(x), b!.seq + 100_000), null);
    });

    it('replays every event from a sequence up to a bound, in order, one handler call at a time', async () => {
      const x = freshTenant();
      const y = freshTenant();
      const mine = new Set([tenantSubject(x), tenantSubject(y)]);
      const commits = [
        ...(await appendCommits(x, [1, 2])),
        ...(await appendCommits(y, [1])),
        ...(await appendCommits(x, [1])),
      ];
      const from = commits[0]![0]!.seq;
      const written = commits.flat();
      let inFlight = 0;
      const seen: StoredEvent[] = [];
      const count = await store.replay(from, async (e) => {
        assert.equal(++inFlight, 1, 'the handler is awaited before the next event');
        await new Promise((r) => setImmediate(r));
        seen.push(e);
        inFlight--;
      });
      assert.equal(count, seen.length);
      assert.deepEqual(
        seen.filter((e) => mine.has(e.subject)),
        written,
      );
      for (let i = 1; i < seen.length; i++) {
        const [p, q] = [seen[i - 1]!, seen[i]!];
        assert.ok(p.seq < q.seq || (p.seq === q.seq && p.index + 1 === q.index), `order at ${i}`);
      }
      const until = commits[1]![0]!.seq;
      const bounded: StoredEvent[] = [];
      assert.equal(await store.replay(from, (e) => void bounded.push(e), until), bounded.length);
      assert.deepEqual(
        bounded.filter((e) => mine.has(e.subject)),
        written.filter((e) => e.seq <= until),
      );
      assert.equal(await store.replay(until + 1, () => assert.fail('nothing to replay'), until), 0);
    });

    it('shares no object with its callers: changing what was appended or read changes nothing stored', async () => {
      const t = freshTenant();
      const subject = tenantSubject(t);
      const input = event(t, 1);
      const [appended] = await store.append(subject, [input], { expectedLastSeq: 0, prevHash: null });
      const before = await store.readSubject(subject);
      (input.data as { count: number }).count = 99;
      (appended!.event.data as { count: number }).count = 98;
      (before[0]!.event.data as { count: number }).count = 97;
      const after = await store.readSubject(subject);
      assert.equal((after[0]!.event.data as { count: number }).count, 1);
      assert.equal(checkEnvelope(after[0]!.event, null), null);
      assert.equal(((await store.last(subject))!.event.data as { count: number }).count, 1);
    });
  });
}
