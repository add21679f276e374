import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '../src/infra/local-cluster.js';
import { clusterClient } from '../test/support/cluster-client.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { envCount, percentile, round, sleep } from './support/bench-kit.js';
import type { BenchLine } from './registry.js';

/**
 * On the `make cluster` layout (3 nats-servers, NATS_REPLICAS=3, roles in their own processes):
 * - failover gap: SIGKILL the nats-server leading LEDGER under a steady trickle of submissions; the gap is the
 *   time from the kill to the next accepted submission (p50/max over BENCH_FAILOVERS kills, default 5);
 * - captures/s with 1 worker process vs 2, same backlog of a small local page, in the same run;
 * - submissions/s through 1 API process vs both, same client concurrency, in the same run.
 */
export async function clusterScalingBench(): Promise<BenchLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-cluster-'));
  const site = await startFixtureSite();
  const cluster = await startLocalCluster({
    dir,
    env: {
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      RATE_LIMIT_IP_PER_MIN: '10000000',
      RATE_LIMIT_TENANT_PER_MIN: '10000000',
      CAPTURE_BACKLOG_MAX: '10000000',
      SIGNING_KEY: 'none',
    },
  });
  const client = clusterClient(cluster);
  const lines: BenchLine[] = [];
  try {
    // --- captures/s: 1 vs 2 worker processes ---
    const captureKey = await client.createTenantKey('bench-capture', 10_000_000);
    const captures = envCount('BENCH_CLUSTER_CAPTURES', 20);
    const throughput = async (label: string) => {
      const ids: string[] = [];
      const started = Date.now();
      for (let i = 0; i < captures; i++)
        ids.push((await client.submit(captureKey, site.url(`/simple?${label}=${i}`), cluster.apiUrls[i % 2]!)).id!);
      const done = await client.settle(captureKey, ids, 900_000);
      if (done.size < ids.length) throw new Error(`${label}: only ${done.size} of ${ids.length} captures finished`);
      return captures / ((Date.now() - started) / 1000);
    };
    await cluster.kill('worker-2', 'SIGTERM');
    const oneWorker = await throughput('w1');
    await cluster.start('worker-2');
    const twoWorkers = await throughput('w2');
    lines.push({
      metric: 'captures/s',
      oneWorker: round(oneWorker, 2),
      twoWorkers: round(twoWorkers, 2),
      ratio: round(twoWorkers / oneWorker, 2),
    });

    // --- submissions/s: 1 vs 2 API processes (targets fail fast: nothing listens on port 9; measured after the capture phase so their failing jobs do not queue ahead of it) ---
    // 3 tenants (the operator key endpoints allow 5 creations a minute), each served by one API process — as
    // with tenant affinity at the load balancer. One hot tenant sent to both processes is the worst case:
    // every turn meets the other's commit (OCC conflict and reload); docs/scaling.md gives that figure too.
    const keys: string[] = [];
    for (let t = 0; t < 3; t++) keys.push(await client.createTenantKey(`bench-submit-${t}`, 10_000_000));
    const submissions = envCount('BENCH_CLUSTER_SUBMISSIONS', 2000);
    const rate = async (bases: string[]) => {
      const started = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async (_, loop) => {
          const tenant = loop % keys.length;
          for (let i = next++; i < submissions; i = next++)
            await client.submit(keys[tenant]!, `http://127.0.0.1:9/s${i}`, bases[tenant % bases.length]!);
        }),
      );
      return submissions / ((Date.now() - started) / 1000);
    };
    await rate(cluster.apiUrls); // warm-up
    const oneApi = await rate([cluster.apiUrls[0]!]);
    const twoApis = await rate(cluster.apiUrls);
    lines.push({
      metric: 'submissions/s',
      oneApi: round(oneApi),
      twoApis: round(twoApis),
      ratio: round(twoApis / oneApi, 2),
    });

    // --- failover gap over leader kills ---
    const failKey = await client.createTenantKey('bench-failover', 10_000_000);
    const gaps: number[] = [];
    for (let k = 0; k < envCount('BENCH_FAILOVERS', 5); k++) {
      const leader = await cluster.nats.streamLeader('LEDGER');
      if (!leader) throw new Error('LEDGER has no leader');
      let acceptedAt = 0;
      const killedAt = Date.now();
      await cluster.nats.kill(leader);
      for (let i = 0; acceptedAt === 0; i++) {
        const r = await client.submit(failKey, `http://127.0.0.1:9/f${k}-${i}`, cluster.apiUrls[i % 2]!);
        if (r.status === 202) acceptedAt = Date.now();
        else await sleep(50);
        if (Date.now() - killedAt > 120_000) throw new Error('no submission accepted within 120 s of the kill');
      }
      gaps.push(acceptedAt - killedAt);
      await cluster.nats.start(leader);
      await sleep(5000); // let the restarted node catch up before the next kill
    }
    lines.push({
      metric: 'failover gap ms',
      kills: gaps.length,
      p50: percentile(gaps, 50),
      max: Math.max(...gaps),
      gaps,
    });
    return lines;
  } finally {
    await cluster.stop();
    await site.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
