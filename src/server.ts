import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from './application/service-context.js';
import type { Evidence } from './archive/evidence-runtime.js';
import { type Config, rolesUsePostgres } from './config/config.js';
import type { EventStore } from './ledger/event-store.js';
import { createReadiness } from './observability/readiness.js';
import { startRoleHttp } from './observability/role-http.js';
import type { UsageRecorder } from './api/usage-recorder.js';
import type { Projector } from './projector/projector.js';
import type { DatabaseRuntime } from './roles/database-runtime.js';
import { type ProcessRuntime, type ServerDeps, startProcessRuntime } from './roles/process-runtime.js';
import { createStops } from './roles/stops.js';
import type { TransparencyService } from './transparency/log-service.js';

export type { ServerDeps } from './roles/process-runtime.js';

/**
 * Composition root: starts the roles named in ROLES in this process, each by its own starter (src/roles/).
 * The sequencer runs inside the process runtime (the transparency log) and the projector inside the database
 * runtime, since reads follow it. Stop order is the reverse of starting.
 */
export interface ServerHandle {
  url: string | null;
  app: FastifyInstance | null;
  /** null in a process without a database (a signer alone). */
  ctx: ServiceContext | null;
  /** This process's NATS connection and JetStream handles (operators' tools and tests; routes get none). */
  nats: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager };
  /** The event store; null in a process without a database (a signer alone). */
  store: EventStore | null;
  projector: Projector | null;
  evidence: Evidence;
  /** The transparency log's service where this process follows the log (api or sequencer role); null otherwise. */
  transparency: TransparencyService | null;
  /** The api role's recorder of API calls, null without the api role (tests stop it to compare a quiet ledger). */
  usage: UsageRecorder | null;
  stop(): Promise<void>;
}

type RoleStarter = (runtime: ProcessRuntime, data: DatabaseRuntime) => Promise<() => Promise<void>>;

/**
 * The roles that need the database, in start order; the api starts last, so it answers only when the rest run.
 * Each starter is imported when its role runs: a process loads only the code (and libraries) of its own roles.
 */
const DATABASE_ROLES: Array<['worker' | 'dispatcher' | 'scheduler', () => Promise<RoleStarter>]> = [
  ['worker', async () => (await import('./roles/worker.js')).startWorkerRole],
  ['dispatcher', async () => (await import('./roles/dispatcher.js')).startDispatcherRole],
  ['scheduler', async () => (await import('./roles/scheduler.js')).startSchedulerRole],
];

export async function startServer(config: Config, deps: ServerDeps): Promise<ServerHandle> {
  const stops = createStops(deps.log);
  try {
    return await startRoles(config, deps, stops);
  } catch (err) {
    await stops.run();
    throw err;
  }
}

async function startRoles(
  config: Config,
  deps: ServerDeps,
  stops: ReturnType<typeof createStops>,
): Promise<ServerHandle> {
  const runtime = await startProcessRuntime(config, deps, stops);
  const { roles, nats } = runtime;
  if (roles.has('signer')) stops.add((await import('./roles/signer.js')).startSignerRole(runtime));
  // The archive is signed with the log key, which the sequencer holds (docs/operators.md, The archive); its
  // modules (the S3 client among them) load only when ARCHIVE_URL names one.
  if (roles.has('sequencer') && config.ARCHIVE_URL)
    stops.add(await (await import('./ledger-archive/archiver-role.js')).startLedgerArchiver(runtime));
  const handle = {
    nats,
    evidence: runtime.evidence,
    transparency: runtime.transparency,
    usage: null,
    stop: () => stops.run(),
  };

  if (!rolesUsePostgres(roles)) {
    // A signer or sequencer alone needs no database: it is not given DATABASE_URL (docs/security.md).
    const http = await startRoleHttp({
      port: config.PORT,
      host: config.HOST,
      roles: [...roles],
      ready: createReadiness(nats.nc, null),
      metricsToken: config.METRICS_TOKEN,
    });
    stops.add(() => http.close());
    return { ...handle, url: http.url, app: null, ctx: null, store: null, projector: null };
  }
  if (!deps.databaseUrl) throw new Error(`ROLES=${[...roles].join(',')} needs Postgres: set DATABASE_URL`);
  const { startDatabaseRuntime } = await import('./roles/database-runtime.js');
  const data = await startDatabaseRuntime(runtime, deps.databaseUrl, deps.schema, stops);
  for (const [role, load] of DATABASE_ROLES) if (roles.has(role)) stops.add(await (await load())(runtime, data));

  const base = { ...handle, ctx: data.ctx, store: runtime.store, projector: data.projector };
  if (!roles.has('api')) {
    // Every role answers /health and /metrics, so a scaled deployment can be probed and scraped.
    const http = await startRoleHttp({
      port: config.PORT,
      host: config.HOST,
      roles: [...roles],
      ready: createReadiness(nats.nc, data.ctx.pool),
      metricsToken: config.METRICS_TOKEN,
    });
    data.ownListeners.add(config.HOST, Number(new URL(http.url).port));
    stops.add(() => http.close());
    return { ...base, url: http.url, app: null };
  }
  const { startApiRole } = await import('./roles/api.js');
  const api = await startApiRole(runtime, data);
  stops.add(() => api.stop());
  return { ...base, url: api.url, app: api.app, usage: api.usage };
}
