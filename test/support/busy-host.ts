/**
 * Other work on the host: busy loops, each in its own session (`detached`: Node calls setsid() in the child), so Linux's autogroup scheduling gives
 * each the same share of the CPUs as the service's session gets — as separate services or containers on one
 * host do. Each loop also ends by itself after `maxMs`, so nothing is left spinning if the test runner dies.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface BusyHost {
  readonly pids: number[];
  stop(): Promise<void>;
}

export function startBusyLoops(count: number, maxMs = 20 * 60_000): BusyHost {
  const code = `const end = Date.now() + ${maxMs}; let x = 0; while (Date.now() < end) { x = (x + 1) % 1e9; }`;
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    // Not the setsid(1) program: started as a session leader already, it forks and exits, and the loop it
    // leaves behind is no child of ours to stop (20 minutes of busy cores for whatever runs next).
    children.push(spawn(process.execPath, ['-e', code], { stdio: 'ignore', detached: true }));
  }
  return {
    pids: children.map((c) => c.pid ?? -1),
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
