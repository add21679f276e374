import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createTenantActors } from './actors/tenant-actors.js';
import { buildApp } from './api/app.js';
import { createMemoryRateLimiter } from './api/rate-limiter.js';
import { adminKeyRoutes } from './api/routes/admin-keys.js';
import { healthRoutes } from './api/routes/health.js';
import type { ApiContext } from './api/context.js';
import type { Config } from './config/config.js';
import { systemClock, type Clock } from './domain/clock.js';
import { connectNats } from './infra/nats.js';
import { createPool, LIVE_SCHEMA } from './infra/postgres.js';
import { createEventStore } from './ledger/event-store.js';
import { migrate } from '../projections/migrate.js';
import { createProjectionWaiter } from './projector/projection-waiter.js';
import { createProjector, type Projector } from './projector/projector.js';

/**
 * Composition root: connects to NATS and Postgres and starts the roles named in ROLES in this process.
 * Stop order is the reverse: stop accepting, drain, then close connections.
 */
export interface ServerHandle {
  url: string | null;
  app: FastifyInstance | null;
  ctx: ApiContext;
  projector: Projector | null;
  stop(): Promise<void>;
}

export interface ServerDeps {
  natsUrl: string;
  databaseUrl: string;
  log: Logger;
  clock?: Clock;
  schema?: string;
}

export async function startServer(config: Config, deps: ServerDeps): Promise<ServerHandle> {
  const { log } = deps;
  const clock = deps.clock ?? systemClock;
  const roles = config.ROLES;
  const { nc, js, jsm } = await connectNats(deps.natsUrl, `capture-ledger:${[...roles].join('+')}`);
  const schema = deps.schema ?? LIVE_SCHEMA;
  const pool = createPool(deps.databaseUrl, schema);
  await migrate(pool, schema);

  const store = createEventStore(js, jsm);
  const tenants = createTenantActors(store, { now: () => clock.now() });

  const projector = roles.has('projector') ? createProjector({ js, pool, log: log.child({ role: 'projector' }) }) : null;
  await projector?.start();
  const waiter = createProjectionWaiter(pool, projector ?? undefined);

  const ctx: ApiContext = { config, log, clock, nc, js, jsm, store, tenants, pool, waiter };

  let app: FastifyInstance | null = null;
  let url: string | null = null;
  if (roles.has('api')) {
    const limiter = createMemoryRateLimiter();
    app = await buildApp({
      log,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      plugins: [healthRoutes(ctx), adminKeyRoutes(ctx, limiter)],
    });
    url = await app.listen({ port: config.PORT, host: config.HOST });
  }

  return {
    url,
    app,
    ctx,
    projector,
    async stop() {
      await app?.close();
      await projector?.stop();
      tenants.close();
      await nc.drain().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}
