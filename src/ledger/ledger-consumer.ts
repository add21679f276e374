import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { traceCarrier } from '../observability/nats-trace.js';
import type { EventEnvelope } from './envelope.js';
import { storedOf } from './event-store.js';
import { LEDGER_STREAM, PULL_EXPIRES_MS } from './streams.js';

/** Durable consumers: create once (idempotent across processes), and a loop over the tenant events of LEDGER. */

/** The server's codes for "a consumer of that name exists" (another process created it first). */
const CONSUMER_EXISTS = new Set([10013, 10105, 10148]);

export async function ensureDurable(
  jsm: JetStreamManager,
  stream: string,
  name: string,
  filter: string,
  extra: Record<string, unknown> = {},
) {
  try {
    await jsm.consumers.info(stream, name);
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound)) throw err;
    try {
      await jsm.consumers.add(stream, {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: filter,
        ...extra,
      });
    } catch (addErr) {
      if (!(addErr instanceof JetStreamApiError && CONSUMER_EXISTS.has(addErr.code))) throw addErr;
    }
  }
}

/** The ledger's last sequence now (0: empty). */
export const lastLedgerSequence = async (jsm: JetStreamManager): Promise<number> =>
  (await jsm.streams.info(LEDGER_STREAM)).state.last_seq;

export interface Feeder {
  stop(): Promise<void>;
}

/** Run a durable consumer loop over LEDGER that hands each event to `onEvent`; ack after it resolves. */
export async function runLedgerConsumer(
  js: JetStreamClient,
  jsm: JetStreamManager,
  name: string,
  log: Logger,
  onEvent: (e: EventEnvelope, seq: number, trace: Record<string, string>) => Promise<void>,
): Promise<Feeder> {
  await ensureDurable(jsm, LEDGER_STREAM, name, 'ledger.tenant.>', { ack_wait: 30_000_000_000, max_ack_pending: 1000 });
  const consumer = await js.consumers.get(LEDGER_STREAM, name);
  let running = true;
  let messages: Awaited<ReturnType<typeof consumer.consume>> | null = null;
  const loop = (async () => {
    while (running) {
      try {
        messages = await consumer.consume({ max_messages: 200, expires: PULL_EXPIRES_MS });
        for await (const m of messages) {
          try {
            const trace = traceCarrier(m.headers);
            for (const e of storedOf(m.seq, m.subject, m.data)) await onEvent(e.event, e.seq, trace);
            m.ack();
          } catch (err) {
            log.warn({ err, seq: m.seq }, `${name}: event handling failed; it will be redelivered`);
            m.nak(1000);
          }
        }
      } catch (err) {
        if (running) log.warn({ err }, `${name}: consumer loop restarting`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await messages?.close().catch(() => undefined);
      await loop;
    },
  };
}
