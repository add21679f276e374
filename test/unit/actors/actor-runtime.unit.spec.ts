import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { type ActorRuntimeOptions, createActorRuntime } from '../../../src/actors/actor-runtime.js';
import { tenantActorDefinition } from '../../../src/actors/tenant-actors.js';
import { encodeSnapshot, sealSnapshot, type ActorSnapshot } from '../../../src/actors/actor-snapshot.js';
import type { SnapshotStore } from '../../../src/actors/snapshot-store.js';
import { DomainError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import { encodeTenantState, type TenantCommand } from '../../../src/domain/tenant/index.js';
import { checkEnvelope, type UnsealedEnvelope } from '../../../src/ledger/envelope.js';
import { ConcurrencyConflictError, type EventStore } from '../../../src/ledger/event-store.js';
import { createInMemoryEventStore } from '../../../src/ledger/in-memory-event-store.js';
import { tenantSubject } from '../../../src/ledger/streams.js';

// The actor runtime over the in-memory event store: turns, group commit, OCC conflicts and retries, and the
// re-decision of a turn that appends nothing against the newest log — without a nats-server. Two runtimes over
// one store stand for two processes over one ledger.

const NOW = new Date('2026-11-22T10:00:00Z');
const meta = { correlationId: 'unit', causedBy: { kind: 'admin' as const } };
const T = 'acme';
const SUBJECT = tenantSubject(T);

const runtimes: Array<{ close(): void }> = [];
afterEach(() => {
  for (const r of runtimes.splice(0)) r.close();
});
function runtimeOver(store: EventStore, opts: Partial<ActorRuntimeOptions> = {}) {
  const runtime = createActorRuntime(store, tenantActorDefinition, {
    newEventId: () => newId('evt'),
    now: () => NOW,
    ...opts,
  });
  runtimes.push(runtime);
  return runtime;
}

const quota = (capturesPerMonth: number): TenantCommand => ({
  type: 'SetQuotaOverrides',
  data: { capturesPerMonth, storageBytes: null },
});
const submit = (...captureIds: string[]) =>
  ({
    type: 'SubmitCaptures',
    data: { captures: captureIds.map((captureId) => ({ captureId, url: 'https://example.org/' })), source: 'batch' },
  }) as const;
const fail = (captureId: string) =>
  ({ type: 'FailCapture', data: { captureId, error: 'x', retryable: false, attempts: 1 } }) as const;
const apiCalls = (count: number) => ({ type: 'RecordApiCalls', data: { period: '2026-11', count } }) as const;
const is429 = (err: unknown) => err instanceof DomainError && err.status === 429;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
/** Let every pending promise and I/O callback run; the in-memory store needs nothing more. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};
/** The store with `append` wrapped: `around` decides when (and whether) the real append runs. */
const withAppend = (
  inner: EventStore,
  around: (append: () => Promise<unknown>, subject: string) => Promise<unknown>,
): EventStore => ({
  ...inner,
  append: ((subject, events, opts) =>
    around(() => inner.append(subject, events, opts), subject)) as EventStore['append'],
});
/**
 * The store with appends held while `hold()` is on: a turn then stays at its append, so what queues meanwhile
 * is known to form the next turn (a turn takes every command waiting in the mailbox when it starts).
 */
function gatedStore(inner: EventStore) {
  let gate: ReturnType<typeof deferred> | null = null;
  let waiting = 0;
  const store = withAppend(inner, async (append) => {
    if (gate) {
      waiting++;
      await gate.promise;
      waiting--;
    }
    return append();
  });
  return {
    store,
    hold: () => void (gate = deferred()),
    release: () => {
      const g = gate;
      gate = null;
      g?.resolve();
    },
    waiting: () => waiting,
  };
}

describe('actor runtime: turns and group commit', () => {
  it('stamps the envelope of every event it appends and chains it to the subject', async () => {
    const store = createInMemoryEventStore();
    const actors = runtimeOver(store);
    const r = await actors.execute(T, quota(5), { correlationId: 'corr-1', causedBy: { kind: 'key', keyHash: 'h' } });
    await actors.execute(T, apiCalls(2), meta);
    assert.equal(r.reply, null);
    const [first, second] = await store.readSubject(SUBJECT);
    assert.deepEqual(r.appended, [first]);
    assert.equal(first!.event.type, 'tenant.quota_overrides_set');
    assert.match(first!.event.id, /^evt_/);
    assert.equal(first!.event.tenantId, T);
    assert.equal(first!.event.occurredAt, NOW.toISOString());
    assert.equal(first!.event.schemaVersion, 1);
    assert.deepEqual(first!.event.causedBy, { kind: 'key', keyHash: 'h' });
    assert.equal(first!.event.correlationId, 'corr-1');
    assert.equal(checkEnvelope(first!.event, null), null);
    assert.equal(checkEnvelope(second!.event, first!.event.hash), null);
  });

  it('decides the commands that queued during a turn in order, as one commit, each with its own reply or refusal', async () => {
    const store = createInMemoryEventStore();
    const gated = gatedStore(store);
    const actors = runtimeOver(gated.store);
    // The first command's turn is held at its append; the next three wait in the mailbox and form the second turn.
    gated.hold();
    const first = actors.execute(T, quota(3), meta);
    await settle();
    assert.equal(gated.waiting(), 1);
    const settled = Promise.allSettled([
      actors.execute(T, submit('cap_a', 'cap_b'), meta),
      actors.execute(T, submit('cap_c', 'cap_d'), meta),
      actors.execute(T, submit('cap_e'), meta),
    ]);
    gated.release();
    await first;
    const results = await settled;
    const [a, refused, e] = results;
    assert.equal(refused!.status, 'rejected');
    assert.ok(is429((refused as PromiseRejectedResult).reason), 'two more do not fit the quota of 3');
    assert.equal(a!.status, 'fulfilled');
    assert.equal(e!.status, 'fulfilled');
    const [ra, re] = [(a as PromiseFulfilledResult<any>).value, (e as PromiseFulfilledResult<any>).value];
    assert.deepEqual(ra.reply, { limit: 3, used: 2, remaining: 1 });
    assert.deepEqual(
      re.reply,
      { limit: 3, used: 3, remaining: 0 },
      'decided on the state evolved by the command before it',
    );
    // One commit for the turn: same sequence, consecutive indexes, each command given its own events.
    assert.equal(ra.appended[0].seq, re.appended[0].seq);
    assert.deepEqual([ra.appended[0].index, re.appended[0].index], [0, 1]);
    assert.deepEqual(
      ra.appended[0].event.data.captures.map((c: { captureId: string }) => c.captureId),
      ['cap_a', 'cap_b'],
    );
    assert.equal(actors.stats().commits, 2);
    assert.equal((await store.readSubject(SUBJECT)).length, 3);
    assert.equal((await actors.read(T)).usage.captures, 3);
  });

  it('splits a long mailbox into turns of at most maxGroup commands', async () => {
    const gated = gatedStore(createInMemoryEventStore());
    const actors = runtimeOver(gated.store, { maxGroup: 2 });
    gated.hold();
    const first = actors.execute(T, apiCalls(1), meta);
    await settle();
    assert.equal(gated.waiting(), 1);
    const waiting = Promise.all([2, 3, 4, 5, 6].map((n) => actors.execute(T, apiCalls(n), meta)));
    gated.release();
    await first;
    const rest = await waiting;
    // Turns: [1], [2, 3], [4, 5], [6].
    assert.deepEqual(
      rest.map((r) => r.appended[0]!.index),
      [0, 1, 0, 1, 0],
    );
    assert.equal(actors.stats().commits, 4);
  });

  it('answers only after the commit carrying the command’s events is stored', async () => {
    const inner = createInMemoryEventStore();
    const gate = deferred();
    let held = 0;
    const actors = runtimeOver(
      withAppend(inner, async (append) => {
        held++;
        await gate.promise;
        return append();
      }),
    );
    let answered = false;
    const done = actors.execute(T, apiCalls(1), meta).then((r) => {
      answered = true;
      return r;
    });
    await settle();
    assert.equal(held, 1, 'the turn is at its append');
    assert.equal(answered, false);
    assert.equal(await inner.last(SUBJECT), null);
    gate.resolve();
    const r = await done;
    assert.deepEqual(r.appended, await inner.readSubject(SUBJECT));
  });

  it('answers a no-op without appending anything', async () => {
    const store = createInMemoryEventStore();
    const actors = runtimeOver(store);
    await actors.execute(T, quota(3), meta);
    const r = await actors.execute(T, quota(3), meta);
    assert.deepEqual(r.appended, []);
    assert.equal(actors.stats().commits, 1);
    assert.equal((await store.readSubject(SUBJECT)).length, 1);
  });
});

describe('actor runtime: optimistic concurrency', () => {
  it('on a conflict reloads from the log and decides again: an admission stays within the quota another process used', async () => {
    const store = createInMemoryEventStore();
    const a = runtimeOver(store);
    const b = runtimeOver(store);
    await a.execute(T, quota(2), meta);
    await b.read(T);
    await a.execute(T, submit('cap_1'), meta); // b's cell is now a commit behind
    // b decides on its stale state (1 left: admit), its append conflicts, it reloads and decides again: refused.
    await assert.rejects(b.execute(T, submit('cap_2', 'cap_3'), meta), is429);
    assert.equal(b.stats().conflicts, 1);
    // Its state holds no trace of the events that did not land, and the next admission fits exactly.
    assert.equal((await b.read(T)).usage.captures, 1);
    const r = await b.execute(T, submit('cap_4'), meta);
    assert.deepEqual(r.reply, { limit: 2, used: 2, remaining: 0 });
    const submitted = (await store.readSubject(SUBJECT)).filter((e) => e.event.type === 'capture.submitted');
    assert.equal(submitted.length, 2);
  });

  it('after a conflict the retry appends at the newest sequence and keeps the chain', async () => {
    const store = createInMemoryEventStore();
    const a = runtimeOver(store);
    const b = runtimeOver(store);
    await a.execute(T, quota(10), meta);
    await b.read(T);
    await a.execute(T, submit('cap_1'), meta);
    const r = await b.execute(T, submit('cap_2'), meta);
    assert.deepEqual(r.reply, { limit: 10, used: 2, remaining: 8 });
    assert.equal(b.stats().conflicts, 1);
    let prev: string | null = null;
    for (const e of await store.readSubject(SUBJECT)) {
      assert.equal(checkEnvelope(e.event, prev), null);
      prev = e.event.hash;
    }
  });

  it('gives up after maxAttempts conflicts with the ConcurrencyConflictError, and recovers on the next command', async () => {
    const inner = createInMemoryEventStore();
    let rivalry = true;
    let appends = 0;
    // Before each of our appends a rival commit lands on the subject, so every attempt conflicts.
    const store = withAppend(inner, async (append, subject) => {
      appends++;
      if (rivalry) {
        const head = await inner.last(subject);
        const rival: UnsealedEnvelope = {
          type: 'usage.api_calls_recorded',
          data: { period: '2026-11', count: 1 },
          id: newId('evt'),
          tenantId: T,
          occurredAt: NOW.toISOString(),
          schemaVersion: 1,
          causedBy: { kind: 'admin' },
          correlationId: 'rival',
        };
        await inner.append(subject, [rival], { expectedLastSeq: head?.seq ?? 0, prevHash: head?.event.hash ?? null });
      }
      return append();
    });
    const actors = runtimeOver(store, { maxAttempts: 3 });
    await assert.rejects(actors.execute(T, apiCalls(5), meta), (err) => err instanceof ConcurrencyConflictError);
    assert.equal(appends, 3);
    assert.equal(actors.stats().conflicts, 2, 'retried twice, then gave up');
    rivalry = false;
    const r = await actors.execute(T, apiCalls(6), meta);
    assert.equal(r.appended.length, 1);
    const events = await inner.readSubject(SUBJECT);
    assert.deepEqual(
      events.map((e) => e.event.correlationId),
      ['rival', 'rival', 'rival', 'unit'],
    );
  });

  it('fails every command of a turn whose append fails for another reason, and leaves no trace of their events', async () => {
    const inner = createInMemoryEventStore();
    let broken = false;
    const store = withAppend(inner, async (append) => {
      if (broken) throw new Error('the ledger is unavailable');
      return append();
    });
    const actors = runtimeOver(store);
    await actors.execute(T, quota(5), meta);
    broken = true;
    const first = actors.execute(T, apiCalls(1), meta);
    const turn = [actors.execute(T, submit('cap_1'), meta), actors.execute(T, submit('cap_2'), meta)];
    await assert.rejects(first, /the ledger is unavailable/);
    for (const p of turn) await assert.rejects(p, /the ledger is unavailable/);
    assert.equal(actors.stats().conflicts, 0);
    broken = false;
    assert.equal((await actors.read(T)).usage.captures, 0);
    assert.deepEqual((await actors.execute(T, submit('cap_3'), meta)).reply, { limit: 5, used: 1, remaining: 4 });
  });

  it('fails the commands of a turn whose read of the log fails, and hydrates on the next one', async () => {
    const inner = createInMemoryEventStore();
    await runtimeOver(inner).execute(T, quota(5), meta);
    let broken = true;
    const store: EventStore = {
      ...inner,
      last: async (subject) => {
        if (broken) throw new Error('no answer');
        return inner.last(subject);
      },
    };
    const actors = runtimeOver(store);
    await assert.rejects(actors.execute(T, submit('cap_1'), meta), /no answer/);
    broken = false;
    assert.deepEqual((await actors.execute(T, submit('cap_1'), meta)).reply, { limit: 5, used: 1, remaining: 4 });
  });
});

describe('actor runtime: a turn that appends nothing is checked against the newest log', () => {
  it('re-decides a no-op on a stale state: an outcome for a capture admitted by another process applies', async () => {
    const store = createInMemoryEventStore();
    const worker = runtimeOver(store);
    const api = runtimeOver(store);
    await worker.execute(T, quota(5), meta);
    await api.execute(T, submit('cap_1'), meta); // the worker's cell does not know cap_1
    const r = await worker.execute(T, fail('cap_1'), meta);
    assert.deepEqual(r.reply, { applied: true });
    assert.equal(r.appended.length, 1);
    assert.equal(r.appended[0]!.event.type, 'capture.failed');
    assert.equal(worker.stats().conflicts, 0, 'caught up before deciding again, not by a conflict');
  });

  it('re-decides a refusal on a stale state: a webhook registered through another process can be deleted', async () => {
    const store = createInMemoryEventStore();
    const a = runtimeOver(store);
    const b = runtimeOver(store);
    await a.read(T);
    await b.execute(
      T,
      {
        type: 'RegisterWebhook',
        data: {
          webhookId: 'whk_1',
          url: 'https://hooks.example.org/',
          events: ['capture.complete'],
          name: 'h',
          sealedSecret: 's',
        },
      },
      meta,
    );
    const r = await a.execute(T, { type: 'DeleteWebhook', data: { webhookId: 'whk_1' } }, meta);
    assert.equal(r.appended[0]!.event.type, 'webhook.deleted');
  });

  it('trusts a no-op or refusal decided on a state that is the newest', async () => {
    const store = createInMemoryEventStore();
    let lastReads = 0;
    const actors = runtimeOver({
      ...store,
      last: (s) => {
        lastReads++;
        return store.last(s);
      },
    });
    await actors.execute(T, quota(5), meta);
    const before = lastReads;
    assert.deepEqual((await actors.execute(T, fail('cap_unknown'), meta)).reply, { applied: false });
    await assert.rejects(
      actors.execute(T, { type: 'DeleteWebhook', data: { webhookId: 'whk_none' } }, meta),
      (err) => err instanceof DomainError && err.status === 404,
    );
    assert.equal(lastReads - before, 2, 'one look at the subject’s head per turn, and nothing more');
  });

  it('re-decides a whole turn that mixes appends with a stale no-op, from the log, as one commit', async () => {
    const inner = createInMemoryEventStore();
    const other = runtimeOver(inner);
    await other.execute(T, quota(5), meta);
    let rivalAfterNextAppend = false;
    // Right after the held turn's commit lands, another process admits cap_r: our cell is then one commit behind.
    const gated = gatedStore(
      withAppend(inner, async (append) => {
        const stored = await append();
        if (rivalAfterNextAppend) {
          rivalAfterNextAppend = false;
          await other.execute(T, submit('cap_r'), meta);
        }
        return stored;
      }),
    );
    const actors = runtimeOver(gated.store);
    gated.hold();
    rivalAfterNextAppend = true;
    const first = actors.execute(T, apiCalls(1), meta);
    await settle();
    assert.equal(gated.waiting(), 1);
    // The next turn: an append and a no-op on a state that will be stale when it starts.
    const turn = Promise.all([actors.execute(T, quota(7), meta), actors.execute(T, fail('cap_r'), meta)]);
    gated.release();
    await first;
    const [raised, failed] = await turn;
    assert.deepEqual(failed.reply, { applied: true });
    assert.equal(raised.appended[0]!.seq, failed.appended[0]!.seq, 'one commit');
    assert.equal(actors.stats().conflicts, 0);
    const state = await actors.read(T);
    assert.equal(state.overrides.capturesPerMonth, 7);
    assert.equal(state.pending.has('cap_r'), false);
    assert.equal(state.usage.captures, 1);
  });
});

describe('actor runtime: reads and hydration', () => {
  it('read() catches up with commits made elsewhere', async () => {
    const store = createInMemoryEventStore();
    const a = runtimeOver(store);
    const b = runtimeOver(store);
    await a.execute(T, quota(5), meta);
    assert.equal((await b.read(T)).overrides.capturesPerMonth, 5);
    await a.execute(T, quota(6), meta);
    assert.equal((await b.read(T)).overrides.capturesPerMonth, 6);
    assert.equal(b.stats().hydrations, 1);
  });

  it('hydrates a tenant by folding its subject, and again after passivation', async () => {
    const store = createInMemoryEventStore();
    const writer = runtimeOver(store);
    await writer.execute(T, quota(9), meta);
    await writer.execute(T, submit('cap_1', 'cap_2'), meta);
    await writer.execute(T, fail('cap_1'), meta);
    // Idle from the moment a turn ends (the runtime's sweeper may passivate it first; either way it is gone).
    const reader = runtimeOver(store, { idleMs: -1 });
    const state = await reader.read(T);
    assert.deepEqual([...state.pending.keys()], ['cap_2']);
    assert.equal(reader.stats().hydratedEvents, 3);
    reader.passivateIdle();
    assert.equal(reader.size(), 0);
    assert.deepEqual((await reader.execute(T, submit('cap_3'), meta)).reply, { limit: 9, used: 3, remaining: 6 });
    assert.equal(reader.stats().hydrations, 2);
  });

  it('hydrates from a snapshot the log confirms plus the tail, and folds the whole subject when the log does not confirm it', async () => {
    const store = createInMemoryEventStore();
    const kept = new Map<string, Uint8Array>();
    const snapshots: SnapshotStore = {
      get: async (key) => kept.get(key) ?? null,
      put: async (key, value) => void kept.set(key, value),
    };
    const writer = runtimeOver(store, { snapshots, snapshotEvery: 3 });
    await writer.execute(T, quota(50), meta);
    for (let i = 0; i < 6; i++) await writer.execute(T, submit(`cap_${i}`), meta);
    await settle(); // the snapshot writer's puts
    const snapshot = JSON.parse(new TextDecoder().decode(kept.get(T)!)) as ActorSnapshot;
    const commits = await store.readSubject(SUBJECT);
    assert.equal(snapshot.lastSeq, commits[5]!.seq, 'written once 3 events were folded since the last one');
    const truth = encodeTenantState(await runtimeOver(store).read(T));

    const reader = runtimeOver(store, { snapshots });
    assert.deepEqual(encodeTenantState(await reader.read(T)), truth);
    assert.equal(reader.stats().snapshotHits, 1);
    assert.equal(reader.stats().hydratedEvents, 1, 'only the tail after the snapshot');

    // A snapshot whose position is not in the log (a hash that does not match) is ignored.
    const { format: _f, digest: _d, ...fields } = snapshot;
    kept.set(T, encodeSnapshot(sealSnapshot({ ...fields, lastHash: 'f'.repeat(64) })));
    const problems: string[] = [];
    const doubter = runtimeOver(store, {
      snapshots,
      onSnapshotProblem: (_key, p) => problems.push(p.reason ?? String(p.error)),
    });
    assert.deepEqual(encodeTenantState(await doubter.read(T)), truth);
    assert.equal(doubter.stats().snapshotRejects, 1);
    assert.equal(doubter.stats().hydratedEvents, 7);
    assert.match(problems[0]!, /lastHash/);
  });
});
