/**
 * CPU of the scaled layout's processes, per process: each role process with every process under it (a worker's
 * Chromium), each nats-server, and Postgres with every process under it.
 *
 * Where cgroup v1's cpuacct is mounted and writable (root on this machine), each process and the processes it has
 * started so far are moved into a cpuacct group of their own, and what the kernel counts for the group is exact:
 * it keeps every child forked later, wherever it is reparented (Chromium's zygotes and crash handlers), and what a
 * process spent before it exited. Otherwise the figure is utime + stime + cutime + cstime summed over the process
 * and its live descendants, which misses processes that exit unreaped or reparented (most of a busy browser's).
 */
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
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
async function treeCpuMs(pid: number): Promise<number> {
  const pids = [pid, ...(await descendants(pid)).map((d) => d.pid)];
  const each = await Promise.all(pids.map(ownAndReapedMs));
  return each.reduce((a, b) => a + b, 0);
}

/** A reading of each process (role processes `api-1`, …, nats-servers, `postgres`): name → CPU ms so far. */
export type CpuReading = Map<string, number>;

export interface ClusterCpu {
  /** `cgroup`: exact per-process figures; `proc`: the /proc estimate. */
  method: 'cgroup' | 'proc';
  read(): Promise<CpuReading>;
  /** Removes the cgroups once their processes have exited (after the cluster has stopped). */
  close(): Promise<void>;
}

const CPUACCT = '/sys/fs/cgroup/cpuacct';

/** A cpuacct group holding `pid` and its descendants now, or null where groups cannot be made. */
async function cpuacctGroup(path: string, pid: number): Promise<string | null> {
  try {
    await mkdir(path, { recursive: true });
    await writeFile(join(path, 'cgroup.procs'), String(pid));
    for (const child of await descendants(pid))
      await writeFile(join(path, 'cgroup.procs'), String(child.pid)).catch(() => undefined); // gone meanwhile
    return path;
  } catch {
    return null;
  }
}

/**
 * Meters for the processes running now. A role process killed and started again is a new process, outside its
 * group: a reading spans one process's life only, so compare readings taken while no role was restarted.
 */
export async function clusterCpu(cluster: LocalCluster, dir: string): Promise<ClusterCpu> {
  const pids = new Map<string, number>();
  for (const p of cluster.processes) if (p.child?.pid) pids.set(p.name, p.child.pid);
  for (const node of cluster.nats.nodes) if (node.process?.pid) pids.set(node.name, node.process.pid);
  const postmaster = Number(
    (await readFile(join(dir, POSTGRES_DATA_DIR, 'postmaster.pid'), 'utf8')).split('\n')[0]!.trim(),
  );
  pids.set('postgres', postmaster);
  const root = join(CPUACCT, `capture-ledger-bench-${process.pid}`);
  const groups = new Map<string, string>();
  for (const [name, pid] of pids) {
    const group = await cpuacctGroup(join(root, name), pid);
    if (!group) break;
    groups.set(name, group);
  }
  const method = groups.size === pids.size ? 'cgroup' : 'proc';
  const usageMs = async (group: string) => Number(await readFile(join(group, 'cpuacct.usage'), 'utf8')) / 1e6;
  return {
    method,
    async read() {
      const reading: CpuReading = new Map();
      await Promise.all(
        [...pids].map(async ([name, pid]) =>
          reading.set(name, method === 'cgroup' ? await usageMs(groups.get(name)!) : await treeCpuMs(pid)),
        ),
      );
      return reading;
    },
    async close() {
      for (const group of groups.values()) await rmdir(group).catch(() => undefined);
      await rmdir(root).catch(() => undefined);
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
