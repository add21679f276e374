import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { migrate } from '../projections/migrate.js';
import { openSnapshotStore } from './actors/snapshot-store.js';
import { createTenantActors } from './actors/tenant-actors.js';
import { type Evidence, startEvidence } from './archive/evidence-runtime.js';
import { createCertificates, openCertificateStore } from './evidence/certificate.js';
import { deploymentTrust } from './evidence/trust-anchors.js';
import { certificateRoutes } from './api/routes/certificates.js';
import { findCapture } from '../projections/read-models/captures.js';
import { remoteNotary, serveNotary } from './archive/notary-service.js';
import { registerSigningKey } from './archive/signing-key-registry.js';
import { publishTsaCertificate } from './archive/tsa-certificate-registry.js';
import { buildApp } from './api/app.js';
import { createKeyResolver } from './api/auth.js';
import type { ServiceContext } from './application/service-context.js';
import { createCors } from './api/cors.js';
import { createKvRateLimiter } from './api/kv-rate-limiter.js';
import { adminKeyRoutes, REVOCATION_SUBJECT } from './api/routes/admin-keys.js';
import { captureRoutes } from './api/routes/captures.js';
import { healthRoutes } from './api/routes/health.js';
import { scheduleRoutes } from './api/routes/schedules.js';
import { tenancyRoutes } from './api/routes/tenancy.js';
import { verificationRoutes } from './api/routes/verification.js';
import { startReplayServer } from './api/replay-server.js';
import { createTenantGuard } from './api/tenant-auth.js';
import { mcpRoutes } from './api/mcp/mcp-routes.js';
import { accountUsage } from './application/account-usage.js';
import { createApiKeys } from './application/api-keys.js';
import { createTenantAdministration } from './application/tenant-administration.js';
import { createWebhooks } from './application/webhooks.js';
import { createCaptureAdmission } from './application/capture-admission.js';
import { createCaptureReads } from './application/capture-reads.js';
import { createCaptureCertificates } from './application/capture-certificates.js';
import { createCaptureVerification } from './application/capture-verification.js';
import { createSchedules } from './application/schedules.js';
import { createUsageRecorder } from './api/usage-recorder.js';
import { openArtifactStore } from './capture/artifact-store.js';
import { createBrowserPool, type BrowserPool } from './capture/browser-pool.js';
import { openAttemptStore } from './capture/attempt-store.js';
import { defaultPageDelayMs } from './capture/attempt-policy.js';
import { startCapacityGovernor } from './capture/capacity-governor.js';
import { startCaptureWorker, type CaptureWorker } from './capture/capture-worker.js';
import { startHostLoad } from './capture/host-load.js';
import { localCaptureOutcomes, natsCaptureOutcomes, serveCaptureOutcomes } from './capture/capture-outcomes.js';
import { type Feeder, startJobFeeder } from './capture/job-feeder.js';
import { type Config, rolesUsePostgres } from './config/config.js';
import { type Clock, systemClock } from './domain/clock.js';
import { connectNats, hasClusteredOccBugs, MIN_CLUSTERED_NATS_VERSION } from './infra/nats.js';
import { createPool, LIVE_SCHEMA } from './infra/postgres.js';
import { createEventStore, type EventStore } from './ledger/event-store.js';
import { DELIVERIES_STREAM, JOBS_STREAM, LEDGER_STREAM } from './ledger/streams.js';
import { jobBacklog } from './ledger/job-backlog.js';
import { addScrapeProbe, projectionLag, queueDepth } from './observability/metrics.js';
import { createReadiness } from './observability/readiness.js';
import { startRoleHttp } from './observability/role-http.js';
import { readCheckpoint } from './projector/projector.js';
import { createAddressPolicy } from './net/address-policy.js';
import { createConnectionLog } from './net/connection-log.js';
import { type EgressProxy, startEgressProxy } from './net/egress-proxy.js';
import { createProjectionWaiter } from './projector/projection-waiter.js';
import { createProjector, type Projector } from './projector/projector.js';
import { createScheduler } from './schedules/scheduler.js';
import { adminWebhookRoutes, webhookRoutes } from './api/routes/webhooks.js';
import { startWebhookDispatcher } from './webhooks/webhook-dispatcher.js';
import { startWebhookFeeder } from './webhooks/webhook-feeder.js';
import { openWebhookSecretStore } from './webhooks/webhook-secret-store.js';
import { loadWebhookCa } from './webhooks/webhook-sender.js';
import { startTransparency } from './transparency/log-runtime.js';
import type { TransparencyService } from './transparency/log-service.js';
import { transparencyLogRoutes } from './api/routes/transparency-log.js';

/**
 * Composition root: connects to NATS and Postgres and starts the roles named in ROLES in this process.
 * Stop order is the reverse: stop accepting, drain, then close connections.
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
  stop(): Promise<void>;
}

export interface ServerDeps {
  natsUrl: string;
  /** null: this process's roles use no database (a signer alone). */
  databaseUrl: string | null;
  log: Logger;
  clock?: Clock;
  schema?: string;
}

export async function startServer(config: Config, deps: ServerDeps): Promise<ServerHandle> {
  const { log } = deps;
  const clock = deps.clock ?? systemClock;
  const roles = config.ROLES;
  const dataDir = resolve(config.DATA_DIR);
  const stops: Array<() => Promise<void> | void> = [];
  const replicas = config.NATS_REPLICAS;
  const { nc, js, jsm } = await connectNats(deps.natsUrl, `capture-ledger:${[...roles].join('+')}`, {
    replicas,
    user: config.NATS_USER,
    pass: config.NATS_PASSWORD,
  });
  stops.unshift(async () => void (await nc.drain().catch(() => undefined)));
  const natsVersion = nc.info?.version ?? 'unknown';
  log.info({ natsVersion, natsCluster: nc.info?.cluster ?? null, replicas }, 'connected to NATS');
  if (replicas > 1 && hasClusteredOccBugs(natsVersion)) {
    log.warn(
      { natsVersion, minimum: MIN_CLUSTERED_NATS_VERSION },
      `nats-server ${natsVersion} may accept concurrent publishes with the same expected sequence on replicated streams (nats-server #4320): the ledger and rate limits guard with one msgID per write slot, but use nats-server ${MIN_CLUSTERED_NATS_VERSION} or later for a replicated deployment`,
    );
  }
  const stopAll = async () => {
    for (const stop of stops) {
      try {
        await stop();
      } catch (err) {
        log.warn({ err }, 'error while stopping');
      }
    }
  };

  const store = createEventStore(js, jsm);
  const evidence = await startEvidence(config, dataDir, { signs: roles.has('signer') });
  stops.unshift(() => evidence.close());
  if (evidence.signingKey) await registerSigningKey(store, evidence.signingKey, () => clock.now());
  if (evidence.localTsaCaCertPem) await publishTsaCertificate(store, evidence.localTsaCaCertPem, () => clock.now());
  if (evidence.notary) {
    // The only role that holds the signing key: it renders nothing and answers hashes (notary-service.ts).
    const notaryService = serveNotary(nc, evidence.notary, log.child({ role: 'signer' }));
    stops.unshift(() => notaryService.stop());
  }
  // The public transparency log (docs/transparency.md): sequencer role, and proofs and tiles where the API runs.
  const transparency = await startTransparency({ config, roles, nc, js, jsm, localNotary: evidence.notary, dataDir, log });
  stops.unshift(() => transparency.stop());

  if (!rolesUsePostgres(roles)) {
    // A signer alone needs no database: it is not given DATABASE_URL (docs/security.md).
    const http = await startRoleHttp({ port: config.PORT, host: config.HOST, roles: [...roles], ready: createReadiness(nc, null), metricsToken: config.METRICS_TOKEN });
    stops.unshift(() => http.close());
    return { url: http.url, app: null, ctx: null, nats: { nc, js, jsm }, store: null, projector: null, evidence, transparency: transparency.service, stop: stopAll };
  }
  if (!deps.databaseUrl) throw new Error(`ROLES=${[...roles].join(',')} needs Postgres: set DATABASE_URL`);
  const schema = deps.schema ?? LIVE_SCHEMA;
  const pool = createPool(deps.databaseUrl, schema);
  stops.unshift(async () => void (await pool.end().catch(() => undefined)));
  await migrate(pool, schema);

  // Snapshots bound hydration to one read and a short tail (docs/architecture.md, Actors); the bucket is replicated like the rest.
  const snapshots = await openSnapshotStore(nc, { replicas });
  const tenants = createTenantActors(store, {
    now: () => clock.now(),
    idleMs: config.ACTOR_IDLE_MS,
    snapshots,
    onSnapshotProblem: (tenantId, p) =>
      p.error ? log.warn({ err: p.error, tenantId }, 'actor snapshot unavailable') : log.info({ tenantId, reason: p.reason }, 'actor snapshot ignored; folding the log'),
  });
  stops.unshift(() => tenants.close());
  const artifacts = await openArtifactStore(nc, replicas);
  const policy = createAddressPolicy({ allowCidrs: config.ALLOW_PRIVATE_TARGETS });

  const projector = roles.has('projector') ? createProjector({ js, pool, log: log.child({ role: 'projector' }) }) : null;
  if (projector) {
    await projector.start();
    stops.unshift(() => projector.stop());
  }
  const waiter = createProjectionWaiter(pool, projector ?? undefined);
  const ctx: ServiceContext = { config, log, clock, tenants, pool, waiter, announceRevocation: (keyHash) => nc.publish(REVOCATION_SUBJECT, keyHash) };
  addScrapeProbe(async () => {
    const [jobs, deliveries, ledger, checkpoint] = await Promise.all([
      jsm.streams.info(JOBS_STREAM),
      jsm.streams.info(DELIVERIES_STREAM),
      jsm.streams.info(LEDGER_STREAM),
      readCheckpoint(pool),
    ]);
    queueDepth.set({ queue: 'JOBS' }, jobs.state.messages);
    queueDepth.set({ queue: 'DELIVERIES' }, deliveries.state.messages);
    projectionLag.set(Math.max(0, ledger.state.last_seq - checkpoint));
  });

  if (roles.has('worker')) {
    // Signed in this process when it has the signer role too (SIGNER=local), else by a signer over NATS;
    // SIGNING_KEY=none: no bundles.
    const bundleNotary = config.SIGNING_KEY === 'none' ? null : roles.has('signer') ? evidence.notary : remoteNotary(nc);
    const feeder: Feeder = await startJobFeeder(js, jsm, log.child({ role: 'job-feeder' }));
    const connections = createConnectionLog(); // what the proxy connected to, for provenance records
    const proxy: EgressProxy = await startEgressProxy({ policy, connections, log: log.child({ role: 'egress-proxy' }) });
    // Overload is slowness (DESIGN decision 13): bounds count page time, concurrency follows the host's capacity.
    const hostLoad = startHostLoad();
    const browsers: BrowserPool = createBrowserPool({ chromiumPath: config.CHROMIUM_PATH, proxyServer: proxy.url, concurrency: config.WORKER_CONCURRENCY, hostLoad });
    const governor = startCapacityGovernor({
      hostLoad,
      max: config.WORKER_CONCURRENCY,
      min: availableParallelism(),
      running: () => browsers.stats().running,
      apply: (limit) => browsers.setConcurrency(limit),
      log: log.child({ role: 'worker' }),
    });
    const worker: CaptureWorker = await startCaptureWorker({
      js,
      jsm,
      // With the api role here the actors are here; otherwise an api process decides (docs/security.md).
      outcomes: roles.has('api') ? localCaptureOutcomes(tenants) : natsCaptureOutcomes(nc),
      artifacts,
      browsers,
      log: log.child({ role: 'worker' }),
      clock,
      concurrency: () => governor.limit(),
      timeoutMs: config.CAPTURE_TIMEOUT_MS,
      attempts: await openAttemptStore(nc, replicas),
      policy: { serviceDelaysMs: config.CAPTURE_RETRY_DELAYS.map((s) => s * 1000), pageDelayMs: defaultPageDelayMs },
      explainNetworkError: (url) => proxy.explain(url),
      ...(bundleNotary ? { notary: bundleNotary } : {}),
      observedConnections: (hosts, since) => connections.observed(hosts, since),
    });
    stops.unshift(async () => {
      await feeder.stop();
      await worker.stop();
      governor.stop();
      await browsers.close();
      hostLoad.stop();
      await proxy.close();
    });
  }

  const webhookCa = roles.has('dispatcher') || roles.has('api') ? await loadWebhookCa(config.WEBHOOK_CA_CERTS) : [];
  const webhookSecrets = roles.has('dispatcher') || roles.has('api') ? await openWebhookSecretStore(nc, replicas) : null;
  if (roles.has('dispatcher')) {
    // Webhook events from the log: the feeder enqueues deliveries, the dispatcher sends and records them.
    const webhookFeeder = await startWebhookFeeder({
      js,
      jsm,
      pool,
      waiter,
      log: log.child({ role: 'webhook-feeder' }),
      publicBaseUrl: config.PUBLIC_BASE_URL,
      secrets: webhookSecrets!,
    });
    const dispatcher = await startWebhookDispatcher({
      js,
      jsm,
      pool,
      tenants,
      log: log.child({ role: 'dispatcher' }),
      clock,
      policy,
      ca: webhookCa,
      retryDelaysSec: config.WEBHOOK_RETRY_DELAYS,
      secrets: webhookSecrets!,
    });
    stops.unshift(async () => {
      await webhookFeeder.stop();
      await dispatcher.stop();
    });
  }

  if (roles.has('scheduler')) {
    // Any number of schedulers may run: the tenant actor's OCC append makes each fire time fire once.
    const scheduler = createScheduler({ pool, tenants, clock, log: log.child({ role: 'scheduler' }) });
    scheduler.start();
    stops.unshift(() => scheduler.stop());
  }

  let app: FastifyInstance | null = null;
  let url: string | null = null;
  if (!roles.has('api')) {
    // Every role answers /health and /metrics, so a scaled deployment can be probed and scraped.
    const http = await startRoleHttp({ port: config.PORT, host: config.HOST, roles: [...roles], ready: createReadiness(nc, pool), metricsToken: config.METRICS_TOKEN });
    url = http.url;
    stops.unshift(() => http.close());
  }
  if (roles.has('api')) {
    // Workers in other processes report capture outcomes here; this role decides and appends them.
    const outcomeService = serveCaptureOutcomes(nc, tenants, log.child({ role: 'capture-outcomes' }));
    stops.unshift(() => outcomeService.stop());
    const limiter = await createKvRateLimiter(nc, { replicas, onError: (err) => log.warn({ err }, 'rate limiter unavailable; letting the request through') });
    const resolver = createKeyResolver(pool);
    const revocations = nc.subscribe(REVOCATION_SUBJECT, { callback: (_err, msg) => resolver.evict(msg.string()) });
    const usage = createUsageRecorder(tenants, clock);
    const guard = createTenantGuard(config, resolver, limiter, (p) => usage.count(p.tenantId));
    // The application services both ways in call: REST routes and MCP tools (DESIGN decision 15).
    const admission = createCaptureAdmission({ ctx, policy, backlog: jobBacklog(jsm), takeTenantTokens: guard.takeTenantTokens });
    const reads = createCaptureReads(ctx, artifacts, transparency.service ?? undefined);
    const verification = createCaptureVerification(ctx, artifacts, evidence, transparency.service ?? undefined);
    const schedules = createSchedules(ctx, policy);
    const webhooks = createWebhooks(ctx, { policy, ca: webhookCa, secrets: webhookSecrets! });
    const usageOf = (tenantId: string) => accountUsage(ctx, tenantId);
    const cors = createCors(config.CORS_ORIGINS);
    // Certificates are signed by the signer role: in this process when it has that role, else over NATS.
    const trust = deploymentTrust(pool, evidence, async () => (transparency.service ? transparency.service.logKey() : null));
    const certificates = createCertificates({
      pool,
      artifacts,
      store: await openCertificateStore(nc, replicas),
      notary: config.SIGNING_KEY === 'none' ? null : roles.has('signer') ? evidence.notary : remoteNotary(nc),
      trust,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
      transparency: transparency.service ?? undefined,
    });
    const captureCertificates = createCaptureCertificates(certificates, trust, {
      async bundleHashOf(captureId) {
        const row = await findCapture(pool, captureId);
        return row?.status === 'complete' && row.bundle ? row.bundle.bundleHash : null;
      },
    });
    // Archived pages replay on an origin of their own, never the verifier's (issue 28 §1).
    const replay = await startReplayServer({ config, verification, reads, guard, log });
    stops.unshift(() => replay.close());
    app = await buildApp({
      log,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      metricsToken: config.METRICS_TOKEN,
      trustProxy: config.TRUST_PROXY,
      plugins: [
        healthRoutes(ctx, createReadiness(nc, pool)),
        adminKeyRoutes(config, limiter, createApiKeys(ctx)),
        captureRoutes({ guard, admission, reads, cors }),
        verificationRoutes(guard, verification, evidence, replay.origin),
        certificateRoutes(guard, captureCertificates),
        ...(transparency.service ? [transparencyLogRoutes(transparency.service, guard)] : []),
        scheduleRoutes({ guard, schedules }),
        tenancyRoutes({ config, guard, usage: usageOf, tenants: createTenantAdministration(ctx) }),
        webhookRoutes({ guard, webhooks }),
        adminWebhookRoutes(config, guard, webhooks),
        mcpRoutes({
          guard,
          cors,
          admission,
          reads,
          verification,
          schedules,
          usage: usageOf,
          certificatePdf: (captureId) => captureCertificates.certificatePdf(captureId, log),
          publicBaseUrl: config.PUBLIC_BASE_URL,
        }),
      ],
    });
    url = await app.listen({ port: config.PORT, host: config.HOST });
    stops.unshift(async () => {
      await app!.close();
      revocations.unsubscribe();
      await usage.stop();
    });
  }

  return {
    url,
    app,
    ctx,
    nats: { nc, js, jsm },
    store,
    projector,
    evidence,
    transparency: transparency.service,
    stop: stopAll,
  };
}
