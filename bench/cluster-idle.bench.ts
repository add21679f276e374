import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_DATA_DIR, startLocalCluster } from '../src/infra/local-cluster.js';
import { envCount, round, sleep } from './support/bench-kit.js';
import type { BenchLine } from './registry.js';

/** The fields of /proc/<pid>/stat after the command name, or null once the process has gone. */
async function statFields(pid: number): Promise<string[] | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : null;
}

/** utime + stime in ms; with `children`, also the CPU of its children that have exited (cutime + cstime). */
async function cpuMs(pid: number, children = false): Promise<number> {
  const f = await statFields(pid);
  if (!f) return 0;
  const ticks = Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
  return (ticks * 1000) / 100; // USER_HZ
}

/** Postgres: the postmaster, the children it waited for, and the backends and workers running now. */
async function postgresCpuMs(postmaster: number): Promise<number> {
  const children = await readFile(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').catch(() => '');
  let total = await cpuMs(postmaster, true);
  for (const pid of children.trim().split(/\s+/).filter(Boolean)) total += await cpuMs(Number(pid));
  return total;
}

/**
 * Where the CPU of the scaled layout (`make cluster`: 3 nats-servers, Postgres, every role its own process) goes
 * while nothing is asked of it: each process's CPU over BENCH_IDLE_SECONDS (default 60) after a 20 s settle, as a
 * percentage of one core; Postgres as the postmaster and every process under it. The role processes run the built
 * dist/bundle/, or with BENCH_IDLE_FROM=source src/ through tsx, as the tests start them.
 */
export async function clusterIdleBench(): Promise<BenchLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-idle-'));
  const compiled = process.env.BENCH_IDLE_FROM !== 'source';
  const cluster = await startLocalCluster({ dir, compiled, env: { SIGNING_KEY: 'none' } });
  const seconds = envCount('BENCH_IDLE_SECONDS', 60);
  try {
    await sleep(20_000);
    const meters = new Map<string, () => Promise<number>>();
    for (const p of cluster.processes) {
      const pid = p.child?.pid;
      if (pid) meters.set(p.name, () => cpuMs(pid));
    }
    for (const node of cluster.nats.nodes) {
      const pid = node.process?.pid;
      if (pid) meters.set(node.name, () => cpuMs(pid));
    }
    const postmaster = Number(
      (await readFile(join(dir, POSTGRES_DATA_DIR, 'postmaster.pid'), 'utf8')).split('\n')[0]!.trim(),
    );
    meters.set('postgres', () => postgresCpuMs(postmaster));
    const before = new Map<string, number>();
    for (const [name, meter] of meters) before.set(name, await meter());
    await sleep(seconds * 1000);
    const lines: BenchLine[] = [];
    let total = 0;
    let nats = 0;
    for (const [name, meter] of meters) {
      const used = (await meter()) - before.get(name)!;
      const percent = (100 * used) / (seconds * 1000);
      total += percent;
      if (cluster.nats.nodes.some((n) => n.name === name)) nats += percent;
      lines.push({ process: name, idleCpuPercent: round(percent, 2), cpuMsPerMinute: round((used * 60) / seconds, 0) });
    }
    lines.push({
      process: 'all',
      compiled,
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
