import { createKeyResolver } from '../api/auth.js';
import { createCors } from '../api/cors.js';
import { createKvRateLimiter } from '../api/kv-rate-limiter.js';
import { createOperatorGuard } from '../api/operator-auth.js';
import { createMemoryRateLimiter } from '../api/rate-limiter.js';
import { REVOCATION_SUBJECT } from '../api/routes/admin-keys.js';
import { createTenantGuard } from '../api/tenant-auth.js';
import { createUsageRecorder, type UsageRecorder } from '../api/usage-recorder.js';
import { type ConsoleSessions, createConsoleSessions, sessionPolicy } from '../application/console-sessions.js';
import { openKvSessionStore } from '../infra/kv-console-session-store.js';
import type { DatabaseRuntime } from '../roles/database-runtime.js';
import type { ProcessRuntime } from '../roles/process-runtime.js';
import type { ApiRuntime } from './feature.js';

export interface CallerAccess extends Pick<ApiRuntime, 'guard' | 'operator' | 'cors'> {
  /** Console sign-in: sessions in a KV bucket, so any API process serves a session another opened. */
  sessions: ConsoleSessions;
  /** Counts of API calls not yet recorded; `stop()` records them and ends the periodic flush. */
  usage: UsageRecorder;
  stop(): Promise<void>;
}

/**
 * Who may call the api role, shared by every feature: tenant keys (cached, evicted when any process revokes one),
 * console sessions, the rate limits (in a KV bucket unless RATE_LIMIT_STORE=memory) and the usage count.
 */
export async function openCallerAccess(runtime: ProcessRuntime, data: DatabaseRuntime): Promise<CallerAccess> {
  const { config, log, nats } = runtime;
  const limiter =
    config.RATE_LIMIT_STORE === 'memory'
      ? createMemoryRateLimiter()
      : await createKvRateLimiter(nats.nc, {
          replicas: config.NATS_REPLICAS,
          onError: (err) => log.warn({ err }, 'rate limiter unavailable; letting the request through'),
        });
  const resolver = createKeyResolver(data.ctx.pool);
  const revocations = nats.nc.subscribe(REVOCATION_SUBJECT, { callback: (_err, msg) => resolver.evict(msg.string()) });
  const usage = createUsageRecorder(data.ctx.tenants, runtime.clock);
  const sessions = createConsoleSessions(
    await openKvSessionStore(nats.nc, config.NATS_REPLICAS),
    runtime.clock,
    sessionPolicy(config),
  );
  const consoleAccess = { sessions, publicBaseUrl: config.PUBLIC_BASE_URL };
  return {
    guard: createTenantGuard(config, resolver, limiter, (p) => usage.count(p.tenantId), consoleAccess),
    operator: createOperatorGuard(config, limiter, consoleAccess),
    cors: createCors(config.CORS_ORIGINS),
    sessions,
    usage,
    async stop() {
      revocations.unsubscribe();
      await usage.stop();
    },
  };
}
