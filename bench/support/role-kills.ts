/**
 * Role processes SIGKILLed and started again on a schedule, as an orchestrator restarts a crashed pod: each kill
 * picks one of the layout's role processes with a seeded generator (the same seed, the same victims in the same
 * order), kills it, starts it again at once and waits until it answers `/health`; the next kill comes
 * `everyMs` after the one before began, or at once when the restart took longer.
 */
import type { LocalCluster } from '../../src/infra/local-cluster.js';
import { seededRandom } from '../../test/support/random-tenant-events.js';
import { sleep } from './bench-kit.js';

export interface RoleKill {
  name: string;
  /** Wall time from the new process's spawn to its first healthy answer; null when five starts failed. */
  healthyMs: number | null;
}

/** Resolves once every kill is done and its process healthy again (or given up on after five starts). */
export async function killRolesOnSchedule(
  cluster: LocalCluster,
  opts: { kills: number; everyMs: number; seed: number },
): Promise<RoleKill[]> {
  const random = seededRandom(opts.seed);
  const victims = cluster.processes.map((p) => p.name);
  const started = Date.now();
  const kills: RoleKill[] = [];
  for (let i = 0; i < opts.kills; i++) {
    const due = started + i * opts.everyMs;
    if (due > Date.now()) await sleep(due - Date.now());
    const name = victims[Math.floor(random() * victims.length)]!;
    await cluster.kill(name, 'SIGKILL');
    let healthyMs: number | null = null;
    for (let starts = 0; healthyMs === null && starts < 5; starts++) {
      healthyMs = await cluster.start(name).then(
        (s) => s.healthyMs,
        // A start that timed out may have left its process running: stopped before the next try.
        () => cluster.kill(name, 'SIGKILL').then(() => null),
      );
      if (healthyMs === null) await sleep(1000);
    }
    kills.push({ name, healthyMs });
  }
  return kills;
}
