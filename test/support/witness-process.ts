import { type ChildProcess, spawn } from 'node:child_process';
import { projectRoot } from '../../src/infra/project-root.js';
import { stopChild } from '../../src/infra/stop-child.js';
import { cliArgs } from './service-entry.js';

/** A witness as its own OS process: `capture-ledger witness …` (the CLI entry) until it prints its URL and vkey. */
export interface WitnessProcess {
  child: ChildProcess;
  url: string;
  vkey: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startWitnessProcess(args: string[], env: Record<string, string> = {}): Promise<WitnessProcess> {
  const child = spawn(process.execPath, [...cliArgs(), 'witness', ...args], {
    cwd: projectRoot,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const started = await new Promise<{ url: string; vkey: string }>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        try {
          resolve(JSON.parse(line) as { url: string; vkey: string });
        } catch (error) {
          reject(error);
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`the witness exited with ${code}:\n${out}${err}`)));
  });
  return {
    child,
    ...started,
    output: () => `${out}${err}`,
    stop: (signal = 'SIGTERM') => stopChild(child, signal, 10_000),
  };
}
