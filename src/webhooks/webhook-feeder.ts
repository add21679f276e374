import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from 'pino';
import { type Feeder, runLedgerConsumer } from '../ledger/ledger-consumer.js';
import { traceMsgHeaders } from '../observability/nats-trace.js';
import type { TenantEvent, WebhookEventType } from '../domain/events.js';
import type { EventEnvelope } from '../ledger/envelope.js';
import { WEBHOOK_JOB_SUBJECT } from '../ledger/streams.js';
import type { ProjectionWaiter } from '../projector/projection-waiter.js';
import { deliveryMsgId, encodeDeliveryJob } from './delivery-job.js';
import type { WebhookSecretStore } from './webhook-secret-store.js';
import {
  captureChangedEnvelope,
  captureOutcomeEnvelope,
  deliveryIdOf,
  envelopeBody,
  type WebhookEnvelope,
  webhookTypeOf,
} from './webhook-events.js';
import { findSubmittedCapture } from '../../projections/read-models/captures.js';
import { finishedDeliveries } from '../../projections/read-models/webhook-deliveries.js';
import { lastLedgerSequence } from '../ledger/ledger-consumer.js';
import { webhooksSubscribedAsOf } from '../../projections/read-models/webhooks.js';
import { DURABLES } from '../infra/topology.js';

/**
 * Webhook events come from the log (DESIGN decision 3): a durable LEDGER consumer turns each capture outcome
 * into one envelope (id derived from the ledger event, so a redelivery builds the same one) and enqueues one
 * delivery per webhook of the tenant that subscribes to the type and existed at that point of the log. The
 * ledger event is acked only after its deliveries are stored; the DELIVERIES msgID drops repeats.
 *
 * A delivery the ledger already records as finished (delivered or dead-lettered) is not enqueued again. The
 * records of an event's deliveries follow the event in the log, so for an event the log held when this feeder
 * started (all of them after a restore: docs/operators.md, restore), the projection must first reach the log's
 * end as it stood then; only deliveries still owed at that point are sent.
 */
export const WEBHOOK_FEEDER_CONSUMER = DURABLES.webhookFeeder.name;

/** How long to wait for the projection to reach an event before handing it back for redelivery. */
const PROJECTION_WAIT_MS = 10_000;

export interface WebhookFeederDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  pool: pg.Pool;
  waiter: ProjectionWaiter;
  log: Logger;
  publicBaseUrl: string;
  /** A deleted webhook's key is destroyed here too, from the log, should the API have stopped before doing it. */
  secrets: WebhookSecretStore;
}

type Outcome = EventEnvelope<Extract<TenantEvent, { type: 'capture.completed' | 'capture.failed' }>>;

export async function startWebhookFeeder(deps: WebhookFeederDeps): Promise<Feeder> {
  const { js, pool, log } = deps;

  /** Webhooks of the tenant subscribed to `type`, registered before commit `seq` and not deleted before it. */
  async function subscribersAsOf(tenantId: string, type: string, seq: number, at: string) {
    return webhooksSubscribedAsOf(pool, tenantId, type, seq, at);
  }

  /** One delivery job per subscribed webhook, each deduplicated by its msgID. */
  async function enqueue(
    event: { tenantId: string; correlationId: string },
    envelope: WebhookEnvelope,
    hooks: Array<{ webhook_id: string; url: string }>,
    trace: Record<string, string>,
  ) {
    const type = envelope.type as WebhookEventType;
    const body = envelopeBody(envelope);
    await Promise.all(
      hooks.map((h) =>
        js.publish(
          WEBHOOK_JOB_SUBJECT,
          encodeDeliveryJob({
            deliveryId: deliveryIdOf(envelope.id, h.webhook_id),
            tenantId: event.tenantId,
            webhookId: h.webhook_id,
            url: h.url,
            eventId: envelope.id,
            eventType: type,
            body,
            correlationId: event.correlationId,
          }),
          { msgID: deliveryMsgId(envelope.id, h.webhook_id), headers: traceMsgHeaders(trace) },
        ),
      ),
    );
  }

  /** Webhooks of `hooks` whose delivery of `eventId` the projection does not show as finished. */
  async function owed(eventId: string, hooks: Array<{ webhook_id: string; url: string }>) {
    const finished = await finishedDeliveries(
      pool,
      hooks.map((h) => deliveryIdOf(eventId, h.webhook_id)),
    );
    return hooks.filter((h) => !finished.has(deliveryIdOf(eventId, h.webhook_id)));
  }

  const startHead = await lastLedgerSequence(deps.jsm);
  let reachedStartHead = startHead === 0;

  return runLedgerConsumer(js, deps.jsm, WEBHOOK_FEEDER_CONSUMER, log, async (e, seq, trace) => {
    if (e.type === 'webhook.deleted') return deps.secrets.shred(e.data.webhookId);
    // Extension: only webhooks that listed 'capture.changed' receive it.
    const type = e.type === 'capture.compared' ? (e.data.notify ? 'capture.changed' : null) : webhookTypeOf(e.type);
    if (!type) return;
    // The projection must hold this commit (and so every registration and deletion before it).
    // An event from before this feeder started: its deliveries' records may lie anywhere up to that end.
    const needed = seq <= startHead && !reachedStartHead ? startHead : seq;
    if (!(await deps.waiter.waitFor(needed, PROJECTION_WAIT_MS))) {
      throw new Error(`the projection has not reached ledger sequence ${needed} yet (is a projector running?)`);
    }
    if (needed === startHead) reachedStartHead = true;
    const subscribed = await subscribersAsOf(e.tenantId, type, seq, e.occurredAt);
    if (subscribed.length === 0) return;
    const captureId = (e as Outcome | EventEnvelope<Extract<TenantEvent, { type: 'capture.compared' }>>).data.captureId;
    const row = await findSubmittedCapture(pool, captureId);
    if (!row) throw new Error(`capture ${captureId} is not in the projection`);
    const envelope =
      e.type === 'capture.compared'
        ? captureChangedEnvelope(deps.publicBaseUrl, e, row.url)
        : captureOutcomeEnvelope(deps.publicBaseUrl, e as Outcome, row);
    const hooks = await owed(envelope.id, subscribed);
    if (hooks.length === 0) return;
    await enqueue(e, envelope, hooks, trace);
    log.debug({ eventId: envelope.id, type, captureId, webhooks: hooks.length }, 'webhook deliveries enqueued');
  });
}
