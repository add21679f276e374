/**
 * An API process for benchmarks that must measure the server apart from the load generator: the service
 * (startServer, roles from ROLES) in its own OS process, started with --expose-gc and answering memory and
 * actor questions over IPC. `startApiProcess(env)` in the parent; this file is also the child's entry.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { projectRoot } from '../../src/infra/project-root.js';
import { startServer } from '../../src/server.js';

export interface ApiMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  /** heapUsed right after a full GC: what is really retained. */
  heapUsedAfterGc: number;
  rssAfterGc: number;
  actors: { conflicts: number; hydrations: number; passivations: number; commits: number };
}

export interface ApiProcess {
  baseUrl: string;
  pid: number;
  memory(): Promise<ApiMemory>;
  stop(): Promise<void>;
}

type Reply = { type: 'ready'; url: string } | { type: 'memory'; memory: ApiMemory } | { type: 'error'; error: string };

export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url)],
    {
      cwd: projectRoot,
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const next = () =>
    new Promise<Reply>((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`api process exited with ${code}:\n${out.slice(-4000)}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m as Reply);
      });
    });
  const ready = await next();
  if (ready.type !== 'ready') {
    child.kill('SIGKILL');
    throw new Error(`api process failed to start: ${ready.type === 'error' ? ready.error : ready.type}`);
  }
  return {
    baseUrl: ready.url,
    pid: child.pid!,
    async memory() {
      const reply = next();
      child.send({ type: 'memory' });
      const m = await reply;
      if (m.type !== 'memory') throw new Error(`unexpected reply ${JSON.stringify(m)}`);
      return m.memory;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.send({ type: 'stop' });
      });
    },
  };
}

async function childMain(): Promise<void> {
  const send = (m: Reply) => process.send!(m);
  try {
    const config = loadConfig(process.env);
    const server = await startServer(config, {
      natsUrl: process.env.NATS_URL!,
      databaseUrl: process.env.DATABASE_URL!,
      log: pino({ level: 'silent' }),
    });
    process.on('message', async (msg: { type: string }) => {
      if (msg.type === 'memory') {
        const before = process.memoryUsage();
        (globalThis as { gc?: () => void }).gc?.();
        const after = process.memoryUsage();
        send({
          type: 'memory',
          memory: {
            rss: before.rss,
            heapUsed: before.heapUsed,
            heapTotal: before.heapTotal,
            external: before.external,
            heapUsedAfterGc: after.heapUsed,
            rssAfterGc: after.rss,
            actors: server.ctx!.tenants.stats(),
          },
        });
      } else if (msg.type === 'stop') {
        await server.stop();
        process.exit(0);
      }
    });
    process.on('disconnect', () => process.exit(1)); // the bench died: do not outlive it
    send({ type: 'ready', url: server.url!.replace('0.0.0.0', '127.0.0.1') });
  } catch (err) {
    send({ type: 'error', error: String((err as Error).stack ?? err) });
    process.exit(1);
  }
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) await childMain();
