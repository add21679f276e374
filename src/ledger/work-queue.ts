import { AckPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { ensureDurable } from './ledger-consumer.js';
import { contextFromHeaders, inSpan } from '../observability/tracing.js';
import { PULL_EXPIRES_MS } from './streams.js';

/**
 * The one pull loop over a work-queue stream (capture jobs, webhook deliveries): a durable consumer with
 * explicit acks, at most `concurrency` messages in hand at once (we fetch only as many as there are free
 * slots, so no message's ack timer runs while it waits in a local buffer), each handled in a trace span
 * continued from the message headers. A handler that throws leaves the message to be redelivered soon.
 * While the queue is empty one pull request waits PULL_EXPIRES_MS for a message (its heartbeat every half of it);
 * a message that arrives meanwhile is handed to that request at once. Stopping ends the waiting pull at once, and
 * a message it still brings is given back (nak) for another process rather than started.
 */
export interface WorkQueueOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  subject: string;
  durable: string;
  ackWaitMs: number;
  /** Messages in hand at most; a function when the limit adapts (read before every fetch). */
  concurrency: number | (() => number);
  spanName: string;
  log: Logger;
  handle(msg: JsMsg): Promise<void>;
}

export interface WorkQueueRunner {
  inFlight(): number;
  /** Stop fetching, then wait up to `drainMs` for the messages in hand. */
  stop(drainMs: number): Promise<void>;
}

export async function runWorkQueue(opts: WorkQueueOptions): Promise<WorkQueueRunner> {
  await ensureDurable(opts.jsm, opts.stream, opts.durable, opts.subject, {
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(opts.ackWaitMs),
    max_ack_pending: 10_000,
  });
  const consumer = await opts.js.consumers.get(opts.stream, opts.durable);
  let running = true;
  let inflight = 0;
  let wake: (() => void) | null = null;
  const inHand = new Set<Promise<void>>();
  /** The pull waiting now; stopping ends it rather than wait out its expiry. */
  let pulling: { stop(): void } | null = null;
  const limit = typeof opts.concurrency === 'number' ? () => opts.concurrency as number : opts.concurrency;

  const loop = (async () => {
    while (running) {
      const free = limit() - inflight;
      if (free <= 0) {
        // Woken by a finished message, or after a while to read a limit that may have been raised.
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 1000).unref();
        });
        continue;
      }
      try {
        const batch = await consumer.fetch({ max_messages: free, expires: PULL_EXPIRES_MS });
        pulling = batch;
        if (!running) batch.stop();
        for await (const msg of batch) {
          if (!running) {
            // Handed over while stopping: back to the stream at once, for another process.
            msg.nak();
            continue;
          }
          inflight++;
          const p = inSpan(opts.spanName, contextFromHeaders(msg.headers), { attempt: msg.info.deliveryCount }, () =>
            opts.handle(msg),
          )
            .catch((err) => {
              opts.log.error({ err }, `${opts.durable}: handling failed; the message will be redelivered`);
              msg.nak(2000);
            })
            .finally(() => {
              inflight--;
              inHand.delete(p);
              wake?.();
              wake = null;
            });
          inHand.add(p);
        }
      } catch (err) {
        if (running) {
          opts.log.warn({ err }, `${opts.durable}: fetch failed; retrying`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      } finally {
        pulling = null;
      }
    }
  })();

  return {
    inFlight: () => inflight,
    async stop(drainMs) {
      running = false;
      wake?.();
      pulling?.stop();
      await loop;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...inHand]), new Promise((r) => (timer = setTimeout(r, drainMs)))]);
      clearTimeout(timer);
    },
  };
}
