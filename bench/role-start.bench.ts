import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { type RoleStart, startLocalCluster } from '../src/infra/local-cluster.js';
import { envCount, percentile, round } from './support/bench-kit.js';
import type { BenchLine } from './registry.js';

/** The most CPU a role may spend from spawn to its first healthy answer (ms). */
const CPU_GOAL_MS: Record<string, number> = {
  api: 800,
  worker: 800,
  signer: 400,
  scheduler: 400,
  dispatcher: 400,
  sequencer: 400,
  projector: 400,
  witness: 400,
};

/**
 * Each role's cost of a restart on the scaled layout (`make cluster`: 3 nats-servers, every role its own process,
 * the built dist/bundle/): SIGKILL one process of the role, start it again, and measure the CPU it spent and the
 * wall time until `/health` answered 200. Baseline in the same run: a bare `node -e ''` (what any Node process costs).
 * BENCH_ROLE_STARTS restarts per role (default 5); figures are medians.
 */
export async function roleStartBench(): Promise<BenchLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-start-'));
  const cluster = await startLocalCluster({
    dir,
    compiled: true,
    apis: 1,
    workers: 1,
    signers: 1,
    sequencers: 1,
    witnesses: 1,
    env: { SIGNING_KEY: 'none' },
  });
  const lines: BenchLine[] = [];
  try {
    const starts = envCount('BENCH_ROLE_STARTS', 5);
    const bare: number[] = [];
    for (let i = 0; i < starts; i++) {
      const t0 = performance.now();
      spawnSync(process.execPath, ['-e', '']);
      bare.push(performance.now() - t0);
    }
    const bareMs = percentile(bare, 50);
    for (const p of cluster.processes) {
      if (!p.name.endsWith('-1')) continue;
      const samples: RoleStart[] = [];
      for (let i = 0; i < starts; i++) {
        await cluster.kill(p.name, 'SIGKILL');
        samples.push(await cluster.start(p.name));
      }
      const cpu = percentile(
        samples.map((s) => s.cpuMs ?? NaN),
        50,
      );
      const healthy = percentile(
        samples.map((s) => s.healthyMs),
        50,
      );
      lines.push({
        role: p.role,
        starts,
        startCpuMs: round(cpu, 0),
        cpuGoalMs: CPU_GOAL_MS[p.role],
        healthyMs: round(healthy, 0),
        healthyMaxMs: round(Math.max(...samples.map((s) => s.healthyMs)), 0),
        bareNodeMs: round(bareMs, 0),
        ratio: round(cpu / CPU_GOAL_MS[p.role]!, 2),
      });
    }
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return lines;
}
