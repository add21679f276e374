import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import pino from 'pino';
import { type Config, ConfigError, loadConfig, rolesUsePostgres } from './config/config.js';
import type { EmbeddedNats } from './infra/embedded-nats.js';
import type { EmbeddedPg } from './infra/embedded-postgres.js';
import type { ServerHandle } from './server.js';
import { startTracing, stopTracing } from './observability/tracing-sdk.js';
import { removeRunFile, writeRunFile } from './infra/run-file.js';
import { whenParentGone } from './infra/parent-watch.js';

/** How long a start that meets no answer from NATS is tried again before the process gives up. */
const START_NATS_BUDGET_MS = 60_000;

/** `make run`: every role in one foreground process, with its own nats-server and Postgres unless given. */
/** The configuration, or exit 2 saying what is wrong with it. */
function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`capture-ledger: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** The configuration with this run's embedded nats-server: its user, and rate limits counted in memory. */
function withEmbeddedNats(config: Config, credentials: { user: string; pass: string }): Config {
  return {
    ...config,
    NATS_USER: credentials.user,
    NATS_PASSWORD: credentials.pass,
    // Nobody else can reach this nats-server: this process is the only API, and counts in its memory.
    RATE_LIMIT_STORE: config.RATE_LIMIT_STORE ?? 'memory',
  };
}

function announceServing(config: Config, url: string | null): void {
  process.stdout.write(`\nCapture Ledger is serving ${config.PUBLIC_BASE_URL} (listening on ${url})\n`);
  process.stdout.write(
    config.ADMIN_KEY
      ? `Operator endpoints use ADMIN_KEY${process.env.ADMIN_KEY_FILE ? ` (stored in ${process.env.ADMIN_KEY_FILE})` : ''}.\n\n`
      : 'ADMIN_KEY is not set: operator endpoints answer 503.\n\n',
  );
}

async function main(): Promise<void> {
  const config = configOrExit();
  const log = pino({ level: config.LOG_LEVEL, base: { service: 'capture-ledger' } });
  if (config.ROLES.has('witness')) return runWitness(config, log);
  // Before the server's modules load, so the HTTP instrumentation sees them (only when OTEL_* asks for it).
  if (await startTracing()) log.info('OpenTelemetry tracing enabled');
  const { startServer } = await import('./server.js');
  // NATS's client modules load here, after the witness (which uses no NATS) has gone its own way.
  const { ReplicasError } = await import('./ledger/streams.js');
  const { isNatsUnavailable, whileNatsUnavailable } = await import('./infra/nats-unavailable.js');
  // The embedded servers' modules only when this process starts them (a role process of a cluster is given NATS_URL
  // and DATABASE_URL and loads neither), and before the signal handlers below: embedded-postgres installs exit hooks
  // of its own when it loads, which those handlers replace.
  const embeddedNats = config.NATS_URL ? null : await import('./infra/embedded-nats.js');
  const embeddedPg =
    config.DATABASE_URL || !rolesUsePostgres(config.ROLES) ? null : await import('./infra/embedded-postgres.js');
  const dataDir = resolve(config.DATA_DIR);
  await mkdir(dataDir, { recursive: true });

  let nats: EmbeddedNats | null = null;
  let pg: EmbeddedPg | null = null;
  let server: ServerHandle | null = null;
  let stopping = false;

  const shutdown = async (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await removeRunFile(dataDir);
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await server?.stop().catch((err) => log.error({ err }, 'server stop failed'));
    await nats?.stop().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    await stopTracing();
    process.exit(code);
  };
  // embedded-postgres installs its own exit hooks that race our ordered shutdown; ours stops postgres last.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  if (config.EXIT_WITH_PARENT) whenParentGone(() => void shutdown('parent-gone'));

  try {
    let natsUrl = config.NATS_URL;
    let runConfig = config;
    if (!natsUrl) {
      // One user with a password made for this run: no other local process may reach the ledger. The CLI
      // finds both in run.json (mode 0600).
      const credentials = { user: 'capture-ledger', pass: randomBytes(24).toString('base64url') };
      nats = await embeddedNats!.startEmbeddedNats(join(dataDir, 'nats'), { credentials });
      natsUrl = nats.url;
      runConfig = withEmbeddedNats(config, credentials);
      log.info({ natsUrl }, 'embedded nats-server started');
    }
    let databaseUrl = config.DATABASE_URL ?? null;
    if (!databaseUrl && rolesUsePostgres(config.ROLES)) {
      pg = await embeddedPg!.startEmbeddedPostgres(join(dataDir, 'postgres'), {
        log: (l) => log.debug({ postgres: l }),
      });
      databaseUrl = await pg.database('capture_ledger');
      log.info({ port: pg.port }, 'embedded postgres started');
    }
    // Lets the operator CLI (src/cli) reach this stack without NATS_URL/DATABASE_URL; removed on a clean stop.
    // Written before the server answers /health, so whoever waits for readiness finds it.
    await writeRunFile(dataDir, {
      natsUrl,
      ...(nats?.credentials ? { natsUser: nats.credentials.user, natsPassword: nats.credentials.pass } : {}),
      databaseUrl,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    });
    // A cluster that has just formed (or is electing) may not answer every request yet: a start that meets no answer
    // from NATS is tried again for a while, as an orchestrator would restart the process, rather than exiting.
    server = await whileNatsUnavailable(
      () =>
        startServer(runConfig, { natsUrl, databaseUrl, log }).catch((err: unknown) => {
          if (isNatsUnavailable(err)) log.warn({ err }, 'NATS did not answer while starting; starting again in 2 s');
          throw err;
        }),
      { budgetMs: START_NATS_BUDGET_MS, pauseMs: 2_000 },
    );
    if (server.app) announceServing(config, server.url);
  } catch (err) {
    // By name: the S3 client's modules load with the server's, after tracing starts (storage/s3-errors.ts).
    if (err instanceof ReplicasError || (err as Error)?.name === 'S3StartError') {
      // A configuration the cluster (or the S3 bucket) cannot honour: say what, exit as for any bad setting.
      process.stderr.write(`capture-ledger: ${(err as Error).message}\n`);
      await shutdown('bad-configuration', 2);
      return;
    }
    log.fatal({ err }, 'start failed');
    await shutdown('start-failure', 1);
  }
}

/** ROLES=witness: the witness alone, without NATS or Postgres (src/roles/witness.ts). */
async function runWitness(config: Config, log: pino.Logger): Promise<void> {
  const { startWitnessRole } = await import('./roles/witness.js');
  const witness = await startWitnessRole(config, log).catch((err: Error) => {
    process.stderr.write(`capture-ledger witness: ${err.message}\n`);
    process.exit(2);
  });
  const stop = async () => {
    await witness.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  if (config.EXIT_WITH_PARENT) whenParentGone(() => void stop());
}

await main();
