import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '../src/infra/local-cluster.js';
import { clusterClient } from '../test/support/cluster-client.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { runNatsChaos } from '../test/support/nats-chaos-scenario.js';
import type { BenchLine } from './registry.js';

/**
 * Evidence through many NATS node kills (test/support/nats-chaos-scenario.ts): the scaled layout,
 * NATS_CHAOS_KILLS SIGKILLs of nats-servers one at a time (default 30) with captures submitted while a node is
 * down; every completed capture's bundle must verify and `storage verify` must find every artifact whole.
 */
export async function natsChaosBench(): Promise<BenchLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-chaos-'));
  const site = await startFixtureSite();
  const cluster = await startLocalCluster({
    dir,
    env: {
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      RATE_LIMIT_IP_PER_MIN: '100000',
      RATE_LIMIT_TENANT_PER_MIN: '100000',
      CAPTURE_TIMEOUT_MS: '30000',
      WORKER_CONCURRENCY: '2',
    },
  });
  try {
    const kills = Number(process.env['NATS_CHAOS_KILLS'] ?? 30);
    const r = await runNatsChaos(cluster, clusterClient(cluster), site, {
      tenant: 'chaos',
      kills,
      capturesPerKill: 2,
      downMs: 2000,
    });
    return [
      {
        case: 'nats-chaos',
        kills: r.kills,
        submitted: r.submitted,
        complete: r.complete,
        failed: r.failed,
        unsettled: r.unsettled,
        notVerified: r.notVerified.length,
        storageVerifyExit: r.storageVerify.code,
        storageMissing: r.storageVerify.summary?.['missing'] ?? null,
        storageCorrupt: r.storageVerify.summary?.['corrupt'] ?? null,
        replicaStepdowns: r.interventions.filter((i) => i.action === 'leader-stepdown').length,
        nodeRestarts: r.interventions.filter((i) => i.action === 'node-restart').length,
        seconds: r.seconds,
      },
    ];
  } finally {
    await cluster.stop();
    await site.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
