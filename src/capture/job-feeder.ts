import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { TenantEvent } from '../domain/events.js';
import type { EventEnvelope } from '../ledger/envelope.js';
import { type Feeder, runLedgerConsumer } from '../ledger/ledger-consumer.js';
import { CAPTURE_JOB_SUBJECT } from '../ledger/streams.js';
import { traceMsgHeaders } from '../observability/nats-trace.js';
import { encodeJob } from './capture-job.js';
import { DURABLES } from '../infra/topology.js';

/**
 * Jobs come from the log (DESIGN decision 3): a durable consumer reads capture.submitted events and puts one
 * job per capture on the JOBS work queue, deduplicated by capture id; the event is acked only after its
 * jobs are stored, so a crash in between re-feeds (and the msgID drops the repeat).
 */
export const FEEDER_CONSUMER = DURABLES.jobFeeder.name;

export function startJobFeeder(js: JetStreamClient, jsm: JetStreamManager, log: Logger): Promise<Feeder> {
  return runLedgerConsumer(js, jsm, FEEDER_CONSUMER, log, async (e, _seq, trace) => {
    if (e.type !== 'capture.submitted') return;
    const event = e as EventEnvelope<Extract<TenantEvent, { type: 'capture.submitted' }>>;
    await Promise.all(
      event.data.captures.map((c) =>
        js.publish(
          CAPTURE_JOB_SUBJECT,
          encodeJob({
            tenantId: event.tenantId,
            captureId: c.captureId,
            url: c.url,
            createdAt: event.occurredAt,
            correlationId: event.correlationId,
            ...(event.data.scheduleId ? { scheduleId: event.data.scheduleId } : {}),
            ...(c.options ? { options: c.options } : {}),
            ...(c.corroborationId ? { corroborationId: c.corroborationId } : {}),
          }),
          { msgID: `job:${c.captureId}`, headers: traceMsgHeaders(trace) },
        ),
      ),
    );
  });
}

export type { Feeder };
