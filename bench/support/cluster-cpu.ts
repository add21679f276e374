/**
 * CPU of the scaled layout's processes from /proc (Linux), per process: each role process with every process
 * under it (a worker's Chromium), each nats-server, and Postgres as its postmaster with every process under it.
 * A process's figure is utime + stime + cutime + cstime summed over it and its live descendants: what a child
 * spent moves into its parent's cutime + cstime when the parent reaps it, so the sum does not drop when a
 * renderer or a Postgres backend exits between two readings.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type LocalCluster, POSTGRES_DATA_DIR } from '../../src/infra/local-cluster.js';
import { descendants } from './process-memory.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime + cutime + cstime of one process in ms; 0 once it has gone. */
async function ownAndReapedMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return 0;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / TICKS_PER_SECOND;
}

/** CPU ms of `pid` and every live process under it, and of the children they have reaped. */
export async function treeCpuMs(pid: number): Promise<number> {
  const pids = [pid, ...(await descendants(pid)).map((d) => d.pid)];
  const each = await Promise.all(pids.map(ownAndReapedMs));
  return each.reduce((a, b) => a + b, 0);
}

/** A reading of each process: name → CPU ms so far. */
export type CpuReading = Map<string, number>;

export interface ClusterCpu {
  /** The processes' names: role processes (`api-1`, …), nats-servers, `postgres`. */
  names: string[];
  read(): Promise<CpuReading>;
}

/**
 * Meters for the processes running now. A role process killed and started again is a new process: a reading
 * spans one process's life only, so compare readings taken while no role was restarted.
 */
export async function clusterCpu(cluster: LocalCluster, dir: string): Promise<ClusterCpu> {
  const pids = new Map<string, number>();
  for (const p of cluster.processes) if (p.child?.pid) pids.set(p.name, p.child.pid);
  for (const node of cluster.nats.nodes) if (node.process?.pid) pids.set(node.name, node.process.pid);
  const postmaster = Number(
    (await readFile(join(dir, POSTGRES_DATA_DIR, 'postmaster.pid'), 'utf8')).split('\n')[0]!.trim(),
  );
  pids.set('postgres', postmaster);
  return {
    names: [...pids.keys()],
    async read() {
      const reading: CpuReading = new Map();
      await Promise.all([...pids].map(async ([name, pid]) => reading.set(name, await treeCpuMs(pid))));
      return reading;
    },
  };
}

/** CPU ms each process spent between two readings. */
export function cpuBetween(before: CpuReading, after: CpuReading): Map<string, number> {
  const spent = new Map<string, number>();
  for (const [name, ms] of after) spent.set(name, ms - (before.get(name) ?? ms));
  return spent;
}

/** A process name's role: `worker-2` → `worker`, `n1` (a nats-server) → `nats-server`. */
export function roleOf(name: string, natsNames: string[]): string {
  if (natsNames.includes(name)) return 'nats-server';
  return name.replace(/-\d+$/, '');
}
