import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type JetStreamManager,
  type StreamConfig,
  StorageType,
} from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { openArtifactStore } from '../../src/storage/jetstream-artifact-store.js';
import { type NatsCluster, startNatsCluster } from '../../src/infra/nats-cluster.js';
import { replicatedStreamBugsOf } from '../../src/infra/nats-server-version.js';
import { startEmbeddedNats } from '../../src/infra/embedded-nats.js';
import { stopChild } from '../../src/infra/stop-child.js';

/**
 * Nats-server before 2.9.21 replays a subject-filtered purge (PurgeEx) recorded in a replicated
 * stream's raft log as a full purge up to that purge's sequence when the stream recovers after a restart
 * (nats-server #4196). This file shows the server doing it on the 3-node cluster, and shows that the same
 * rolling restart costs our artifact store (which never purges) nothing.
 */

const STEP_DOWN = (stream: string) => `$JS.API.STREAM.LEADER.STEPDOWN.${stream}`;

async function waitFor<T>(
  what: string,
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** JetStream's answer while a cluster that has just started has not all its peers yet. */
const NO_SUITABLE_PEERS = 10005;

/** Adds a replicated stream once the cluster can place it: every node has joined JetStream's meta group. */
async function addReplicated(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      return await jsm.streams.add(config);
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === NO_SUITABLE_PEERS) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** The stream has a leader and every replica is current. */
async function healthy(jsm: JetStreamManager, stream: string) {
  return waitFor(`${stream} to have a leader and current replicas`, async () => {
    const info = await jsm.streams.info(stream);
    const replicas = info.cluster?.replicas ?? [];
    return info.cluster?.leader && replicas.length === 2 && replicas.every((r) => r.current) ? info : null;
  });
}

/** SIGKILL each node and start it again, one at a time, as a rolling upgrade or an unlucky week would. */
async function rollingRestart(cluster: NatsCluster, jsm: JetStreamManager, streams: string[]) {
  for (const node of cluster.nodes) {
    await cluster.kill(node.name, 'SIGKILL');
    await cluster.start(node.name);
    for (const s of streams) await healthy(jsm, s);
  }
}

/** The stream's state as each node sees it: the leader's answer, leadership moved until every node has led. */
async function viewsOfEveryNode(nc: NatsConnection, jsm: JetStreamManager, stream: string) {
  const views = new Map<string, { messages: number; firstSeq: number }>();
  for (let i = 0; i < 30 && views.size < 3; i++) {
    const info = await healthy(jsm, stream);
    views.set(info.cluster!.leader!, { messages: info.state.messages, firstSeq: info.state.first_seq });
    await nc.request(STEP_DOWN(stream), '', { timeout: 10_000 }).catch(() => undefined);
  }
  return views;
}

describe('a filtered purge and a node restart on a replicated stream (nats-server #4196)', () => {
  let dir: string;
  let cluster: NatsCluster;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let version: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-purge-replay-'));
    cluster = await startNatsCluster({ dir });
    nc = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    jsm = await jetstreamManager(nc, { timeout: 10_000 });
    version = nc.info!.version;
  });
  after(async () => {
    await nc?.close().catch(() => undefined);
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  });

  it('the server: a purge of one subject, a rolling restart, and on an affected release the front of the stream is gone', async () => {
    const js = jetstream(nc, { timeout: 10_000 });
    await addReplicated(jsm, { name: 'REPRO', subjects: ['repro.>'], storage: StorageType.File, num_replicas: 3 });
    for (let i = 0; i < 20; i++) await js.publish(i % 2 ? 'repro.kept' : 'repro.purged', `m${i}`);
    const purge = await jsm.streams.purge('REPRO', { filter: 'repro.purged' });
    assert.equal(purge.purged, 10);
    await js.publish('repro.kept', 'after the purge');
    assert.equal(
      (await jsm.streams.info('REPRO')).state.messages,
      11,
      'before any restart: 10 kept messages and one more',
    );

    await rollingRestart(cluster, jsm, ['REPRO']);
    const views = await viewsOfEveryNode(nc, jsm, 'REPRO');
    const lost = [...views].filter(([, v]) => v.messages < 11);
    console.log(
      `nats-server ${version}, after a rolling restart, REPRO as each node leads it: ${JSON.stringify(Object.fromEntries(views))}`,
    );
    if (replicatedStreamBugsOf(version).some((b) => b.id === 'nats-server #4196')) {
      // The purge of repro.purged (sequences 1-20) was replayed as a full purge up to 20: the 10 kept messages went with it.
      assert.ok(
        lost.length > 0,
        `nats-server ${version} is listed as affected, but no node lost messages: ${JSON.stringify([...views])}`,
      );
      for (const [, v] of lost) assert.deepEqual(v, { messages: 1, firstSeq: 21 });
    } else {
      assert.deepEqual(lost, [], 'a fixed release loses nothing');
    }
  });

  it('our artifact store: writes (one cut short), the same rolling restart, and every object reads back on every node', async () => {
    // Just after the stepdowns above the JetStream API may not answer for a moment: open once it does.
    const store = await waitFor('the artifact store to open', () => openArtifactStore(nc, 3));
    const objects = new Map<string, Uint8Array>();
    for (let i = 0; i < 6; i++) {
      // Multi-chunk objects and a small one: the store writes 128 KiB chunks.
      const bytes = new Uint8Array(i === 0 ? 10 : 300_000 + i).map((_, k) => (k * 7 + i) & 0xff);
      objects.set(`cap_test/attempt-${i}/screenshot`, bytes);
      await store.put(`cap_test/attempt-${i}/screenshot`, bytes);
    }
    // A write cut short: chunks published, no meta. Left in place for a later, safe clean-up; never purged.
    await jetstream(nc).publish('$O.artifacts.C.partial-write', new Uint8Array(1000));
    assert.equal(await store.get('cap_test/never-finished'), null);
    // Writing a name again with the same bytes is a no-op; with other bytes it is refused (write-once).
    const [name0, bytes0] = [...objects][1]!;
    await store.put(name0, bytes0);
    await assert.rejects(store.put(name0, new Uint8Array(5)), /write-once/);
    const before = (await jsm.streams.info('OBJ_artifacts')).state;

    await rollingRestart(cluster, jsm, ['OBJ_artifacts']);
    const views = await viewsOfEveryNode(nc, jsm, 'OBJ_artifacts');
    for (const [node, v] of views)
      assert.deepEqual(v, { messages: before.messages, firstSeq: before.first_seq }, `${node} lost nothing`);
    for (let round = 0; round < 3; round++) {
      for (const [name, bytes] of objects) {
        const check = await store.check(name);
        assert.equal(check.status, 'ok', `${name}: ${JSON.stringify(check)}`);
        assert.deepEqual(Buffer.from((await store.get(name))!), Buffer.from(bytes));
      }
      await nc.request(STEP_DOWN('OBJ_artifacts'), '', { timeout: 10_000 }).catch(() => undefined);
      await healthy(jsm, 'OBJ_artifacts');
    }
  });
});

describe('a filtered purge and a restart on a single node (R1, the embedded server of make run)', () => {
  it('an R1 stream does not replay the purge through raft: nothing else is lost', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cl-purge-r1-'));
    let nats = await startEmbeddedNats(dir);
    try {
      let nc = await connect({ servers: nats.url });
      const jsm = await jetstreamManager(nc);
      const js = jetstream(nc);
      await jsm.streams.add({ name: 'REPRO', subjects: ['repro.>'], storage: StorageType.File, num_replicas: 1 });
      for (let i = 0; i < 20; i++) await js.publish(i % 2 ? 'repro.kept' : 'repro.purged', `m${i}`);
      await jsm.streams.purge('REPRO', { filter: 'repro.purged' });
      await js.publish('repro.kept', 'after the purge');
      await nc.close();
      await stopChild(nats.process, 'SIGKILL');
      nats = await startEmbeddedNats(dir, { port: nats.port });
      nc = await connect({ servers: nats.url });
      const state = (await (await jetstreamManager(nc)).streams.info('REPRO')).state;
      await nc.close();
      assert.equal(state.messages, 11);
    } finally {
      await nats.stop();
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  });
});
