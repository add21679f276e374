import { join, resolve } from 'node:path';
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';
import { type Config, loadConfig } from '../config/config.js';
import { createPool, LIVE_SCHEMA } from '../infra/postgres.js';
import { processAlive, readRunFile, RUN_FILE_NAME } from '../infra/run-file.js';
import { createEventStore, type EventStore } from '../ledger/event-store.js';
import { LEDGER_STREAM } from '../ledger/streams.js';
import { CliError, type CliIo } from './cli-io.js';

/**
 * The connections of one CLI run, opened on first use. NATS_URL and DATABASE_URL are read like the service
 * reads them (loadConfig); when one is unset, DATA_DIR/run.json of a running `make run` supplies it.
 * Unlike the service, the CLI never creates streams: pointed at the wrong server it says so.
 */
export interface CliSession {
  config: Config;
  dataDir: string;
  nats(): Promise<{ nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager }>;
  /** The event store over `stream` (LEDGER unless an operator reads a copy). */
  store(stream?: string): Promise<EventStore>;
  /** A pool on the live projection schema. */
  pool(): Promise<pg.Pool>;
  databaseUrl(): Promise<string>;
  close(): Promise<void>;
}

/** A URL safe to print: the password replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** A session's configuration and what it has opened so far. */
interface SessionState {
  config: ReturnType<typeof loadConfig>;
  dataDir: string;
  nats: Awaited<ReturnType<CliSession['nats']>> | null;
  pool: pg.Pool | null;
  checkedStreams: Set<string>;
}

export function openSession(io: CliIo): CliSession {
  const config = loadConfig(io.env);
  const s: SessionState = {
    config,
    dataDir: resolve(config.DATA_DIR),
    nats: null,
    pool: null,
    checkedStreams: new Set(),
  };
  return {
    config,
    dataDir: s.dataDir,
    nats: () => openNats(s),
    async store(stream = LEDGER_STREAM) {
      const { js, jsm } = await openNats(s);
      await requireStream(s, stream);
      return createEventStore(js, jsm, stream);
    },
    databaseUrl: () => endpoint(s, 'DATABASE_URL'),
    pool: () => openPool(s),
    async close() {
      await s.pool?.end().catch(() => undefined);
      await s.nats?.nc.close().catch(() => undefined);
    },
  };
}

async function endpoint(s: SessionState, name: 'NATS_URL' | 'DATABASE_URL'): Promise<string> {
  const fromEnv = name === 'NATS_URL' ? s.config.NATS_URL : s.config.DATABASE_URL;
  if (fromEnv) return fromEnv;
  const path = join(s.dataDir, RUN_FILE_NAME);
  let run;
  try {
    run = await readRunFile(s.dataDir);
  } catch (err) {
    throw new CliError(
      `${name} is not set and ${path} cannot be read: ${(err as Error).message}`,
      `Set ${name}, or restart the service so it rewrites ${path}.`,
    );
  }
  if (!run) {
    throw new CliError(
      `${name} is not set and no running service was found in DATA_DIR ${s.dataDir} (no ${RUN_FILE_NAME})`,
      `Set ${name} to the service's ${name === 'NATS_URL' ? 'nats-server (nats://host:4222)' : 'database (postgres://user:pass@host:5432/db)'}, or start the embedded stack with \`make run\` and use the same DATA_DIR.`,
    );
  }
  if (!processAlive(run.pid)) {
    throw new CliError(
      `${name} is not set and ${path} names process ${run.pid}, which is not running (the service was killed)`,
      `Start the service again with \`make run\`, or set ${name}.`,
    );
  }
  if (name === 'NATS_URL') return run.natsUrl;
  if (run.databaseUrl === null) {
    throw new CliError(
      `DATABASE_URL is not set and the service in ${s.dataDir} runs without a database (ROLES has no role that uses one)`,
      "Set DATABASE_URL to the deployment's database.",
    );
  }
  return run.databaseUrl;
}

/** The embedded server's user from run.json, when NATS_URL came from there too. */
async function runFileCredentials(s: SessionState): Promise<{ user?: string; pass?: string }> {
  if (s.config.NATS_URL) return {};
  const run = await readRunFile(s.dataDir).catch(() => null);
  return run?.natsUser ? { user: run.natsUser, pass: run.natsPassword ?? '' } : {};
}

async function openNats(s: SessionState) {
  if (s.nats) return s.nats;
  const url = await endpoint(s, 'NATS_URL');
  let nc: NatsConnection;
  try {
    const credentials = s.config.NATS_USER
      ? { user: s.config.NATS_USER, pass: s.config.NATS_PASSWORD ?? '' }
      : await runFileCredentials(s);
    nc = await connect({
      servers: url,
      name: 'capture-ledger-cli',
      timeout: 5000,
      maxReconnectAttempts: 5,
      reconnectTimeWait: 500,
      ...credentials,
    });
  } catch (err) {
    throw new CliError(
      `cannot connect to NATS at ${url}: ${(err as Error).message}`,
      'Check NATS_URL and that the nats-server is running.',
    );
  }
  s.nats = { nc, js: jetstream(nc, { timeout: 10_000 }), jsm: await jetstreamManager(nc) };
  return s.nats;
}

async function requireStream(s: SessionState, stream: string) {
  if (s.checkedStreams.has(stream)) return;
  const { jsm } = await openNats(s);
  try {
    await jsm.streams.info(stream);
  } catch (err) {
    if ((err as { name?: string }).name !== 'StreamNotFoundError') throw err;
    throw new CliError(
      `the nats-server has no stream ${stream}`,
      stream === LEDGER_STREAM
        ? "Point NATS_URL at the service's nats-server (the service creates LEDGER on its first start)."
        : `Create the stream first or check --stream.`,
    );
  }
  s.checkedStreams.add(stream);
}

/** The live projection's pool, once the database is known to hold it. */
async function openPool(s: SessionState): Promise<pg.Pool> {
  if (s.pool) return s.pool;
  const url = await endpoint(s, 'DATABASE_URL');
  const p = createPool(url, LIVE_SCHEMA, 4);
  p.on('error', () => undefined); // an idle client dropped by the server; the next query reports it
  let found: string | null;
  try {
    found = (
      await p.query<{ t: string | null }>(`SELECT to_regclass('${LIVE_SCHEMA}.projector_checkpoint')::text AS t`)
    ).rows[0]!.t;
  } catch (err) {
    await p.end().catch(() => undefined);
    throw new CliError(
      `cannot query Postgres at ${redactUrl(url)}: ${(err as Error).message}`,
      'Check DATABASE_URL and that Postgres is running.',
    );
  }
  if (!found) {
    await p.end().catch(() => undefined);
    throw new CliError(
      `the database at ${redactUrl(url)} has no '${LIVE_SCHEMA}' schema`,
      "Point DATABASE_URL at the service's database (the service creates the projection at start), or run `capture-ledger projections rebuild`.",
    );
  }
  s.pool = p;
  return p;
}
