import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '../src/infra/local-cluster.js';
import { envCount, round, sleep } from './support/bench-kit.js';
import { clusterCpu, cpuBetween } from './support/cluster-cpu.js';
import type { BenchLine } from './registry.js';

/**
 * Where the CPU of the scaled layout (`make cluster`: 3 nats-servers, Postgres, every role its own process) goes
 * while nothing is asked of it: each process's CPU over BENCH_IDLE_SECONDS (default 60) after a 20 s settle, as a
 * percentage of one core (bench/support/cluster-cpu.ts: a worker with its browser, Postgres with every process
 * under it). The role processes run the built dist/bundle/, or with BENCH_IDLE_FROM=source src/ through tsx, as
 * the tests start them.
 */
export async function clusterIdleBench(): Promise<BenchLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-idle-'));
  const compiled = process.env.BENCH_IDLE_FROM !== 'source';
  const cluster = await startLocalCluster({ dir, compiled, env: { SIGNING_KEY: 'none' } });
  const seconds = envCount('BENCH_IDLE_SECONDS', 60);
  const meters = await clusterCpu(cluster, dir);
  try {
    await sleep(20_000);
    const before = await meters.read();
    await sleep(seconds * 1000);
    const spent = cpuBetween(before, await meters.read());
    const natsNames = cluster.nats.nodes.map((n) => n.name);
    const lines: BenchLine[] = [];
    let total = 0;
    let nats = 0;
    for (const [name, used] of spent) {
      const percent = (100 * used) / (seconds * 1000);
      total += percent;
      if (natsNames.includes(name)) nats += percent;
      lines.push({ process: name, idleCpuPercent: round(percent, 2), cpuMsPerMinute: round((used * 60) / seconds, 0) });
    }
    lines.push({
      process: 'all',
      compiled,
      cpuMeter: meters.method,
      idleCpuPercent: round(total, 1),
      natsPercent: round(nats, 1),
      ratio: round(total / Math.max(nats, 0.01), 2),
    });
    return lines;
  } finally {
    await cluster.stop();
    await meters.close();
    await rm(dir, { recursive: true, force: true });
  }
}
