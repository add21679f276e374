import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { PULL_EXPIRES_MS } from '../ledger/streams.js';
import { captureIdHash } from './leaf.js';
import { decodeJson, lastOnSubject, LEAVES_SUBJECT, type LeafBatch, LOG_STREAM } from './log-stream.js';
import { leafHash, MerkleTree } from './merkle.js';

/**
 * The tree as this process sees it, followed from the TLOG stream (no database): every batch is hashed into
 * an in-memory MerkleTree, so proofs and tiles are answered from memory. Leaf data is not held; an entries
 * tile reads the batches that hold its leaves back from the stream by sequence.
 *
 * A batch whose `first` is not the current size means the stored log is not one append-only sequence; the
 * view stops there and says so (`problem`), serving only the consistent prefix.
 */
export interface LogView {
  readonly tree: MerkleTree;
  size(): number;
  /** Leaf index of a capture's leaf, by capture ID. */
  leafIndexOfCapture(captureId: string): number | undefined;
  /** Leaf data of [from, to), read back from the stream. */
  leafData(from: number, to: number): Promise<Uint8Array[]>;
  /** Resolves once the view holds at least `size` leaves (or rejects after `timeoutMs`). */
  waitForSize(size: number, timeoutMs: number): Promise<void>;
  /** The capture's leaf index once the view holds it; undefined if it does not within `timeoutMs`. */
  waitForCapture(captureId: string, timeoutMs: number): Promise<number | undefined>;
  problem(): string | null;
  stop(): Promise<void>;
}

const STALL_MS = 3_000;

export async function startLogView(
  js: JetStreamClient,
  jsm: JetStreamManager,
  log: Logger,
  stream = LOG_STREAM,
): Promise<LogView> {
  const tree = new MerkleTree();
  const captures = new Map<string, number>();
  // first leaf index and stream sequence of every batch, for entries tiles
  const batchFirst: number[] = [];
  const batchSeq: number[] = [];
  let problem: string | null = null;
  let running = true;
  let nextSeq = 1;
  const waiters = new Set<() => void>();
  let closeMessages: (() => Promise<void>) | null = null;

  const apply = (seq: number, batch: LeafBatch) => {
    if (problem) return;
    if (batch.first !== tree.size) {
      problem = `log batch at stream sequence ${seq} starts at leaf ${batch.first}, but the log holds ${tree.size}: the stored log is not append-only`;
      log.error({ seq }, problem);
      return;
    }
    batchFirst.push(batch.first);
    batchSeq.push(seq);
    for (const leaf of batch.leaves) {
      const bytes = new TextEncoder().encode(leaf.data);
      tree.appendLeafHash(leafHash(bytes));
      const m = /"captureIdHash":"([0-9a-f]{64})"/.exec(leaf.data);
      // The first leaf of a capture is its leaf (its first outcome won); a later one is a second bundle the monitor reports.
      if (m && !captures.has(m[1]!)) captures.set(m[1]!, tree.size - 1);
    }
    for (const w of waiters) w();
  };

  /** What `probe` says once it says anything (checked as each batch is applied); undefined after `timeoutMs`. */
  function until<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
    const now = probe();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<T | undefined>((resolve) => {
      const finish = (value: T | undefined) => {
        clearTimeout(timer);
        waiters.delete(check);
        resolve(value);
      };
      const check = () => {
        const value = probe();
        if (value !== undefined) finish(value);
      };
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      waiters.add(check);
    });
  }

  // A watchdog: an ordered consumer whose server-side half was lost with a NATS node can stay silent longer than
  // its heartbeats say (seen on the 3-node cluster: a view 10+ s behind the checkpoints it served). When TLOG
  // holds a batch the view has not had for STALL_MS, the consumer is closed and the loop re-subscribes at nextSeq.
  let lastProgress = Date.now();
  const watchdog = setInterval(() => {
    if (!running || Date.now() - lastProgress < STALL_MS) return;
    void lastOnSubject(jsm, LEAVES_SUBJECT, stream)
      .then(async (last) => {
        if (!last || last.seq < nextSeq) {
          lastProgress = Date.now(); // caught up: silence is fine
          return;
        }
        log.warn(
          { nextSeq, last: last.seq },
          'transparency log view: no batch for a while although TLOG holds more; re-subscribing',
        );
        lastProgress = Date.now();
        await closeMessages?.();
      })
      .catch(() => undefined);
  }, STALL_MS / 2);
  watchdog.unref();

  const loop = (async () => {
    while (running) {
      try {
        const consumer = await js.consumers.get(stream, {
          filter_subjects: LEAVES_SUBJECT,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: nextSeq,
        });
        const messages = await consumer.consume({ max_messages: 500, expires: PULL_EXPIRES_MS });
        closeMessages = async () => void (await messages.close().catch(() => undefined));
        lastProgress = Date.now();
        for await (const m of messages) {
          apply(m.seq, decodeJson<LeafBatch>(m.data));
          nextSeq = m.seq + 1;
          lastProgress = Date.now();
          if (!running) break;
        }
      } catch (err) {
        if (running) log.warn({ err }, 'transparency log view: reader restarting');
      }
      if (running) await new Promise((r) => setTimeout(r, 500));
    }
  })();

  return {
    tree,
    size: () => tree.size,
    leafIndexOfCapture: (captureId) => captures.get(captureIdHash(captureId)),
    problem: () => problem,
    async leafData(from, to) {
      const out: Uint8Array[] = [];
      if (to > tree.size || from > to)
        throw new RangeError(`leaves [${from}, ${to}) are not in the log of ${tree.size}`);
      // the batch holding `from`: the last whose first ≤ from
      let lo = 0;
      let hi = batchFirst.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (batchFirst[mid]! <= from) lo = mid;
        else hi = mid - 1;
      }
      for (let b = lo; out.length < to - from && b < batchSeq.length; b++) {
        const msg = await jsm.streams.getMessage(stream, { seq: batchSeq[b]! });
        if (!msg) throw new Error(`log batch at stream sequence ${batchSeq[b]} is missing`);
        const batch = decodeJson<LeafBatch>(msg.data);
        batch.leaves.forEach((leaf, i) => {
          const index = batch.first + i;
          if (index >= from && index < to) out.push(new TextEncoder().encode(leaf.data));
        });
      }
      return out;
    },
    async waitForSize(size, timeoutMs) {
      const reached = await until(() => (tree.size >= size ? true : undefined), timeoutMs);
      if (!reached)
        throw new Error(`the log did not reach ${size} leaves within ${timeoutMs} ms (it holds ${tree.size})`);
    },
    waitForCapture(captureId, timeoutMs) {
      const hash = captureIdHash(captureId);
      return until(() => captures.get(hash), timeoutMs);
    },
    async stop() {
      running = false;
      clearInterval(watchdog);
      await closeMessages?.();
      await loop;
    },
  };
}
