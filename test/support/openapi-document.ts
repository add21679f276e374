import pino from 'pino';
import { buildApp, type TypedApp } from '../../src/api/app.js';
import type { ServiceContext } from '../../src/application/service-context.js';
import { createCors } from '../../src/api/cors.js';
import { adminKeyRoutes } from '../../src/api/routes/admin-keys.js';
import { createOperatorGuard } from '../../src/api/operator-auth.js';
import { captureRoutes } from '../../src/api/routes/captures.js';
import { certificateRoutes } from '../../src/api/routes/certificates.js';
import { captureDiffRoutes } from '../../src/watch/diff-routes.js';
import { consoleOidcRoutes } from '../../src/api/routes/console-oidc.js';
import { consoleSessionRoutes } from '../../src/api/routes/console-session.js';
import { healthRoutes } from '../../src/api/routes/health.js';
import { retentionRoutes } from '../../src/api/routes/retention.js';
import { vantageRoutes } from '../../src/vantages/vantage-routes.js';
import { operatorViewRoutes } from '../../src/api/routes/operator-views.js';
import { scheduleRoutes } from '../../src/api/routes/schedules.js';
import { tenancyRoutes } from '../../src/api/routes/tenancy.js';
import { verificationRoutes } from '../../src/api/routes/verification.js';
import { transparencyLogRoutes } from '../../src/api/routes/transparency-log.js';
import { adminWebhookRoutes, webhookRoutes } from '../../src/api/routes/webhooks.js';
import type { TenantGuard } from '../../src/api/tenant-auth.js';
import { loadConfig } from '../../src/config/config.js';
import { archiveRoutes } from '../../src/ledger-archive/archive-routes.js';
import { profileRoutes } from '../../src/profiles/profile-routes.js';
import { remoteBrowserRoutes } from '../../src/profiles/remote-browser/routes.js';
import type { OpenApiDoc } from './openapi-check.js';

const stub = <T>(): T => ({}) as T;
const guard: TenantGuard = {
  require: () => async () => {},
  authenticate: async () => ({ tenantId: 't', scopes: [], keyHash: null }),
  authorize: async () => {},
  permit: () => {},
  perIp: () => async () => {},
  takeTenantTokens: async () => ({ allowed: true, retryAfterSec: 0 }),
  openSession: async () => stub(),
  consoleSession: async () => null,
};

/**
 * The API's plugins in an app built without NATS or Postgres (nothing is called), for checks of the OpenAPI
 * document they produce. A new route plugin is added here so the document checks see it.
 */
export async function openApiApp(): Promise<{ app: TypedApp; doc: OpenApiDoc }> {
  const config = loadConfig({ PUBLIC_BASE_URL: 'http://api.test', SIGNING_KEY: 'none', TSA_URL: 'none' });
  const ctx = { ...stub<ServiceContext>(), config };
  const app = await buildApp({
    log: pino({ level: 'silent' }),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    plugins: [
      healthRoutes(ctx, stub()),
      consoleSessionRoutes({
        guard,
        operator: createOperatorGuard(config, stub()),
        sessions: stub(),
        publicBaseUrl: config.PUBLIC_BASE_URL,
      }),
      consoleOidcRoutes({ guard, signIn: stub(), publicBaseUrl: config.PUBLIC_BASE_URL, clock: stub() }),
      adminKeyRoutes(createOperatorGuard(config, stub()), stub()),
      captureRoutes({ guard, admission: stub(), reads: stub(), cors: createCors([]) }),
      verificationRoutes(guard, stub(), stub(), 'http://replay.test', { publicBaseUrl: 'http://api.test', log: true }),
      vantageRoutes(guard, []),
      certificateRoutes(guard, stub()),
      captureDiffRoutes(guard, stub()),
      scheduleRoutes({ guard, schedules: stub() }),
      tenancyRoutes({
        guard,
        operator: createOperatorGuard(config, stub()),
        usage: stub(),
        usageDaily: stub(),
        tenants: stub(),
      }),
      operatorViewRoutes({
        guard,
        operator: createOperatorGuard(config, stub()),
        reports: stub(),
        capacity: stub(),
        checks: stub(),
      }),
      retentionRoutes(guard, createOperatorGuard(config, stub()), stub()),
      webhookRoutes({ guard, webhooks: stub() }),
      profileRoutes({ guard, profiles: stub() }),
      remoteBrowserRoutes({ guard, browsers: stub(), publicBaseUrl: config.PUBLIC_BASE_URL }),
      archiveRoutes({ guard, operator: createOperatorGuard(config, stub()), lag: null }),
      adminWebhookRoutes(createOperatorGuard(config, stub()), guard, stub()),
      transparencyLogRoutes(stub(), guard),
    ],
  });
  await app.ready();
  return { app, doc: app.swagger() as unknown as OpenApiDoc };
}
