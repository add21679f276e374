import { type ChildProcess, spawn } from 'node:child_process';
import { projectRoot } from '../../src/infra/project-root.js';
import { serviceArgs } from './service-entry.js';

/**
 * The service as its own OS process (src/main.ts: the run's bundle, or the sources through tsx;
 * test/support/service-entry.ts), for kill/restart tests.
 */
export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/** `nodeArgs`: more flags for node itself (e.g. `--cpu-prof`, which NODE_OPTIONS does not take). */
export async function startServiceProcess(
  env: Record<string, string>,
  port: number,
  nodeArgs: string[] = [],
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...nodeArgs, ...serviceArgs()], {
    cwd: projectRoot,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', EXIT_WITH_PARENT: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  // A test that fails before it stops its service must not hold the test file's process open until the runner's
  // timeout: neither the child nor its pipes keep this process alive, and the child (EXIT_WITH_PARENT) stops when
  // this process is gone.
  child.unref();
  (child.stdout as unknown as { unref(): void }).unref();
  (child.stderr as unknown as { unref(): void }).unref();
  const baseUrl = `http://127.0.0.1:${port}`;
  // Generous: on a busy machine a process takes long to start; only a hang should reach this.
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${out}`);
    try {
      const r = await fetch(`${baseUrl}/health`);
      if (r.status === 200) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not become healthy:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    baseUrl,
    output: () => out,
    kill(signal) {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.ref(); // held open again until the exit this waits for
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}
