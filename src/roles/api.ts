import type { FastifyInstance } from 'fastify';
import { findCapture, findCaptureStatusFields } from '../../projections/read-models/captures.js';
import { buildApp } from '../api/app.js';
import { createKeyResolver } from '../api/auth.js';
import { createCors } from '../api/cors.js';
import { createKvRateLimiter } from '../api/kv-rate-limiter.js';
import { createMemoryRateLimiter } from '../api/rate-limiter.js';
import { mcpRoutes } from '../api/mcp/mcp-routes.js';
import { createOperatorGuard } from '../api/operator-auth.js';
import { adminKeyRoutes, REVOCATION_SUBJECT } from '../api/routes/admin-keys.js';
import { captureRoutes } from '../api/routes/captures.js';
import { certificateRoutes } from '../api/routes/certificates.js';
import { captureDiffRoutes } from '../api/routes/capture-diffs.js';
import { consoleOidcRoutes } from '../api/routes/console-oidc.js';
import { consoleSessionRoutes } from '../api/routes/console-session.js';
import { consoleRoutes } from '../api/routes/console-pages.js';
import { healthRoutes } from '../api/routes/health.js';
import { operatorViewRoutes } from '../api/routes/operator-views.js';
import { scheduleRoutes } from '../api/routes/schedules.js';
import { tenancyRoutes } from '../api/routes/tenancy.js';
import { retentionRoutes } from '../api/routes/retention.js';
import { createRetention, evidenceRetention } from '../application/retention.js';
import { vantageRoutes } from '../api/routes/vantages.js';
import { createCorroborations } from '../application/corroboration.js';
import { corroborationStore } from '../application/corroboration-storage.js';
import { transparencyLogRoutes } from '../api/routes/transparency-log.js';
import { verificationRoutes } from '../api/routes/verification.js';
import { startReplayServer } from '../api/replay-server.js';
import { adminWebhookRoutes, webhookRoutes } from '../api/routes/webhooks.js';
import { createTenantGuard } from '../api/tenant-auth.js';
import { createUsageRecorder, type UsageRecorder } from '../api/usage-recorder.js';
import { accountUsage, accountUsageDaily } from '../application/account-usage.js';
import { createAnalystReports } from '../application/analyst-reports.js';
import { createApiKeys } from '../application/api-keys.js';
import { createCaptureAdmission } from '../application/capture-admission.js';
import { createCaptureCertificates } from '../application/capture-certificates.js';
import { createCaptureDiffs } from '../application/capture-diffs.js';
import { createCaptureReads } from '../application/capture-reads.js';
import { createCapacity } from '../application/capacity.js';
import { createOperatorChecks } from '../application/operator-checks.js';
import { createCaptureVerification } from '../application/capture-verification.js';
import { createConsoleOidcSignIn } from '../application/console-oidc.js';
import { createConsoleSessions, sessionPolicy } from '../application/console-sessions.js';
import { createSchedules } from '../application/schedules.js';
import { createTenantAdministration } from '../application/tenant-administration.js';
import { createWebhooks } from '../application/webhooks.js';
import { serveCaptureOutcomes } from '../capture/capture-outcomes.js';
import { createCertificates, openCertificateStore } from '../evidence/certificate.js';
import { certificateStore } from '../evidence/certificate-storage.js';
import { deploymentTrust } from '../evidence/trust-anchors.js';
import { openCheckStore } from '../infra/kv-check-store.js';
import { openKvSessionStore } from '../infra/kv-console-session-store.js';
import { createOidcRelyingParty } from '../infra/oidc-relying-party.js';
import { watchNatsLink } from '../infra/nats-link.js';
import { jobBacklog, jobQueueState } from '../ledger/job-backlog.js';
import { createReadiness } from '../observability/readiness.js';
import { remoteBrowserFeature } from '../profiles/remote-browser/index.js';
import { ownLogMonitor } from '../transparency/own-log-monitor.js';
import { startWatchRunner } from '../watch/watch-runner.js';
import type { DatabaseRuntime } from './database-runtime.js';
import type { ProcessRuntime } from './process-runtime.js';

export interface ApiRole {
  app: FastifyInstance;
  url: string;
  /** Counts of API calls not yet recorded; `stop()` records them and ends the periodic flush. */
  usage: UsageRecorder;
  stop(): Promise<void>;
}

/**
 * The api role: decides the capture outcomes workers report (the tenant actors live here), and serves REST
 * and MCP. Both ways in call the same application services (DESIGN decision 15); routes only translate HTTP.
 */
export async function startApiRole(runtime: ProcessRuntime, data: DatabaseRuntime): Promise<ApiRole> {
  const { config, log, nats, evidence } = runtime;
  const { ctx, artifacts, policy } = data;
  // Everything made of a capture later is locked like its own artifacts (docs/storage.md, Retention).
  const evidenceRetainUntil = evidenceRetention(ctx, artifacts);
  const transparency = runtime.transparency ?? undefined;
  // Workers in other processes report capture outcomes here; this role decides and appends them.
  const outcomeService = serveCaptureOutcomes(nats.nc, ctx.tenants, log.child({ role: 'capture-outcomes' }));
  const limiter =
    config.RATE_LIMIT_STORE === 'memory'
      ? createMemoryRateLimiter()
      : await createKvRateLimiter(nats.nc, {
          replicas: config.NATS_REPLICAS,
          onError: (err) => log.warn({ err }, 'rate limiter unavailable; letting the request through'),
        });
  const resolver = createKeyResolver(ctx.pool);
  const revocations = nats.nc.subscribe(REVOCATION_SUBJECT, { callback: (_err, msg) => resolver.evict(msg.string()) });
  const usage = createUsageRecorder(ctx.tenants, runtime.clock);
  // Console sign-in: sessions in a KV bucket, so any API process serves a session another opened.
  const sessions = createConsoleSessions(
    await openKvSessionStore(nats.nc, config.NATS_REPLICAS),
    runtime.clock,
    sessionPolicy(config),
  );
  const consoleAccess = { sessions, publicBaseUrl: config.PUBLIC_BASE_URL };
  const guard = createTenantGuard(config, resolver, limiter, (p) => usage.count(p.tenantId), consoleAccess);
  const operator = createOperatorGuard(config, limiter, consoleAccess);

  // Corroborated sets: records signed like certificates, kept in the certificates bucket.
  const corroborations = runtime.evidenceNotary
    ? createCorroborations({
        pool: ctx.pool,
        artifacts,
        // With S3, records are stored under each member capture, locked like its evidence.
        store: corroborationStore(
          artifacts,
          await openCertificateStore(nats.nc, config.NATS_REPLICAS),
          evidenceRetainUntil,
        ),
        notary: runtime.evidenceNotary,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        recordAttestation: async (set, signed) => {
          await ctx.tenants.execute(
            set.tenantId,
            {
              type: 'RecordCorroborationAttestation',
              data: {
                corroborationId: set.id,
                captureIds: set.members.map((m) => m.captureId),
                recordHash: signed.recordHash,
                keyId: signed.signature.keyId,
                genTime: signed.timestamp?.genTime ?? null,
              },
            },
            { correlationId: set.id, causedBy: { kind: 'system', component: 'corroboration' } },
          );
        },
      })
    : undefined;
  const admission = createCaptureAdmission({
    ctx,
    policy,
    backlog: jobBacklog(nats.jsm),
    takeTenantTokens: guard.takeTenantTokens,
    ...(corroborations ? { corroborations } : {}),
  });
  const reads = createCaptureReads(ctx, artifacts, transparency);
  const verification = createCaptureVerification(ctx, artifacts, evidence, transparency);
  const schedules = createSchedules(ctx, policy);
  // Watch lists: diffs of two captures, and each watched schedule run compared with the one before.
  const diffs = createCaptureDiffs(ctx, artifacts, runtime.evidenceNotary, evidenceRetainUntil);
  const watch = await startWatchRunner({
    js: nats.js,
    jsm: nats.jsm,
    pool: ctx.pool,
    waiter: ctx.waiter,
    tenants: ctx.tenants,
    diffs,
    log: log.child({ role: 'watch' }),
  });
  const webhooks = createWebhooks(ctx, { policy, ca: await data.webhookCa(), secrets: await data.webhookSecrets() });
  const usageOf = (tenantId: string) => accountUsage(ctx, tenantId);
  const cors = createCors(config.CORS_ORIGINS);
  // Certificates are signed by the signer role: in this process when it has that role, else over NATS.
  const trust = deploymentTrust(ctx.pool, evidence, async () => (transparency ? transparency.logKey() : null));
  const certificates = createCertificates({
    pool: ctx.pool,
    artifacts,
    // With S3, certificates are stored beside the artifacts, locked like them; the KV bucket stays readable.
    store: certificateStore(artifacts, await openCertificateStore(nats.nc, config.NATS_REPLICAS), evidenceRetainUntil),
    notary: runtime.evidenceNotary,
    trust,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
    transparency,
    corroborations,
  });
  // The operators' checks: results the CLI records, and the log monitor run here against this deployment's log.
  const checks = createOperatorChecks({
    store: await openCheckStore(nats.nc, config.NATS_REPLICAS),
    clock: runtime.clock,
    ownLogMonitor: transparency ? ownLogMonitor(transparency) : null,
  });
  const captureCertificates = createCaptureCertificates(certificates, trust, {
    async bundleHashOf(captureId) {
      const row = await findCapture(ctx.pool, captureId);
      return row?.status === 'complete' && row.bundle ? row.bundle.bundleHash : null;
    },
    async statusOf(captureId) {
      return (await findCaptureStatusFields(ctx.pool, captureId))?.status ?? null;
    },
  });

  const remoteBrowser = remoteBrowserFeature({
    config,
    policy,
    ownListeners: data.ownListeners,
    states: runtime.profileStates,
    guard,
    log,
  });
  // Archived pages replay on an origin of their own, never the verifier's.
  const replay = await startReplayServer({ config, verification, reads, guard, log });
  data.ownListeners.add(config.HOST, replay.port);
  const natsLink = watchNatsLink(nats.nc);
  const app = await buildApp({
    log,
    natsDownForMs: natsLink.downForMs,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    metricsToken: config.METRICS_TOKEN,
    trustProxy: config.TRUST_PROXY,
    plugins: [
      healthRoutes(ctx, createReadiness(nats.nc, ctx.pool), artifacts.health),
      consoleSessionRoutes({ guard, operator, sessions, publicBaseUrl: config.PUBLIC_BASE_URL }),
      consoleOidcRoutes({
        guard,
        signIn: createConsoleOidcSignIn({
          providers: config.CONSOLE_OIDC_PROVIDERS,
          relyingParty: createOidcRelyingParty(),
          sessions,
        }),
        publicBaseUrl: config.PUBLIC_BASE_URL,
        clock: runtime.clock,
      }),
      adminKeyRoutes(operator, createApiKeys(ctx)),
      captureRoutes({ guard, admission, reads, cors, corroborations }),
      vantageRoutes(guard, config.VANTAGES, corroborations),
      verificationRoutes(
        guard,
        verification,
        evidence,
        replay.origin,
        { publicBaseUrl: config.PUBLIC_BASE_URL, log: Boolean(transparency) },
        corroborations,
      ),
      certificateRoutes(guard, captureCertificates),
      captureDiffRoutes(guard, diffs),
      ...(transparency ? [transparencyLogRoutes(transparency, guard)] : []),
      scheduleRoutes({ guard, schedules }),
      tenancyRoutes({
        guard,
        operator,
        usage: usageOf,
        usageDaily: (tenantId, period) => accountUsageDaily(ctx, tenantId, period),
        tenants: createTenantAdministration(ctx),
      }),
      retentionRoutes(guard, operator, createRetention(ctx, artifacts)),
      operatorViewRoutes({
        guard,
        operator,
        reports: createAnalystReports(ctx),
        capacity: createCapacity({
          config,
          jobQueue: jobQueueState(nats.jsm),
          runsWorker: runtime.roles.has('worker'),
        }),
        checks,
      }),
      webhookRoutes({ guard, webhooks }),
      remoteBrowser.routes,
      adminWebhookRoutes(operator, guard, webhooks),
      // The console: one more client of the routes above (DESIGN decision 17).
      consoleRoutes({ replayOrigin: replay.origin, publicBaseUrl: config.PUBLIC_BASE_URL }),
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
  const url = await app.listen({ port: config.PORT, host: config.HOST });
  for (const bound of app.addresses()) if (typeof bound !== 'string') data.ownListeners.add(bound.address, bound.port);
  return {
    app,
    url,
    usage,
    async stop() {
      await app.close();
      await remoteBrowser.stop();
      natsLink.stop();
      revocations.unsubscribe();
      await usage.stop();
      await replay.close();
      await outcomeService.stop();
      await watch.stop();
    },
  };
}
