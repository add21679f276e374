import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { TimeoutError } from '@nats-io/transport-node';
import { withTimeout } from '../infra/deadline.js';
import { isNatsUnavailable } from '../infra/nats-unavailable.js';
import type { DomainEvent } from '../domain/events.js';
import { traceMsgHeaders } from '../observability/nats-trace.js';
import { type EventEnvelope, type UnsealedEnvelope, sealChain } from './envelope.js';
import { LEDGER_STREAM, PULL_EXPIRES_MS } from './streams.js';

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
  constructor(
    public readonly subject: string,
    public readonly expectedSeq: number,
  ) {
    super(`ledger subject ${subject} moved past sequence ${expectedSeq}`);
  }
}

/** readSubjectRange: commits fetched one by one before it opens a consumer for the rest. */
const SHORT_RANGE_GETS = 4;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** One try waits this long for the ack; a stream leader lost with its node is replaced within seconds. */
const PUBLISH_TRY_MS = 2_500;
/** Retries of one commit stop after this long: the caller then sees the error. */
const PUBLISH_BUDGET_MS = 30_000;

/**
 * Creating a reader's consumer waits at most this long: on nats-server 2.9 an ephemeral consumer
 * can be placed on a peer that is down, and its creation then hangs until the client's timeout. Subject reads
 * fall back to one get per commit from the stream leader.
 */
const CONSUMER_CREATE_MS = 3_000;

export interface AppendOptions {
  /** Sequence of the subject's last event as the caller saw it; 0 when it has none. */
  expectedLastSeq: number;
  /** Hash of that event (null when none): the new events chain from it. */
  prevHash: string | null;
}

/**
 * The JetStream msgID of a commit: one per (subject, expected sequence) slot. On a clustered stream, NATS 2.9
 * may accept several concurrent publishes that carry the same expected last subject sequence (nats-server
 * #4320), which would fork a tenant's chain and over-admit its quota. Its msgID dedupe is applied to
 * in-flight proposals, so at most one commit per slot lands within the duplicate window; a stale writer
 * outside that window is still refused by the expected sequence itself. docs/scaling.md has the measurements.
 */
export const commitSlotId = (subject: string, expectedLastSeq: number): string => `${subject}@${expectedLastSeq}`;

export interface EventStore {
  /** Append the events as one commit, chained from opts.prevHash, if the subject is still at expectedLastSeq. */
  append<E extends DomainEvent>(
    subject: string,
    events: UnsealedEnvelope<E>[],
    opts: AppendOptions,
  ): Promise<StoredEvent<E>[]>;
  /** Events of one subject with sequence ≥ fromSeq, in order, up to the subject's last event now. */
  readSubject(subject: string, fromSeq?: number): Promise<StoredEvent[]>;
  last(subject: string): Promise<StoredEvent | null>;
  /** The commit stored at stream sequence `seq`, or null when that sequence is absent or on another subject. */
  commitAt(subject: string, seq: number): Promise<StoredEvent[] | null>;
  /**
   * Events of one subject with commit sequence in [fromSeq, untilSeq], in order. A short range (an actor's
   * tail after a snapshot, a young tenant) is read by a few direct gets instead of a consumer.
   */
  readSubjectRange(subject: string, fromSeq: number, untilSeq: number): Promise<StoredEvent[]>;
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
export function createEventStore(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string = LEDGER_STREAM,
): EventStore {
  const l: Ledger = { js, jsm, stream };
  return {
    last: (subject) => lastOf(l, subject),
    readSubjectRange: (subject, fromSeq, untilSeq) => readSubjectRange(l, subject, fromSeq, untilSeq),
    async commitAt(subject, seq) {
      const msg = await jsm.streams.getMessage(stream, { seq });
      if (!msg || msg.subject !== subject) return null;
      return storedOf(msg.seq, msg.subject, msg.data);
    },
    append: (subject, events, opts) => appendCommit(l, subject, events, opts),
    async readSubject(subject, fromSeq = 1) {
      const tail = await lastOf(l, subject);
      if (!tail || tail.seq < fromSeq) return [];
      return readSubjectRange(l, subject, fromSeq, tail.seq);
    },
    async lastSeq() {
      const info = await jsm.streams.info(stream);
      return info.state.last_seq;
    },
    async replay(fromSeq, onEvent, untilSeq) {
      const until = untilSeq ?? (await jsm.streams.info(stream)).state.last_seq;
      return readRange(l, 'ledger.>', fromSeq, until, onEvent);
    },
  };
}

/** The stream a store reads and writes, and the clients it uses. */
interface Ledger {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
}

async function lastOf(l: Ledger, subject: string): Promise<StoredEvent | null> {
  try {
    const msg = await l.jsm.streams.getMessage(l.stream, { last_by_subj: subject });
    if (!msg) return null;
    return storedOf(msg.seq, msg.subject, msg.data).at(-1) ?? null;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return null;
    throw err;
  }
}

/** Events of the commits matching `filter` in [fromSeq, untilSeq], through an ephemeral consumer; answers how many. */
async function readRange(
  l: Ledger,
  filter: string,
  fromSeq: number,
  untilSeq: number,
  onEvent: (e: StoredEvent) => Promise<void> | void,
) {
  if (untilSeq < fromSeq) return 0;
  const consumer = await withTimeout(
    l.js.consumers.get(l.stream, {
      filter_subjects: filter,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: Math.max(1, fromSeq),
    }),
    CONSUMER_CREATE_MS,
    () => new TimeoutError(),
  );
  let count = 0;
  const messages = await consumer.consume({ max_messages: 1000, expires: PULL_EXPIRES_MS });
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

/** The first commit on `subject` at or after `seq`, from the stream leader. */
async function nextOnSubject(l: Ledger, subject: string, seq: number) {
  // STREAM.MSG.GET takes next_by_subj since nats-server 2.9; the client's type names only seq/last_by_subj.
  return l.jsm.streams.getMessage(l.stream, { seq, next_by_subj: subject } as unknown as { seq: number });
}

/** Commits of `subject` in [fromSeq, untilSeq]: a few gets for a short range, a consumer for a long one. */
async function readSubjectRange(l: Ledger, subject: string, fromSeq: number, untilSeq: number): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let next = Math.max(1, fromSeq);
  const getOne = async () => {
    const msg = await nextOnSubject(l, subject, next);
    if (!msg || msg.seq > untilSeq) return false;
    out.push(...storedOf(msg.seq, msg.subject, msg.data));
    next = msg.seq + 1;
    return true;
  };
  // Up to this many round trips of direct gets; past that a consumer streams the rest faster.
  for (let gets = 0; gets < SHORT_RANGE_GETS && next <= untilSeq; gets++) if (!(await getOne())) return out;
  if (next > untilSeq) return out;
  try {
    await readRange(l, subject, next, untilSeq, (e) => {
      out.push(e);
      next = e.seq + 1;
    });
  } catch (err) {
    // No consumer could be made in time — on nats-server 2.9 an ephemeral consumer may be placed on a peer
    // that is down — so read the rest one commit at a time from the stream leader.
    if (!isNatsUnavailable(err)) throw err;
    while (next <= untilSeq && (await getOne()));
  }
  return out;
}

/** The commit found in the slot when it is this one (same first event id), else the slot's conflict. */
function ownCommitOrConflict(
  inSlot: StoredEvent[],
  sealed: EventEnvelope[],
  subject: string,
  opts: AppendOptions,
  // biome-ignore lint/suspicious/noExplicitAny: a commit holds events of every type
): StoredEvent<any>[] {
  if (inSlot.length === 0 || inSlot[0]!.event.id !== sealed[0]!.id)
    throw new ConcurrencyConflictError(subject, opts.expectedLastSeq);
  return inSlot;
}

/** EventStore.append: publish the sealed commit into its OCC slot, retrying through a short NATS outage. */
async function appendCommit<E extends DomainEvent>(
  l: Ledger,
  subject: string,
  events: UnsealedEnvelope<E>[],
  opts: AppendOptions,
): Promise<StoredEvent<E>[]> {
  if (events.length === 0) return [];
  // biome-ignore lint/suspicious/noExplicitAny: a commit holds events of every type
  const sealed: EventEnvelope<any>[] = sealChain(events, opts.prevHash);
  const data = encodeCommit(sealed);
  const msgID = commitSlotId(subject, opts.expectedLastSeq);
  const deadline = Date.now() + PUBLISH_BUDGET_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      const ack = await l.js.publish(subject, data, {
        msgID,
        expect: { lastSubjectSequence: opts.expectedLastSeq },
        headers: traceMsgHeaders(),
        timeout: PUBLISH_TRY_MS,
      });
      if (ack.duplicate) {
        // The slot is taken: by this very commit (an earlier try that landed) or by a concurrent writer.
        const original = await l.jsm.streams.getMessage(l.stream, { seq: ack.seq });
        if (!original) throw new Error(`duplicate commit ${ack.seq} on ${subject} could not be read back`);
        return ownCommitOrConflict(storedOf(ack.seq, subject, original.data), sealed, subject, opts);
      }
      return sealed.map((event, index) => ({ seq: ack.seq, index, subject, event }));
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) {
        // An earlier try of this commit may have landed with its acknowledgement lost (a node or leader killed
        // mid-publish) and its msgID no longer deduplicated (a new stream leader): the slot then holds this very
        // commit, and the append succeeded. Anything else in the slot is a concurrent writer's.
        const next = await nextOnSubject(l, subject, opts.expectedLastSeq + 1).catch(() => null);
        const inSlot = next ? storedOf(next.seq, subject, next.data) : [];
        return ownCommitOrConflict(inSlot, sealed, subject, opts);
      }
      if (!isNatsUnavailable(err) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, Math.min(250, 50 * attempt)));
    }
  }
}
