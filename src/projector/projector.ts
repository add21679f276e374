import { EventEmitter } from 'node:events';
import type { JetStreamClient } from '@nats-io/jetstream';
import { DeliverPolicy } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from 'pino';
import { applyEvents } from '../../projections/read-models/index.js';
import { storedOf, type StoredEvent } from '../ledger/event-store.js';
import { LEDGER_STREAM, PULL_EXPIRES_MS } from '../ledger/streams.js';
import { PROJECTOR_NAME, readCheckpoint } from './checkpoint.js';

export { PROJECTOR_NAME, readCheckpoint } from './checkpoint.js';

/**
 * Applies LEDGER events to Postgres exactly once (DESIGN decision 4): each batch runs in one transaction
 * that locks the checkpoint row, skips what is at or below it, applies the rest and moves it. Postgres owns
 * the cursor, so a crash mid-batch rolls back and the next start resumes after the last committed event,
 * and two projectors on one schema never double-apply.
 */

export interface Projector {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Sequence of the last event committed to Postgres. */
  checkpoint(): number;
  /** Apply everything up to the stream's current end, then resolve (used by rebuild). */
  catchUp(untilSeq: number): Promise<void>;
  events: EventEmitter;
}

export interface ProjectorOptions {
  js: JetStreamClient;
  pool: pg.Pool;
  log: Logger;
  batchSize?: number;
  /** Test hook: called inside the transaction after applying a batch, before commit. */
  beforeCommit?: (batch: StoredEvent[]) => Promise<void>;
}

/** What the projector's functions share: the options, the checkpoint committed and whether it runs. */
interface ProjectorState {
  opts: ProjectorOptions;
  events: EventEmitter;
  batchSize: number;
  committed: number;
  running: boolean;
  loop: Promise<void> | null;
  closeMessages: (() => Promise<void>) | null;
}

export function createProjector(opts: ProjectorOptions): Projector {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const state: ProjectorState = {
    opts,
    events,
    batchSize: opts.batchSize ?? 500,
    committed: 0,
    running: false,
    loop: null,
    closeMessages: null,
  };
  return {
    events,
    checkpoint: () => state.committed,
    start: () => start(state),
    stop: () => stop(state),
    catchUp: (untilSeq) => catchUp(state, untilSeq),
  };
}

async function start(state: ProjectorState): Promise<void> {
  state.committed = await readCheckpoint(state.opts.pool);
  state.running = true;
  state.loop = runUntilStopped(state);
}

/** Consumes from the last checkpoint while running; a failed batch is retried from the checkpoint Postgres holds. */
async function runUntilStopped(state: ProjectorState): Promise<void> {
  while (state.running) {
    try {
      await consumeFrom(state, state.committed + 1);
    } catch (err) {
      if (!state.running) break;
      state.opts.log.error({ err }, 'projector batch failed; retrying from the last checkpoint');
      state.committed = await readCheckpoint(state.opts.pool).catch(() => state.committed);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function stop(state: ProjectorState): Promise<void> {
  state.running = false;
  await state.closeMessages?.();
  await state.loop;
}

async function catchUp(state: ProjectorState, untilSeq: number): Promise<void> {
  state.committed = await readCheckpoint(state.opts.pool);
  if (state.committed >= untilSeq) return;
  await consumeFrom(state, state.committed + 1, untilSeq);
}

async function applyBatch(state: ProjectorState, batch: StoredEvent[]): Promise<void> {
  const { opts } = state;
  const client = await opts.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO projector_checkpoint (name, seq) VALUES ($1, 0) ON CONFLICT DO NOTHING', [
      PROJECTOR_NAME,
    ]);
    const r = await client.query<{ seq: number }>('SELECT seq FROM projector_checkpoint WHERE name = $1 FOR UPDATE', [
      PROJECTOR_NAME,
    ]);
    const at = r.rows[0]!.seq;
    const fresh = batch.filter((e) => e.seq > at);
    await applyEvents(client, fresh);
    const top = Math.max(at, batch[batch.length - 1]!.seq);
    await client.query('UPDATE projector_checkpoint SET seq = $2 WHERE name = $1', [PROJECTOR_NAME, top]);
    if (opts.beforeCommit) await opts.beforeCommit(fresh);
    await client.query('COMMIT');
    state.committed = Math.max(state.committed, top);
    state.events.emit('checkpoint', state.committed);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * A reader pulls commits into a local buffer while an applier writes whatever has gathered (whole commits,
 * about `batchSize` events) in one transaction: when Postgres is the bottleneck, batches grow by themselves;
 * when it is idle, a single commit is applied at once.
 */
async function consumeFrom(state: ProjectorState, startSeq: number, untilSeq?: number): Promise<void> {
  const { batchSize } = state;
  const consumer = await state.opts.js.consumers.get(LEDGER_STREAM, {
    filter_subjects: 'ledger.>',
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: startSeq,
  });
  const messages = await consumer.consume({ max_messages: batchSize * 2, expires: PULL_EXPIRES_MS });
  state.closeMessages = async () => void (await messages.close().catch(() => undefined));
  const buffer: StoredEvent[][] = [];
  let buffered = 0;
  let readerDone = false;
  let aborted = false;
  let wakeApplier: (() => void) | null = null;
  let wakeReader: (() => void) | null = null;
  const signal = (w: (() => void) | null) => w?.();

  const reader = (async () => {
    try {
      for await (const m of messages) {
        const commit = storedOf(m.seq, m.subject, m.data);
        buffer.push(commit);
        buffered += commit.length;
        signal(wakeApplier);
        if (untilSeq !== undefined && m.seq >= untilSeq) break;
        if (!state.running && untilSeq === undefined) break;
        while (!aborted && buffered >= batchSize * 4) await new Promise<void>((r) => (wakeReader = r));
      }
    } finally {
      readerDone = true;
      signal(wakeApplier);
    }
  })();

  try {
    for (;;) {
      if (buffer.length === 0) {
        if (readerDone) break;
        await new Promise<void>((r) => (wakeApplier = r));
        wakeApplier = null;
        continue;
      }
      const batch: StoredEvent[] = [];
      while (buffer.length > 0 && (batch.length === 0 || batch.length + buffer[0]!.length <= batchSize))
        batch.push(...buffer.shift()!);
      buffered -= batch.length;
      signal(wakeReader);
      await applyBatch(state, batch);
    }
    await reader;
  } finally {
    aborted = true;
    signal(wakeReader);
    await messages.close().catch(() => undefined);
    await reader.catch(() => undefined);
    await consumer.delete().catch(() => undefined);
  }
}
