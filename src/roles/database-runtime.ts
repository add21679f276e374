import { migrate } from '../../projections/migrate.js';
import { openSnapshotStore } from '../actors/snapshot-store.js';
import { createTenantActors } from '../actors/tenant-actors.js';
import type { ServiceContext } from '../application/service-context.js';
import type { ArtifactStore } from '../storage/artifact-store.js';
import { openConfiguredArtifactStore, storageOf } from '../storage/configured-artifact-store.js';
import { defaultRetentionDays } from '../config/storage-config.js';
import { createPool, LIVE_SCHEMA } from '../infra/postgres.js';
import { SUBJECTS } from '../infra/topology.js';
import { anyTenantRetention } from '../../projections/read-models/retention.js';
import { DELIVERIES_STREAM, JOBS_STREAM, LEDGER_STREAM } from '../ledger/streams.js';
import { createAddressPolicy, type AddressPolicy } from '../net/address-policy.js';
import { createOwnListeners, type OwnListeners } from '../net/own-listeners.js';
import { addScrapeProbe, projectionLag, queueDepth } from '../observability/metrics.js';
import { createProjectionWaiter } from '../projector/projection-waiter.js';
import { readCheckpoint } from '../projector/checkpoint.js';
import type { Projector } from '../projector/projector.js';
import type { WebhookSecretStore } from '../webhooks/webhook-secret-store.js';
import type { ProcessRuntime } from './process-runtime.js';
import type { Stops } from './stops.js';

/**
 * What the roles that read or write the projections share: the Postgres pool (migrated), the tenant actors,
 * the artifact store, the address policy, the projector when this process runs that role, and the
 * application services' context.
 */
export interface DatabaseRuntime {
  ctx: ServiceContext;
  artifacts: ArtifactStore;
  policy: AddressPolicy;
  /** This process's own HTTP addresses: never a target, allow-listed or not; each listener adds itself. */
  ownListeners: OwnListeners;
  projector: Projector | null;
  /** The webhook secret store and trusted CAs, opened once for the api and dispatcher roles. */
  webhookSecrets(): Promise<WebhookSecretStore>;
  webhookCa(): Promise<string[]>;
}

export async function startDatabaseRuntime(
  runtime: ProcessRuntime,
  databaseUrl: string,
  schema: string | undefined,
  stops: Stops,
): Promise<DatabaseRuntime> {
  const { config, log, clock, nats } = runtime;
  const replicas = config.NATS_REPLICAS;
  const pool = createPool(databaseUrl, schema ?? LIVE_SCHEMA);
  stops.add(async () => void (await pool.end().catch(() => undefined)));
  await migrate(pool, schema ?? LIVE_SCHEMA);

  // Snapshots bound hydration to one read and a short tail (docs/architecture.md, Actors); the bucket is replicated like the rest.
  const snapshots = await openSnapshotStore(nats.nc, { replicas });
  const tenants = createTenantActors(runtime.store, {
    now: () => clock.now(),
    idleMs: config.ACTOR_IDLE_MS,
    snapshots,
    onSnapshotProblem: (tenantId, p) =>
      p.error
        ? log.warn({ err: p.error, tenantId }, 'actor snapshot unavailable')
        : log.info({ tenantId, reason: p.reason }, 'actor snapshot ignored; folding the log'),
  });
  stops.add(() => tenants.close());
  // JetStream's object store, or S3 when ARTIFACT_STORE=s3 (docs/storage.md).
  // Retention configured (the deployment's default or any tenant's own) needs a bucket that can lock objects.
  const requireLock = defaultRetentionDays(config) > 0 || (await anyTenantRetention(pool));
  const artifacts = await openConfiguredArtifactStore(storageOf(config), nats.nc, replicas, {
    requireLock,
    log: log.child({ component: 'storage' }),
  });
  // The port bound for PORT=0 is added once listening.
  const ownListeners = createOwnListeners();
  ownListeners.add(config.HOST, config.PORT);
  // The built-in TSA grants a token for any digest: a captured page must not get one for bytes of its choosing.
  for (const l of runtime.evidence.listeners) ownListeners.add(l.host, l.port);
  const policy = createAddressPolicy({ allowCidrs: config.ALLOW_PRIVATE_TARGETS, ownListeners });

  // The projector role starts here: the projection waiter of every read follows it when it is in this process.
  // Its read models' code loads in the projector's process only.
  const projector = runtime.roles.has('projector')
    ? (await import('../projector/projector.js')).createProjector({
        js: nats.js,
        pool,
        log: log.child({ role: 'projector' }),
      })
    : null;
  if (projector) {
    await projector.start();
    stops.add(() => projector.stop());
  }
  const waiter = createProjectionWaiter(pool, projector ?? undefined);
  const ctx: ServiceContext = {
    config,
    log,
    clock,
    tenants,
    pool,
    waiter,
    announceRevocation: (keyHash) => nats.nc.publish(SUBJECTS.keyRevoked.subject, keyHash),
  };
  addScrapeProbe(async () => {
    const [jobs, deliveries, ledger, checkpoint] = await Promise.all([
      nats.jsm.streams.info(JOBS_STREAM),
      nats.jsm.streams.info(DELIVERIES_STREAM),
      nats.jsm.streams.info(LEDGER_STREAM),
      readCheckpoint(pool),
    ]);
    queueDepth.set({ queue: 'JOBS' }, jobs.state.messages);
    queueDepth.set({ queue: 'DELIVERIES' }, deliveries.state.messages);
    projectionLag.set(Math.max(0, ledger.state.last_seq - checkpoint));
  });

  return {
    ctx,
    artifacts,
    policy,
    ownListeners,
    projector,
    webhookSecrets: once(async () =>
      (await import('../webhooks/webhook-secret-store.js')).openWebhookSecretStore(nats.nc, replicas),
    ),
    webhookCa: once(async () => (await import('../webhooks/webhook-ca.js')).loadWebhookCa(config.WEBHOOK_CA_CERTS)),
  };
}

function once<T>(open: () => Promise<T>): () => Promise<T> {
  let opened: Promise<T> | null = null;
  return () => (opened ??= open());
}
