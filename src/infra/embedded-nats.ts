import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { freePort } from './free-port.js';
import { stopStaleProcess } from './stale-process.js';
import { stopChild } from './stop-child.js';
import { OPERATOR_NEVER } from './nats-permissions.js';

export interface EmbeddedNats {
  url: string;
  port: number;
  /** The one user the server accepts, when started with credentials. */
  credentials: { user: string; pass: string } | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

const NATS_CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

export function natsServerBinary(): string {
  const found = NATS_CANDIDATES.find((p) => existsSync(p));
  if (!found)
    throw new Error('nats-server not found: install it with `apt-get install -y nats-server` (make run does this)');
  return found;
}

/**
 * Start a nats-server with JetStream whose store lives in `dir`; stops one left running there by a killed parent.
 * With `credentials` it accepts only that user: the password goes into a configuration file of mode 0600, never
 * onto the command line (which every local user can read in /proc).
 */
export async function startEmbeddedNats(
  dir: string,
  opts: { port?: number; log?: (line: string) => void; credentials?: { user: string; pass: string } } = {},
): Promise<EmbeddedNats> {
  await mkdir(dir, { recursive: true });
  const pidFile = join(dir, 'nats-server.pid');
  await stopStaleProcess(pidFile, 'nats-server');
  const port = opts.port ?? (await freePort());
  const configFile = join(dir, 'nats-server.conf');
  const config = [
    `listen: "127.0.0.1:${port}"`,
    `jetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))} }`,
    `pid_file: ${JSON.stringify(pidFile)}`,
    ...(opts.credentials
      ? [
          `authorization { users: [ { user: ${JSON.stringify(opts.credentials.user)}, password: ${JSON.stringify(opts.credentials.pass)}, permissions: { publish: { deny: ${JSON.stringify(OPERATOR_NEVER)} } } } ] }`,
        ]
      : []),
  ].join('\n');
  await rm(configFile, { force: true }); // so the mode below applies to a new file
  await writeFile(configFile, `${config}\n`, { mode: 0o600 });
  const child = spawn(natsServerBinary(), ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      if (lines.length < 200) lines.push(line);
      opts.log?.(line);
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const url = `nats://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}:\n${lines.join('\n')}`);
    try {
      const nc = await connect({ servers: url, reconnect: false, timeout: 1000, ...(opts.credentials ?? {}) });
      await nc.close();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`nats-server did not accept connections on ${url}:\n${lines.join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    port,
    credentials: opts.credentials ?? null,
    process: child,
    stop: () => stopChild(child),
  };
}
