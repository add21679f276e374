import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { DeliverPolicy, JetStreamApiError } from '@nats-io/jetstream';
import type { DomainEvent } from '../domain/events.js';
import { type EventEnvelope, type UnsealedEnvelope, seal } from './envelope.js';
import { LEDGER_STREAM } from './streams.js';

export interface StoredEvent<E extends DomainEvent = DomainEvent> {
  seq: number;
  subject: string;
  event: EventEnvelope<E>;
}

/** JetStream said the subject moved on since we read it (error 10071). */
export class ConcurrencyConflictError extends Error {
  override name = 'ConcurrencyConflictError';
  constructor(public readonly subject: string, public readonly expectedSeq: number) {
    super(`ledger subject ${subject} moved past sequence ${expectedSeq}`);
  }
}

const WRONG_LAST_SEQUENCE = 10071;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface AppendOptions {
  /** Sequence of the subject's last event as the caller saw it; 0 when it has none. */
  expectedLastSeq: number;
  /** Hash of that event (null when none): the new events chain from it. */
  prevHash: string | null;
  /** Dedupe ids (JetStream msgID) per event; default the event id. */
  dedupeIds?: Array<string | undefined>;
}

export interface EventStore {
  append<E extends DomainEvent>(subject: string, events: UnsealedEnvelope<E>[], opts: AppendOptions): Promise<StoredEvent<E>[]>;
  /** Events of one subject with sequence ≥ fromSeq, in order, up to the subject's last event now. */
  readSubject(subject: string, fromSeq?: number): Promise<StoredEvent[]>;
  last(subject: string): Promise<StoredEvent | null>;
  /** Last sequence of the whole stream. */
  lastSeq(): Promise<number>;
  /** Every event of the log with sequence ≥ fromSeq, up to `untilSeq` (default: the last one now). */
  replay(fromSeq: number, onEvent: (e: StoredEvent) => Promise<void> | void, untilSeq?: number): Promise<number>;
}

export const decodeEvent = (data: Uint8Array): EventEnvelope => JSON.parse(decoder.decode(data)) as EventEnvelope;

export function createEventStore(js: JetStreamClient, jsm: JetStreamManager): EventStore {
  async function last(subject: string): Promise<StoredEvent | null> {
    try {
      const msg = await jsm.streams.getMessage(LEDGER_STREAM, { last_by_subj: subject });
      if (!msg) return null;
      return { seq: msg.seq, subject: msg.subject, event: decodeEvent(msg.data) };
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === 10037) return null; // no message found
      throw err;
    }
  }

  async function readRange(filter: string, fromSeq: number, untilSeq: number, onEvent: (e: StoredEvent) => Promise<void> | void) {
    if (untilSeq < fromSeq) return 0;
    const consumer = await js.consumers.get(LEDGER_STREAM, {
      filter_subjects: filter,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: Math.max(1, fromSeq),
    });
    let count = 0;
    const messages = await consumer.consume({ max_messages: 1000 });
    try {
      for await (const m of messages) {
        if (m.seq > untilSeq) break;
        await onEvent({ seq: m.seq, subject: m.subject, event: decodeEvent(m.data) });
        count++;
        if (m.seq >= untilSeq) break;
      }
    } finally {
      await messages.close().catch(() => undefined);
      await consumer.delete().catch(() => undefined);
    }
    return count;
  }

  return {
    last,

    async append(subject, events, opts) {
      const stored: StoredEvent<any>[] = [];
      let expected = opts.expectedLastSeq;
      let prevHash = opts.prevHash;
      for (const [i, unsealed] of events.entries()) {
        const event = seal(unsealed, prevHash);
        try {
          const ack = await js.publish(subject, encoder.encode(JSON.stringify(event)), {
            msgID: opts.dedupeIds?.[i] ?? event.id,
            expect: { lastSubjectSequence: expected },
          });
          if (ack.duplicate) {
            // Already appended by an earlier attempt of the same command: the stored copy is the truth.
            const original = await jsm.streams.getMessage(LEDGER_STREAM, { seq: ack.seq });
            const originalEvent = original ? decodeEvent(original.data) : event;
            stored.push({ seq: ack.seq, subject, event: originalEvent });
            expected = ack.seq;
            prevHash = originalEvent.hash;
            continue;
          }
          stored.push({ seq: ack.seq, subject, event });
          expected = ack.seq;
          prevHash = event.hash;
        } catch (err) {
          if (err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE) {
            throw new ConcurrencyConflictError(subject, expected);
          }
          throw err;
        }
      }
      return stored;
    },

    async readSubject(subject, fromSeq = 1) {
      const tail = await last(subject);
      if (!tail || tail.seq < fromSeq) return [];
      const out: StoredEvent[] = [];
      await readRange(subject, fromSeq, tail.seq, (e) => void out.push(e));
      return out;
    },

    async lastSeq() {
      const info = await jsm.streams.info(LEDGER_STREAM);
      return info.state.last_seq;
    },

    async replay(fromSeq, onEvent, untilSeq) {
      const until = untilSeq ?? (await jsm.streams.info(LEDGER_STREAM)).state.last_seq;
      return readRange('ledger.>', fromSeq, until, onEvent);
    },
  };
}
