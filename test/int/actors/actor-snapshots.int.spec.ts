import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ActorSnapshot, encodeSnapshot, sealSnapshot } from '../../../src/actors/actor-snapshot.js';
import {
  openExistingSnapshotStore,
  openSnapshotStore,
  SNAPSHOT_BUCKET,
  type SnapshotStore,
} from '../../../src/actors/snapshot-store.js';
import { createTenantActors } from '../../../src/actors/tenant-actors.js';
import { DomainError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import { encodeTenantState, TENANT_STATE_VERSION } from '../../../src/domain/tenant/index.js';
import type { NatsHandles } from '../../../src/infra/nats.js';
import { checkEnvelope, type EventEnvelope } from '../../../src/ledger/envelope.js';
import { createEventStore, type EventStore } from '../../../src/ledger/event-store.js';
import { tenantSubject } from '../../../src/ledger/streams.js';
import { startNatsWithTwoClients } from '../../support/harness.js';

const ctx = { correlationId: 'test', causedBy: { kind: 'admin' as const } };
type Tenants = ReturnType<typeof createTenantActors>;

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `n` turns of a realistic mix: submissions, completions of some, API call counts. */
async function writeHistory(tenants: Tenants, tenantId: string, n: number): Promise<void> {
  await tenants.execute(
    tenantId,
    { type: 'SetQuotaOverrides', data: { capturesPerMonth: 1_000_000, storageBytes: null } },
    ctx,
  );
  for (let i = 1; i < n; i++) {
    if (i % 3 === 0) {
      const id = [...(await tenants.read(tenantId)).pending.keys()][0];
      await tenants.execute(
        tenantId,
        id
          ? {
              type: 'CompleteCapture',
              data: {
                captureId: id,
                completedAt: new Date().toISOString(),
                renderQuality: 'full',
                render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
                artifacts: { screenshot: 's', html: 'h' },
                storedBytes: 1000 + i,
                attempts: 1,
              },
            }
          : { type: 'RecordApiCalls', data: { period: '2026-11', count: 1 } },
        ctx,
      );
    } else if (i % 7 === 0) {
      await tenants.execute(tenantId, { type: 'RecordApiCalls', data: { period: '2026-11', count: i } }, ctx);
    } else {
      await tenants.execute(
        tenantId,
        {
          type: 'SubmitCaptures',
          data: { captures: [{ captureId: newId('cap'), url: `https://example.org/${i}` }], source: 'single' },
        },
        ctx,
      );
    }
  }
}

const readSnapshot = async (snapshots: SnapshotStore, key: string): Promise<ActorSnapshot | null> => {
  const bytes = await snapshots.get(key);
  return bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as ActorSnapshot) : null;
};

describe('tenant actor snapshots (real nats-server)', () => {
  let nats: Awaited<ReturnType<typeof startNatsWithTwoClients>>;
  let a: NatsHandles;
  let b: NatsHandles;
  let store: EventStore;
  let snapshots: SnapshotStore;
  /** The truth to compare with: a runtime without snapshots folds the whole subject. */
  const fullFold = async (tenantId: string) => {
    const plain = createTenantActors(store);
    try {
      return encodeTenantState(await plain.read(tenantId));
    } finally {
      plain.close();
    }
  };

  before(async () => {
    nats = await startNatsWithTwoClients();
    ({ a, b } = nats);
    store = createEventStore(a.js, a.jsm);
    snapshots = await openSnapshotStore(a.nc, { replicas: 1 });
  });
  after(async () => {
    await nats?.stop();
  });

  it('keeps snapshots in a KV bucket of one value per tenant; operator tools open it only if it exists', async () => {
    const info = await a.jsm.streams.info(`KV_${SNAPSHOT_BUCKET}`);
    assert.equal(info.config.max_msgs_per_subject, 1);
    assert.equal(info.config.num_replicas, 1);
    assert.equal(await openExistingSnapshotStore(a.nc, 'no-such-bucket'), null);
    assert.notEqual(await openExistingSnapshotStore(a.nc), null);
  });

  it('hydrates from the newest snapshot and folds only the tail, to the same state as the full fold', async () => {
    const writer = createTenantActors(store, { snapshots, snapshotEvery: 40 });
    await writeHistory(writer, 'snap', 130);
    writer.close();
    assert.ok(writer.stats().snapshotWrites >= 3, `writes: ${writer.stats().snapshotWrites}`);
    // More events from a process without snapshots: the tail grows past the snapshot.
    const other = createTenantActors(createEventStore(b.js, b.jsm));
    await writeHistory(other, 'snap', 9);
    other.close();

    const snap = await waitFor('a snapshot', () => readSnapshot(snapshots, 'snap'));
    const events = await store.readSubject(tenantSubject('snap'));
    const tail = events.filter((e) => e.seq > snap.lastSeq).length;
    assert.ok(tail >= 9 && tail < events.length / 2, `tail ${tail} of ${events.length}`);

    const reader = createTenantActors(store, { snapshots, snapshotEvery: 1000 });
    const state = encodeTenantState(await reader.read('snap'));
    reader.close();
    assert.deepEqual(reader.stats().snapshotHits, 1);
    assert.equal(reader.stats().hydratedEvents, tail);
    assert.deepEqual(state, await fullFold('snap'));
  });

  it('ignores a corrupted or stale snapshot — altered, older state version, a sequence the log lacks, another subject, a hash mismatch — and folds the log', async () => {
    const writer = createTenantActors(store);
    await writeHistory(writer, 'victim', 20);
    await writeHistory(writer, 'neighbour', 3);
    await writeHistory(writer, 'victim', 10);
    writer.close();
    const events = await store.readSubject(tenantSubject('victim'));
    const head = events.at(-1)!;
    const mid = events[10]!;
    const neighbourSeq = (await store.last(tenantSubject('neighbour')))!.seq;
    assert.ok(neighbourSeq < head.seq);
    const truth = await fullFold('victim');
    // Every bad snapshot claims a state that would admit more: no usage and a huge quota.
    const lie = {
      ...truth,
      usage: { period: truth.usage.period, captures: 0, storageBytes: 0 },
      overrides: { capturesPerMonth: 10 ** 9, storageBytes: null },
    };
    const sealed = (over: Partial<Omit<ActorSnapshot, 'format' | 'digest'>>) =>
      sealSnapshot({
        key: 'victim',
        stateVersion: TENANT_STATE_VERSION,
        lastSeq: head.seq,
        lastHash: head.event.hash,
        takenAt: new Date().toISOString(),
        state: lie,
        ...over,
      });
    const altered = {
      ...sealSnapshot({
        key: 'victim',
        stateVersion: TENANT_STATE_VERSION,
        lastSeq: head.seq,
        lastHash: head.event.hash,
        takenAt: new Date().toISOString(),
        state: truth,
      }),
      state: lie,
    };
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ['altered after sealing', encodeSnapshot(altered), /digest/],
      ['not JSON', new TextEncoder().encode('{"format":1,'), /not JSON/],
      ['older state version', encodeSnapshot(sealed({ stateVersion: TENANT_STATE_VERSION - 1 })), /stale/],
      ['a sequence past the log', encodeSnapshot(sealed({ lastSeq: head.seq + 1000 })), /does not have it/],
      ["another subject's sequence", encodeSnapshot(sealed({ lastSeq: neighbourSeq })), /not a commit of this subject/],
      [
        'a hash mismatch',
        encodeSnapshot(sealed({ lastSeq: mid.seq, lastHash: head.event.hash })),
        /does not match the hash/,
      ],
      ['another key', encodeSnapshot(sealed({ key: 'neighbour' })), /not victim/],
    ];
    for (const [name, bytes, reason] of cases) {
      await snapshots.put('victim', bytes);
      const problems: string[] = [];
      const reader = createTenantActors(store, {
        snapshots,
        snapshotEvery: 10_000,
        onSnapshotProblem: (_k, p) => problems.push(p.reason ?? String(p.error)),
      });
      const state = encodeTenantState(await reader.read('victim'));
      reader.close();
      assert.equal(reader.stats().snapshotHits, 0, name);
      assert.equal(reader.stats().snapshotRejects, 1, name);
      assert.match(problems.join('; '), reason, name);
      assert.equal(reader.stats().hydratedEvents, events.length, `${name}: the whole subject was folded`);
      assert.deepEqual(state, truth, name);
    }

    // A rejected snapshot is replaced by a good one once enough is folded.
    const healer = createTenantActors(store, { snapshots, snapshotEvery: 10 });
    await healer.read('victim');
    healer.close();
    await waitFor('a fresh snapshot', async () => {
      const s = await readSnapshot(snapshots, 'victim');
      return s?.stateVersion === TENANT_STATE_VERSION && s.lastSeq === head.seq && s.lastHash === head.event.hash;
    });
    await waitFor('the healed snapshot to be trusted', async () => {
      const reader = createTenantActors(store, { snapshots });
      const state = encodeTenantState(await reader.read('victim'));
      reader.close();
      assert.deepEqual(state, truth);
      return reader.stats().snapshotHits === 1 && reader.stats().hydratedEvents === 0;
    });
  });

  it('keeps the quota exact with snapshots: two runtimes, one tenant, concurrent submissions', async () => {
    const seed = createTenantActors(store, { snapshots, snapshotEvery: 5 });
    await writeHistory(seed, 'race', 40);
    const used = (await seed.read('race')).usage.captures ?? 0;
    await seed.execute(
      'race',
      { type: 'SetQuotaOverrides', data: { capturesPerMonth: used + 37, storageBytes: null } },
      ctx,
    );
    seed.close();
    await waitFor('a snapshot', () => readSnapshot(snapshots, 'race'));
    const before = (await store.readSubject(tenantSubject('race'))).filter(
      (e) => e.event.type === 'capture.submitted',
    ).length;

    const runtimeA = createTenantActors(store, { snapshots, snapshotEvery: 5 });
    const runtimeB = createTenantActors(createEventStore(b.js, b.jsm), {
      snapshots: await openSnapshotStore(b.nc),
      snapshotEvery: 5,
    });
    // Both hydrated (from the snapshot) at the same sequence: their first appends collide.
    await Promise.all([runtimeA.read('race'), runtimeB.read('race')]);
    const results = await Promise.allSettled(
      Array.from({ length: 120 }, (_, i) =>
        (i % 2 ? runtimeA : runtimeB).execute(
          'race',
          {
            type: 'SubmitCaptures',
            data: { captures: [{ captureId: newId('cap'), url: 'https://example.org/' }], source: 'single' },
          },
          ctx,
        ),
      ),
    );
    runtimeA.close();
    runtimeB.close();
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 37);
    assert.ok(
      results.every(
        (r) =>
          r.status === 'fulfilled' ||
          ((r as PromiseRejectedResult).reason instanceof DomainError &&
            (r as PromiseRejectedResult).reason.status === 429),
      ),
    );

    const events = await store.readSubject(tenantSubject('race'));
    assert.equal(events.filter((e) => e.event.type === 'capture.submitted').length - before, 37);
    let prev: string | null = null;
    for (const e of events) {
      assert.equal(checkEnvelope(e.event as EventEnvelope, prev), null);
      prev = e.event.hash;
    }
    const stats = [runtimeA.stats(), runtimeB.stats()];
    assert.ok(stats[0]!.conflicts + stats[1]!.conflicts > 0, 'the two runtimes really raced');
    const conflicts = stats[0]!.conflicts + stats[1]!.conflicts;
    // Two cold hydrations, then a reload per conflict: every one started from a snapshot.
    assert.ok(
      stats[0]!.snapshotHits + stats[1]!.snapshotHits >= 2 + conflicts,
      `reloads started from snapshots: ${JSON.stringify(stats)}`,
    );
    assert.equal(stats[0]!.snapshotRejects + stats[1]!.snapshotRejects, 0);
    // Whatever snapshot the race left behind agrees with the log.
    const reader = createTenantActors(store, { snapshots });
    assert.deepEqual(encodeTenantState(await reader.read('race')), await fullFold('race'));
    reader.close();
  });

  it('snapshots on passivation, so the next hydration reads one snapshot and folds nothing', async () => {
    const runtime = createTenantActors(store, { snapshots, idleMs: 1, snapshotEvery: 10_000 });
    await writeHistory(runtime, 'sleepy', 12);
    const head = (await store.last(tenantSubject('sleepy')))!;
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(runtime.passivateIdle(), 1);
    await waitFor(
      'the passivation snapshot',
      async () => (await readSnapshot(snapshots, 'sleepy'))?.lastSeq === head.seq,
    );
    const state = encodeTenantState(await runtime.read('sleepy'));
    runtime.close();
    assert.equal(runtime.stats().snapshotHits, 1);
    assert.equal(runtime.stats().hydratedEvents, 0);
    assert.deepEqual(state, await fullFold('sleepy'));
  });
});
