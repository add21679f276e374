import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LocalCluster } from '../../src/infra/local-cluster.js';
import { startTestCluster } from '../support/test-cluster.js';
import { type ClusterClient, clusterClient } from '../support/cluster-client.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { runNatsChaos } from '../support/nats-chaos-scenario.js';

/**
 * The ledger held through NATS node kills, the evidence did not (a filtered purge replayed as a full
 * one, nats-server #4196). Ten SIGKILLs of nats-servers, one at a time, with captures submitted while a node is
 * down; then every completed capture's bundle verifies and `capture-ledger storage verify` finds everything the
 * ledger names. Modest on purpose (a busy 2-core host); `BENCH=nats-chaos make bench` runs longer.
 */
describe('evidence through repeated NATS node kills', () => {
  let dir: string;
  let cluster: LocalCluster;
  let client: ClusterClient;
  let site: FixtureSite;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-nats-chaos-'));
    site = await startFixtureSite();
    cluster = await startTestCluster({
      dir,
      apis: 1,
      workers: 1,
      signers: 1,
      sequencers: 1,
      env: {
        ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
        RATE_LIMIT_IP_PER_MIN: '100000',
        RATE_LIMIT_TENANT_PER_MIN: '100000',
        CAPTURE_TIMEOUT_MS: '30000',
        WORKER_CONCURRENCY: '1',
      },
    });
    client = clusterClient(cluster);
  });
  after(async () => {
    await cluster?.stop();
    await site?.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  });

  it('every completed capture keeps a bundle that verifies and artifacts that read back whole after 10 node kills', async () => {
    const r = await runNatsChaos(cluster, client, site, {
      tenant: 'chaos',
      kills: 10,
      capturesPerKill: 1,
      downMs: 2000,
    });
    process.stdout.write(`# nats chaos: ${JSON.stringify({ ...r, notVerified: r.notVerified.length })}\n`);
    assert.equal(r.unsettled, 0, 'every acknowledged capture reached complete or failed');
    assert.ok(r.complete >= 1, 'captures completed through the kills');
    assert.deepEqual(r.notVerified, [], 'every completed capture verifies and its screenshot downloads');
    assert.equal(r.storageVerify.code, 0, r.storageVerify.problems.join('\n'));
    assert.equal(r.storageVerify.summary?.['missing'], 0);
    assert.equal(r.storageVerify.summary?.['corrupt'], 0);
    assert.ok(Number(r.storageVerify.summary?.['captures']) >= r.complete);
  });
});
