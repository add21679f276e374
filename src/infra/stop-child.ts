import type { ChildProcess } from 'node:child_process';

/** Signal a child process and wait for it to exit; SIGKILL it if it is still there after `graceMs`. */
export async function stopChild(
  child: ChildProcess | null,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 10_000,
): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(force);
}
