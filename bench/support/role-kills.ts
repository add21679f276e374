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
  /** Seconds from the schedule's start to the kill. */
  atS: number;
  /** Wall time from the new process's spawn to its first healthy answer; null when it could not be started. */
  healthyMs: number | null;
  /** Tries it took to start the process again (1 unless a start failed). */
  starts: number;
}

export interface RoleKillSchedule {
  /** Resolves once every kill is done and its process healthy again, or once stopped. */
  done: Promise<RoleKill[]>;
  /** No kill after the current one. */
  stop(): void;
}

export function killRolesOnSchedule(
  cluster: LocalCluster,
  opts: { kills: number; everyMs: number; seed: number; roles?: string[] },
): RoleKillSchedule {
  const random = seededRandom(opts.seed);
  const victims = cluster.processes.filter((p) => !opts.roles || opts.roles.includes(p.role)).map((p) => p.name);
  let stopped = false;
  const started = Date.now();
  const done = (async () => {
    const kills: RoleKill[] = [];
    for (let i = 0; i < opts.kills && !stopped; i++) {
      const due = started + i * opts.everyMs;
      if (due > Date.now()) await sleep(due - Date.now());
      if (stopped) break;
      const name = victims[Math.floor(random() * victims.length)]!;
      const atS = (Date.now() - started) / 1000;
      await cluster.kill(name, 'SIGKILL');
      let healthyMs: number | null = null;
      let starts = 0;
      while (healthyMs === null && starts < 5) {
        starts++;
        healthyMs = await cluster.start(name).then(
          (s) => s.healthyMs,
          // A start that timed out may have left its process running: stopped before the next try.
          () => cluster.kill(name, 'SIGKILL').then(() => null),
        );
        if (healthyMs === null) await sleep(1000);
      }
      kills.push({ name, atS, healthyMs, starts });
    }
    return kills;
  })();
  return {
    done,
    stop: () => {
      stopped = true;
    },
  };
}
