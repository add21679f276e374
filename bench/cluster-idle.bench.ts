import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '../src/infra/local-cluster.js';
import { envCount, round, sleep } from './support/bench-kit.js';
import type { BenchLine } from './registry.js';

async function cpuMs(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return null;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/**
 * Where the CPU of the scaled layout (`make cluster`: 3 nats-servers, every role its own process, the built dist/bundle/)
 * goes while nothing is asked of it: each process's CPU over BENCH_IDLE_SECONDS (default 60) after a 20 s settle,
 * as a percentage of one core. Baseline in the same run: the nats-servers themselves.
 */
export async function clusterIdleBench(): Promise<BenchLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-idle-'));
  const cluster = await startLocalCluster({ dir, compiled: true, env: { SIGNING_KEY: 'none' } });
  const seconds = envCount('BENCH_IDLE_SECONDS', 60);
  try {
    await sleep(20_000);
    const pids = new Map<string, number>();
    for (const p of cluster.processes) if (p.child?.pid) pids.set(p.name, p.child.pid);
    for (const node of cluster.nats.nodes) if (node.process?.pid) pids.set(node.name, node.process.pid);
    const before = new Map<string, number>();
    for (const [name, pid] of pids) before.set(name, (await cpuMs(pid)) ?? 0);
    await sleep(seconds * 1000);
    const lines: BenchLine[] = [];
    let total = 0;
    let nats = 0;
    for (const [name, pid] of pids) {
      const used = ((await cpuMs(pid)) ?? 0) - before.get(name)!;
      const percent = (100 * used) / (seconds * 1000);
      total += percent;
      if (cluster.nats.nodes.some((n) => n.name === name)) nats += percent;
      lines.push({ process: name, idleCpuPercent: round(percent, 2), cpuMsPerMinute: round((used * 60) / seconds, 0) });
    }
    lines.push({
      process: 'all',
      idleCpuPercent: round(total, 1),
      natsPercent: round(nats, 1),
      ratio: round(total / Math.max(nats, 0.01), 2),
    });
    return lines;
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
