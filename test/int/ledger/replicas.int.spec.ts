import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKvRateLimiter } from '../../../src/api/kv-rate-limiter.js';
import { openArtifactStore } from '../../../src/storage/jetstream-artifact-store.js';
import { connectNats } from '../../../src/infra/nats.js';
import { type NatsCluster, startNatsCluster } from '../../../src/infra/nats-cluster.js';
import { projectRoot } from '../../../src/infra/project-root.js';
import { ReplicasError } from '../../../src/ledger/streams.js';
import { startNatsOnly } from '../../support/harness.js';
import { serviceArgs } from '../../support/service-entry.js';

/** NATS_REPLICAS is configuration: applied at creation, raised at start, refused when impossible. */
describe('NATS_REPLICAS', () => {
  let dir: string;
  let cluster: NatsCluster;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-replicas-'));
    cluster = await startNatsCluster({ dir });
  });
  after(async () => {
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates streams and buckets with one replica, then raises every one of them when the setting changes', async () => {
    const first = await connectNats(cluster.url, 'r1', { replicas: 1 });
    await openArtifactStore(first.nc, 1);
    await createKvRateLimiter(first.nc, { replicas: 1 });
    const names = ['LEDGER', 'JOBS', 'DELIVERIES', 'OBJ_artifacts', 'KV_ratelimits'];
    for (const name of names) assert.equal((await first.jsm.streams.info(name)).config.num_replicas, 1, name);
    await first.nc.close();

    const second = await connectNats(cluster.url, 'r3', { replicas: 3 });
    await openArtifactStore(second.nc, 3);
    await createKvRateLimiter(second.nc, { replicas: 3 });
    for (const name of names) assert.equal((await second.jsm.streams.info(name)).config.num_replicas, 3, name);
    await second.nc.close();
  });

  it('refuses more replicas than the cluster has, naming the variable', async () => {
    await assert.rejects(
      connectNats(cluster.url, 'r5', { replicas: 5 }),
      (err: Error) => err instanceof ReplicasError && /NATS_REPLICAS=5/.test(err.message),
    );
  });

  it('refuses replicas > 1 on a server that is not clustered, and the service exits 2 saying why', async () => {
    const single = await startNatsOnly();
    try {
      await assert.rejects(
        connectNats(single.nats.url, 'single', { replicas: 3 }),
        (err: Error) => err instanceof ReplicasError && /NATS_REPLICAS=3/.test(err.message),
      );
      const child = spawn(process.execPath, serviceArgs(), {
        cwd: projectRoot,
        env: {
          ...process.env,
          NATS_URL: single.nats.url,
          DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
          NATS_REPLICAS: '3',
          ROLES: 'projector',
          DATA_DIR: single.dir,
          LOG_LEVEL: 'fatal',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 2, stderr);
      assert.match(stderr, /NATS_REPLICAS=3 needs a NATS cluster/);
    } finally {
      await single.stop();
    }
  });
});
