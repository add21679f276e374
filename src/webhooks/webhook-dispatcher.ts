import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { Clock } from '../domain/clock.js';
import { DELIVERIES_STREAM, WEBHOOK_JOB_SUBJECT } from '../ledger/streams.js';
import type { AddressPolicy } from '../net/index.js';
import { decideAfterAttempt, maxAttempts } from './delivery-policy.js';
import { decodeDeliveryJob, type DeliveryJob } from './delivery-job.js';
import { webhookDeliveries } from '../observability/metrics.js';
import { runWorkQueue } from '../ledger/work-queue.js';
import { secretOfWebhook, type WebhookSecretStore } from './webhook-secret-store.js';
import { DELIVERY_TIMEOUT_MS, sendWebhook } from './webhook-sender.js';
import { isDeliveryFinished } from '../../projections/read-models/webhook-deliveries.js';
import { findWebhookSecrets } from '../../projections/read-models/webhooks.js';
import { DURABLES } from '../infra/topology.js';

/**
 * The webhook dispatcher (spec 6.6): takes deliveries from the DELIVERIES work queue, signs and POSTs each
 * at send time, and records every attempt in the tenant's ledger. The attempt number is JetStream's delivery
 * count, and the wait before the next attempt is a delayed nak, so the schedule lives in JetStream: a
 * dispatcher killed between attempts resumes it wherever the next one runs. After the last attempt (or a
 * permanent failure) the delivery is dead-lettered and acked, never delivered again.
 */
export const DISPATCHER_CONSUMER = DURABLES.webhookDispatchers.name;
const ACK_WAIT_MS = 30_000;
const HEARTBEAT_MS = 5_000;

export interface WebhookDispatcherDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  pool: pg.Pool;
  tenants: TenantActors;
  log: Logger;
  clock: Clock;
  policy: AddressPolicy;
  /** Extra trusted CAs (WEBHOOK_CA_CERTS), PEM. */
  ca: string[];
  /** WEBHOOK_RETRY_DELAYS, seconds. */
  retryDelaysSec: number[];
  /** Each webhook's secret key (crypto-shredding). */
  secrets: WebhookSecretStore;
  concurrency?: number;
  timeoutMs?: number;
}

export interface WebhookDispatcher {
  stop(): Promise<void>;
  inFlight(): number;
}

const system = (job: DeliveryJob) => ({
  correlationId: job.correlationId,
  causedBy: { kind: 'system' as const, component: 'webhook-dispatcher' },
});

export async function startWebhookDispatcher(deps: WebhookDispatcherDeps): Promise<WebhookDispatcher> {
  const d: Dispatcher = {
    deps,
    timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    max: maxAttempts(deps.retryDelaysSec),
  };
  const queue = await runWorkQueue({
    js: deps.js,
    jsm: deps.jsm,
    stream: DELIVERIES_STREAM,
    subject: WEBHOOK_JOB_SUBJECT,
    durable: DISPATCHER_CONSUMER,
    ackWaitMs: ACK_WAIT_MS,
    concurrency: deps.concurrency ?? 16,
    spanName: 'webhook.delivery',
    log: deps.log,
    handle: (msg) => handleDelivery(d, msg),
  });
  return {
    inFlight: () => queue.inFlight(),
    // Let running deliveries finish and record (bounded by the delivery timeout).
    stop: () => queue.stop(d.timeoutMs + 5000),
  };
}

/** The dispatcher's deps, its delivery timeout and how many attempts a delivery gets. */
interface Dispatcher {
  deps: WebhookDispatcherDeps;
  timeoutMs: number;
  max: number;
}

async function deadLetter(d: Dispatcher, job: DeliveryJob, attempts: number, reason: string): Promise<void> {
  await d.deps.tenants.execute(
    job.tenantId,
    {
      type: 'DeadLetterDelivery',
      data: {
        deliveryId: job.deliveryId,
        webhookId: job.webhookId,
        eventId: job.eventId,
        eventType: job.eventType,
        attempts,
        reason,
      },
    },
    system(job),
  );
}

/** One delivery job: acked when finished already, dead-lettered when out of attempts or secret, else attempted. */
async function handleDelivery(d: Dispatcher, msg: JsMsg): Promise<void> {
  const { deps, max } = d;
  const job = decodeDeliveryJob(msg.data);
  const attempt = msg.info.deliveryCount;
  const log = deps.log.child({
    deliveryId: job.deliveryId,
    webhookId: job.webhookId,
    eventId: job.eventId,
    attempt,
    correlationId: job.correlationId,
  });
  // Already delivered or dead-lettered (a redelivery after a crash between recording and acking).
  if (await isDeliveryFinished(deps.pool, job.deliveryId)) {
    msg.ack();
    return;
  }
  if (attempt > max) {
    // Its attempts were used up, the last by a dispatcher that stopped mid-delivery.
    await deadLetter(
      d,
      job,
      max,
      `no successful delivery after ${max} attempts (the dispatcher stopped during the last one)`,
    );
    msg.ack();
    return;
  }
  const hook = await findWebhookSecrets(deps.pool, job.webhookId);
  const secret = hook ? await secretOfWebhook(deps.secrets, hook) : null;
  if (!secret) {
    // spec 3.3: deletion discards the secret, and an unsigned event must not be sent.
    await deadLetter(
      d,
      job,
      attempt - 1,
      'the webhook was deleted and its secret discarded before the event could be delivered',
    );
    msg.ack();
    log.info('delivery dead-lettered: webhook deleted');
    return;
  }
  const heartbeat = setInterval(() => msg.working(), HEARTBEAT_MS);
  try {
    await attemptDelivery(d, msg, job, secret, log);
  } finally {
    clearInterval(heartbeat);
  }
}

/** Send the signed event once, record the attempt, then ack, retry later or dead-letter as the policy decides. */
async function attemptDelivery(
  d: Dispatcher,
  msg: JsMsg,
  job: DeliveryJob,
  secret: string,
  log: Logger,
): Promise<void> {
  const { deps } = d;
  const attempt = msg.info.deliveryCount;
  const sent = await sendWebhook(
    { policy: deps.policy, clock: deps.clock, ca: deps.ca, timeoutMs: d.timeoutMs },
    { url: job.url, secret, eventId: job.eventId, body: job.body },
  );
  const decision = decideAfterAttempt(attempt, sent.result, deps.retryDelaysSec);
  const nextAttemptAt =
    decision.kind === 'retry' ? new Date(deps.clock.now().getTime() + decision.delayMs).toISOString() : undefined;
  await deps.tenants.execute(
    job.tenantId,
    {
      type: 'RecordDeliveryAttempt',
      data: {
        deliveryId: job.deliveryId,
        webhookId: job.webhookId,
        eventId: job.eventId,
        eventType: job.eventType,
        attempt,
        outcome: decision.kind === 'delivered' ? 'delivered' : 'failed',
        httpStatus: sent.httpStatus,
        ...(sent.detail ? { detail: sent.detail } : {}),
        latencyMs: sent.latencyMs,
        ...(nextAttemptAt ? { nextAttemptAt } : {}),
      },
    },
    system(job),
  );
  webhookDeliveries.inc({ outcome: decision.kind === 'retry' ? 'failed' : decision.kind });
  switch (decision.kind) {
    case 'delivered':
      msg.ack();
      log.info({ httpStatus: sent.httpStatus, latencyMs: sent.latencyMs }, 'webhook delivered');
      break;
    case 'retry':
      msg.nak(decision.delayMs);
      log.info({ detail: sent.detail, delayMs: decision.delayMs }, 'webhook attempt failed; will retry');
      break;
    case 'dead_letter':
      await deadLetter(d, job, attempt, decision.reason);
      msg.ack();
      log.warn({ reason: decision.reason }, 'webhook delivery dead-lettered');
      break;
  }
}
