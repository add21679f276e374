import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { migrate } from '../../../projections/migrate.js';
import { createTenantActors, type TenantActors } from '../../../src/actors/tenant-actors.js';
import type { TenantCommand } from '../../../src/domain/tenant/tenant-commands.js';
import { newId } from '../../../src/domain/ids.js';
import { connectNats, type NatsHandles } from '../../../src/infra/nats.js';
import { createPool } from '../../../src/infra/postgres.js';
import { createEventStore } from '../../../src/ledger/event-store.js';
import { DELIVERIES_STREAM, LEDGER_STREAM } from '../../../src/ledger/streams.js';
import { createProjectionWaiter } from '../../../src/projector/projection-waiter.js';
import { createProjector } from '../../../src/projector/projector.js';
import { decodeDeliveryJob } from '../../../src/webhooks/delivery-job.js';
import { deliveryIdOf, webhookEventId } from '../../../src/webhooks/webhook-events.js';
import { startWebhookFeeder, WEBHOOK_FEEDER_CONSUMER } from '../../../src/webhooks/webhook-feeder.js';
import { openWebhookSecretStore } from '../../../src/webhooks/webhook-secret-store.js';
import { eventually, sleep } from '../../support/eventually.js';
import { type Infra, startInfra } from '../../support/harness.js';

const log = pino({ level: 'silent' });
const meta = { correlationId: 'test', causedBy: { kind: 'admin' as const } };
/** The projector's batch in this test: the ledger is several batches long. */
const BATCH = 10;

/**
 * After a restore the ledger is whole, the DELIVERIES work queue is empty, the feeder's durable is new and the
 * projection is rebuilt from nothing. The records of a delivery lie after its capture outcome in the log, here
 * several projector batches later, and every batch takes a while (a busy host): the feeder must not enqueue a
 * delivery the log records as delivered or dead-lettered, only those still owed.
 */
describe('webhook feeder after a restore', () => {
  let infra: Infra;
  let nats: NatsHandles;
  let tenants: TenantActors;
  before(async () => {
    infra = await startInfra();
    nats = await connectNats(infra.nats.url, 'test');
    tenants = createTenantActors(createEventStore(nats.js, nats.jsm));
  });
  after(async () => {
    tenants?.close();
    await nats?.nc.close();
    await infra?.stop();
  });

  it('enqueues only the deliveries the ledger does not record as finished, while the projection is behind', async () => {
    const run = (tenantId: string, command: TenantCommand) => tenants.execute(tenantId, command, meta);
    const secrets = await openWebhookSecretStore(nats.nc);
    const webhookId = newId('whk');
    await run('acme', {
      type: 'RegisterWebhook',
      data: {
        webhookId,
        url: 'https://hooks.example.org/acme',
        events: ['capture.complete', 'capture.failed'],
        name: 'hook',
        sealedSecret: await secrets.seal(webhookId, 'whsec_test'),
      },
    });

    // Eight capture outcomes, each firing one delivery to the webhook.
    const deliveries: Array<{ deliveryId: string; eventId: string; eventType: 'capture.complete' | 'capture.failed' }> =
      [];
    for (let i = 0; i < 8; i++) {
      const captureId = newId('cap');
      await run('acme', {
        type: 'SubmitCaptures',
        data: { captures: [{ captureId, url: `https://example.org/${i}` }], source: 'single' },
      });
      const outcome =
        i % 2
          ? await run('acme', {
              type: 'FailCapture',
              data: { captureId, error: 'DNS lookup failed', retryable: false, attempts: 1 },
            })
          : await run('acme', {
              type: 'CompleteCapture',
              data: {
                captureId,
                completedAt: new Date().toISOString(),
                renderQuality: 'full',
                render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
                artifacts: { screenshot: 's', html: 'h' },
                storedBytes: 100,
                attempts: 1,
              },
            });
      const eventType = i % 2 ? 'capture.failed' : 'capture.complete';
      const eventId = webhookEventId(outcome.appended.at(-1)!.event.id, eventType);
      deliveries.push({ deliveryId: deliveryIdOf(eventId, webhookId), eventId, eventType });
    }

    // Other tenants' traffic: the delivery records below lie batches after the outcomes.
    for (let i = 0; i < 5 * BATCH; i++) {
      await run(`other-${i % 3}`, { type: 'RecordApiCalls', data: { period: '2026-11', count: 1 } });
    }

    const attempt = (d: (typeof deliveries)[number], n: number, outcome: 'delivered' | 'failed') =>
      run('acme', {
        type: 'RecordDeliveryAttempt',
        data: {
          ...d,
          webhookId,
          attempt: n,
          outcome,
          httpStatus: outcome === 'delivered' ? 200 : 503,
          latencyMs: 5,
          ...(outcome === 'failed' ? { nextAttemptAt: new Date(Date.now() + 60_000).toISOString() } : {}),
        },
      });
    const deadLetter = (d: (typeof deliveries)[number], attempts: number) =>
      run('acme', {
        type: 'DeadLetterDelivery',
        data: { ...d, webhookId, attempts, reason: `no successful delivery after ${attempts} attempts` },
      });
    const [d0, d1, d2, d3, d4] = deliveries.slice(0, 5).map((d) => d!);
    await attempt(d0!, 1, 'delivered');
    await attempt(d1!, 1, 'failed');
    await attempt(d1!, 2, 'delivered');
    await attempt(d2!, 1, 'failed');
    await deadLetter(d2!, 1);
    await deadLetter(d3!, 0); // dead-lettered without an attempt (its webhook's secret was gone)
    await attempt(d4!, 1, 'failed'); // a retry was still due: owed, as are the last three, never attempted
    const finished = new Set([d0!.deliveryId, d1!.deliveryId, d2!.deliveryId, d3!.deliveryId]);
    const owed = deliveries.map((d) => d.deliveryId).filter((id) => !finished.has(id));
    const ledgerEnd = (await nats.jsm.streams.info(LEDGER_STREAM)).state.last_seq;
    assert.ok(ledgerEnd > 6 * BATCH, `the ledger (${ledgerEnd} events) is several projector batches long`);

    // The restored deployment: an empty projection, an empty work queue, no feeder durable yet.
    assert.equal((await nats.jsm.streams.info(DELIVERIES_STREAM)).state.messages, 0);
    const pool = createPool(await infra.freshDatabase(), 'projection');
    await migrate(pool, 'projection');
    const feeder = await startWebhookFeeder({
      js: nats.js,
      jsm: nats.jsm,
      pool,
      waiter: createProjectionWaiter(pool),
      log,
      publicBaseUrl: 'http://127.0.0.1:1',
      secrets,
    });
    // The projector starts after the feeder and commits each batch slowly.
    const projector = createProjector({
      js: nats.js,
      pool,
      log,
      batchSize: BATCH,
      beforeCommit: async () => {
        await sleep(100);
      },
    });
    await projector.start();
    try {
      await eventually('the feeder to handle every ledger event', async () => {
        const c = await nats.jsm.consumers.info(LEDGER_STREAM, WEBHOOK_FEEDER_CONSUMER);
        return c.num_pending === 0 && c.num_ack_pending === 0 && c.delivered.stream_seq >= ledgerEnd;
      });
      const queue = (await nats.jsm.streams.info(DELIVERIES_STREAM)).state;
      const enqueued: string[] = [];
      for (let seq = queue.first_seq; queue.messages > 0 && seq <= queue.last_seq; seq++) {
        const m = await nats.jsm.streams.getMessage(DELIVERIES_STREAM, { seq });
        if (m) enqueued.push(decodeDeliveryJob(m.data).deliveryId);
      }
      assert.deepEqual(enqueued.sort(), owed.sort(), 'only the deliveries still owed are enqueued');
    } finally {
      await feeder.stop();
      await projector.stop();
      await pool.end();
    }
  });
});
