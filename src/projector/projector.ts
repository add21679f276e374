import { EventEmitter } from 'node:events';
import type { JetStreamClient } from '@nats-io/jetstream';
import { DeliverPolicy } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from 'pino';
import { applyEvents } from '../../projections/read-models/index.js';
import { storedOf, type StoredEvent } from '../ledger/event-store.js';
import { LEDGER_STREAM, PULL_EXPIRES_MS } from '../ledger/streams.js';

/**
 * Applies LEDGER events to Postgres exactly once (DESIGN decision 4): each batch runs in one transaction
 * that locks the checkpoint row, skips what is at or below it, applies the rest and moves it. Postgres owns
 * the cursor, so a crash mid-batch rolls back and the next start resumes after the last committed event,
 * and two projectors on one schema never double-apply.
 */

export const PROJECTOR_NAME = 'main';

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

export async function readCheckpoint(pool: pg.Pool | pg.PoolClient): Promise<number> {
  const r = await pool.query<{ seq: number }>('SELECT seq FROM projector_checkpoint WHERE name = $1', [PROJECTOR_NAME]);
  return r.rows[0]?.seq ?? 0;
}

export function createProjector(opts: ProjectorOptions): Projector {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const batchSize = opts.batchSize ?? 500;
  let committed = 0;
  let running = false;
  let loop: Promise<void> | null = null;
  let closeMessages: (() => Promise<void>) | null = null;

  async function applyBatch(batch: StoredEvent[]): Promise<void> {
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
      committed = Math.max(committed, top);
      events.emit('checkpoint', committed);
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
  async function consumeFrom(startSeq: number, untilSeq?: number): Promise<void> {
    const consumer = await opts.js.consumers.get(LEDGER_STREAM, {
      filter_subjects: 'ledger.>',
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: startSeq,
    });
    const messages = await consumer.consume({ max_messages: batchSize * 2, expires: PULL_EXPIRES_MS });
    closeMessages = async () => void (await messages.close().catch(() => undefined));
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
          if (!running && untilSeq === undefined) break;
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
        await applyBatch(batch);
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

  return {
    events,
    checkpoint: () => committed,

    async start() {
      committed = await readCheckpoint(opts.pool);
      running = true;
      loop = (async () => {
        while (running) {
          try {
            await consumeFrom(committed + 1);
          } catch (err) {
            if (!running) break;
            opts.log.error({ err }, 'projector batch failed; retrying from the last checkpoint');
            committed = await readCheckpoint(opts.pool).catch(() => committed);
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      })();
    },

    async stop() {
      running = false;
      await closeMessages?.();
      await loop;
    },

    async catchUp(untilSeq) {
      committed = await readCheckpoint(opts.pool);
      if (committed >= untilSeq) return;
      await consumeFrom(committed + 1, untilSeq);
    },
  };
}
