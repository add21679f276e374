import { startWebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { startWebhookFeeder } from '../webhooks/webhook-feeder.js';
import type { DatabaseRuntime } from './database-runtime.js';
import type { ProcessRuntime } from './process-runtime.js';

/** The dispatcher role: the feeder enqueues webhook deliveries from the log, the dispatcher sends and records them. */
export async function startDispatcherRole(
  runtime: ProcessRuntime,
  data: DatabaseRuntime,
): Promise<() => Promise<void>> {
  const { config, nats, clock, log } = runtime;
  const { ctx } = data;
  const secrets = await data.webhookSecrets();
  const feeder = await startWebhookFeeder({
    js: nats.js,
    jsm: nats.jsm,
    pool: ctx.pool,
    waiter: ctx.waiter,
    log: log.child({ role: 'webhook-feeder' }),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    secrets,
  });
  const dispatcher = await startWebhookDispatcher({
    js: nats.js,
    jsm: nats.jsm,
    pool: ctx.pool,
    tenants: ctx.tenants,
    log: log.child({ role: 'dispatcher' }),
    clock,
    policy: data.policy,
    ca: await data.webhookCa(),
    retryDelaysSec: config.WEBHOOK_RETRY_DELAYS,
    secrets,
  });
  return async () => {
    await feeder.stop();
    await dispatcher.stop();
  };
}
