/**
 * CPU time of a process tree from /proc (Linux), robust to other load on the host: what the processes
 * themselves spent (utime + stime), not wall time. A capture's renderer exits when its context closes, so
 * the tree is sampled while the work runs and each process keeps the last figure seen for it; what a
 * process spends between its last sample and its exit (under one sampling interval, mostly idle) is lost.
 */
import { readdir, readFile } from 'node:fs/promises';
import { descendants } from './process-memory.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** What a process is, for the figures: Chromium's by its --type (browser when it has none), else its command name. */
async function kindOf(pid: number, comm: string): Promise<string> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const args = cmdline.split(/[\0 ]/); // Chromium rewrites its children's command lines, space-separated
  if (/chrom/i.test(comm) || args.some((a) => /chrom/i.test(a))) {
    const type = args.find((a) => a.startsWith('--type='))?.slice('--type='.length);
    if (type === 'utility') {
      const sub = args.find((a) => a.startsWith('--utility-sub-type='))?.slice('--utility-sub-type='.length) ?? '';
      return `chromium:utility${sub ? `(${sub.split('.').at(-2) ?? sub})` : ''}`;
    }
    return `chromium:${type ?? 'browser'}`;
  }
  return comm;
}

async function cpuMsOf(pid: number, task?: number): Promise<number | null> {
  try {
    const stat = await readFile(task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the comm: state is field 3, utime 14 and stime 15 (1-based, as proc(5) counts).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

export interface TreeCpu {
  /** Stops sampling; CPU ms spent since start, per kind of process (the root's: `rootKind`, default `root`). */
  stop(): Promise<Record<string, number>>;
}

/** Samples `root` and its descendants every `intervalMs` until stopped. */
export async function watchTreeCpu(
  root: number,
  options: { intervalMs?: number; rootKind?: string; threads?: boolean } = {},
): Promise<TreeCpu> {
  const intervalMs = options.intervalMs ?? 100;
  /** pid → kind, CPU ms at the start (0 for processes born later), last CPU ms seen. */
  const seen = new Map<number, { kind: string; first: number; last: number }>();
  let initial = true;
  const sample = async () => {
    const procs = [{ pid: root, comm: 'root' }, ...(await descendants(root))];
    await Promise.all(
      procs.map(async ({ pid, comm }) => {
        const ms = await cpuMsOf(pid);
        if (ms === null) return;
        const known = seen.get(pid);
        if (known) {
          known.last = ms;
          return;
        }
        const kind = pid === root ? (options.rootKind ?? 'root') : await kindOf(pid, comm);
        seen.set(pid, { kind, first: initial ? ms : 0, last: ms });
      }),
    );
    initial = false;
  };
  /** The root's threads by name (node: its main thread, libuv's pool, V8's helpers, worker threads). */
  const threads = new Map<number, { name: string; first: number; last: number }>();
  let initialThreads = true;
  const sampleThreads = async () => {
    const tids = await readdir(`/proc/${root}/task`).catch(() => [] as string[]);
    await Promise.all(
      tids.map(async (tid) => {
        const ms = await cpuMsOf(root, Number(tid));
        const name = (await readFile(`/proc/${root}/task/${tid}/comm`, 'utf8').catch(() => '')).trim();
        if (ms === null) return;
        const known = threads.get(Number(tid));
        if (known) known.last = ms;
        else threads.set(Number(tid), { first: initialThreads ? ms : 0, last: ms, name });
      }),
    );
    initialThreads = false;
  };
  await Promise.all([sample(), options.threads ? sampleThreads() : undefined]);
  let sampling: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    // A tick that comes while the last sample still runs (a busy host) is skipped, not queued: queued samples
    // would pile up faster than they are taken and `stop` would wait for all of them.
    if (busy) return;
    busy = true;
    sampling = Promise.all([sample(), options.threads ? sampleThreads() : undefined])
      .catch(() => {})
      .finally(() => (busy = false));
  }, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      await Promise.all([sample(), options.threads ? sampleThreads() : undefined]);
      const byKind: Record<string, number> = {};
      for (const { kind, first, last } of seen.values()) byKind[kind] = (byKind[kind] ?? 0) + (last - first);
      for (const [tid, { name, first, last }] of threads) {
        const kind = `thread:${name}${tid === root ? '(main)' : ''}`;
        byKind[kind] = (byKind[kind] ?? 0) + (last - first);
      }
      return byKind;
    },
  };
}
