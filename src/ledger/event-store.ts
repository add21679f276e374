import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { DeliverPolicy, JetStreamApiError } from '@nats-io/jetstream';
import type { DomainEvent } from '../domain/events.js';
import { traceMsgHeaders } from '../observability/nats-trace.js';
import { type EventEnvelope, type UnsealedEnvelope, seal } from './envelope.js';
import { LEDGER_STREAM } from './streams.js';

/**
 * One event as read back. A JetStream message is a *commit*: the ordered envelopes of one actor turn
 * (usually one), appended atomically; `seq` is the commit's stream sequence and `index` the event's place
 * in it. NATS 2.9 has no atomic batch publish, so this is how several events land all-or-nothing and how
 * the actor group-commits a busy mailbox.
 */
export interface StoredEvent<E extends DomainEvent = DomainEvent> {
  seq: number;
  index: number;
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
  /** Dedupe id (JetStream msgID) of the commit; default the first event's id. */
  dedupeId?: string;
}

export interface EventStore {
  /** Append the events as one commit, chained from opts.prevHash, if the subject is still at expectedLastSeq. */
  append<E extends DomainEvent>(subject: string, events: UnsealedEnvelope<E>[], opts: AppendOptions): Promise<StoredEvent<E>[]>;
  /** Events of one subject with sequence ≥ fromSeq, in order, up to the subject's last event now. */
  readSubject(subject: string, fromSeq?: number): Promise<StoredEvent[]>;
  last(subject: string): Promise<StoredEvent | null>;
  /** Last sequence of the whole stream. */
  lastSeq(): Promise<number>;
  /** Every event of the log with commit sequence ≥ fromSeq, up to `untilSeq` (default: the last one now). */
  replay(fromSeq: number, onEvent: (e: StoredEvent) => Promise<void> | void, untilSeq?: number): Promise<number>;
}

export const encodeCommit = (events: EventEnvelope[]): Uint8Array => encoder.encode(JSON.stringify(events));
export const decodeCommit = (data: Uint8Array): EventEnvelope[] => JSON.parse(decoder.decode(data)) as EventEnvelope[];
export const storedOf = (seq: number, subject: string, data: Uint8Array): StoredEvent[] =>
  decodeCommit(data).map((event, index) => ({ seq, index, subject, event }));

/** `stream` is LEDGER except for operator tools reading a copy of it (the audit's tamper test); `replay` reads subjects `ledger.>`. */
export function createEventStore(js: JetStreamClient, jsm: JetStreamManager, stream: string = LEDGER_STREAM): EventStore {
  async function last(subject: string): Promise<StoredEvent | null> {
    try {
      const msg = await jsm.streams.getMessage(stream, { last_by_subj: subject });
      if (!msg) return null;
      return storedOf(msg.seq, msg.subject, msg.data).at(-1) ?? null;
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === 10037) return null; // no message found
      throw err;
    }
  }

  async function readRange(filter: string, fromSeq: number, untilSeq: number, onEvent: (e: StoredEvent) => Promise<void> | void) {
    if (untilSeq < fromSeq) return 0;
    const consumer = await js.consumers.get(stream, {
      filter_subjects: filter,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: Math.max(1, fromSeq),
    });
    let count = 0;
    const messages = await consumer.consume({ max_messages: 1000 });
    try {
      for await (const m of messages) {
        if (m.seq > untilSeq) break;
        for (const e of storedOf(m.seq, m.subject, m.data)) {
          await onEvent(e);
          count++;
        }
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
      if (events.length === 0) return [];
      const sealed: EventEnvelope<any>[] = [];
      let prevHash = opts.prevHash;
      for (const unsealed of events) {
        const event = seal(unsealed, prevHash);
        sealed.push(event);
        prevHash = event.hash;
      }
      try {
        const ack = await js.publish(subject, encodeCommit(sealed), {
          msgID: opts.dedupeId ?? sealed[0]!.id,
          expect: { lastSubjectSequence: opts.expectedLastSeq },
          headers: traceMsgHeaders(),
        });
        if (ack.duplicate) {
          // Already appended by an earlier attempt of the same command: the stored copy is the truth.
          const original = await jsm.streams.getMessage(stream, { seq: ack.seq });
          if (!original) throw new Error(`duplicate commit ${ack.seq} on ${subject} could not be read back`);
          return storedOf(ack.seq, subject, original.data) as StoredEvent<any>[];
        }
        return sealed.map((event, index) => ({ seq: ack.seq, index, subject, event }));
      } catch (err) {
        if (err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE) {
          throw new ConcurrencyConflictError(subject, opts.expectedLastSeq);
        }
        throw err;
      }
    },

    async readSubject(subject, fromSeq = 1) {
      const tail = await last(subject);
      if (!tail || tail.seq < fromSeq) return [];
      const out: StoredEvent[] = [];
      await readRange(subject, fromSeq, tail.seq, (e) => void out.push(e));
      return out;
    },

    async lastSeq() {
      const info = await jsm.streams.info(stream);
      return info.state.last_seq;
    },

    async replay(fromSeq, onEvent, untilSeq) {
      const until = untilSeq ?? (await jsm.streams.info(stream)).state.last_seq;
      return readRange('ledger.>', fromSeq, until, onEvent);
    },
  };
}
