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
  /** Resolves once the view holds `size` leaves; LogViewBehindError when it does not within `timeoutMs`. */
  waitForSize(size: number, timeoutMs: number): Promise<void>;
  /** The capture's leaf index once the view holds it; undefined if it does not within `timeoutMs`. */
  waitForCapture(captureId: string, timeoutMs: number): Promise<number | undefined>;
  problem(): string | null;
  stop(): Promise<void>;
}

const STALL_MS = 3_000;

/**
 * This process's view does not hold the tree size asked for within the time given: its reader is catching up
 * (after a NATS node restarted, say) or stopped at a batch that does not continue the log (`problem`). The same
 * request can succeed in a moment in the first case; nothing in storage is wrong because of it.
 */
export class LogViewBehindError extends Error {
  constructor(
    readonly wanted: number,
    readonly held: number,
    readonly problem: string | null,
  ) {
    super(
      problem
        ? `this process's view of the transparency log stopped at ${held} leaves: ${problem}`
        : `this process's view of the transparency log holds ${held} of the ${wanted} leaves asked for; it is catching up`,
    );
    this.name = 'LogViewBehindError';
  }
}

/** A view's state: the tree and indexes built so far, where the reader is, and who waits for what. */
interface ViewState {
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: Logger;
  stream: string;
  tree: MerkleTree;
  /** Leaf index of each capture's leaf, by capture ID hash. */
  captures: Map<string, number>;
  /** First leaf index and stream sequence of every batch, for entries tiles. */
  batchFirst: number[];
  batchSeq: number[];
  problem: string | null;
  running: boolean;
  nextSeq: number;
  waiters: Set<() => void>;
  closeMessages: (() => Promise<void>) | null;
  lastProgress: number;
}

export async function startLogView(
  js: JetStreamClient,
  jsm: JetStreamManager,
  log: Logger,
  stream = LOG_STREAM,
): Promise<LogView> {
  const v: ViewState = {
    js,
    jsm,
    log,
    stream,
    tree: new MerkleTree(),
    captures: new Map(),
    batchFirst: [],
    batchSeq: [],
    problem: null,
    running: true,
    nextSeq: 1,
    waiters: new Set(),
    closeMessages: null,
    lastProgress: Date.now(),
  };
  const watchdog = setInterval(() => void resubscribeIfStalled(v), STALL_MS / 2);
  watchdog.unref();
  const loop = follow(v);
  return {
    tree: v.tree,
    size: () => v.tree.size,
    leafIndexOfCapture: (captureId) => v.captures.get(captureIdHash(captureId)),
    problem: () => v.problem,
    leafData: (from, to) => leafData(v, from, to),
    async waitForSize(size, timeoutMs) {
      const reached = await until(v, () => (v.tree.size >= size ? true : undefined), timeoutMs);
      if (!reached) throw new LogViewBehindError(size, v.tree.size, v.problem);
    },
    waitForCapture(captureId, timeoutMs) {
      const hash = captureIdHash(captureId);
      return until(v, () => v.captures.get(hash), timeoutMs);
    },
    async stop() {
      v.running = false;
      clearInterval(watchdog);
      await v.closeMessages?.();
      await loop;
    },
  };
}

/** Hash a batch into the tree, unless it does not continue the log (then the view stops there, saying why). */
function applyBatch(v: ViewState, seq: number, batch: LeafBatch): void {
  if (v.problem) return;
  if (batch.first !== v.tree.size) {
    v.problem = `log batch at stream sequence ${seq} starts at leaf ${batch.first}, but the log holds ${v.tree.size}: the stored log is not append-only`;
    v.log.error({ seq }, v.problem);
    return;
  }
  v.batchFirst.push(batch.first);
  v.batchSeq.push(seq);
  for (const leaf of batch.leaves) {
    const bytes = new TextEncoder().encode(leaf.data);
    v.tree.appendLeafHash(leafHash(bytes));
    const m = /"captureIdHash":"([0-9a-f]{64})"/.exec(leaf.data);
    // The first leaf of a capture is its leaf (its first outcome won); a later one is a second bundle the monitor reports.
    if (m && !v.captures.has(m[1]!)) v.captures.set(m[1]!, v.tree.size - 1);
  }
  for (const w of v.waiters) w();
}

/** What `probe` says once it says anything (checked as each batch is applied); undefined after `timeoutMs`. */
function until<T>(v: ViewState, probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const now = probe();
  if (now !== undefined) return Promise.resolve(now);
  return new Promise<T | undefined>((resolve) => {
    const finish = (value: T | undefined) => {
      clearTimeout(timer);
      v.waiters.delete(check);
      resolve(value);
    };
    const check = () => {
      const value = probe();
      if (value !== undefined) finish(value);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    v.waiters.add(check);
  });
}

/**
 * The watchdog: an ordered consumer whose server-side half was lost with a NATS node can stay silent longer than
 * its heartbeats say (seen on the 3-node cluster: a view 10+ s behind the checkpoints it served). When TLOG
 * holds a batch the view has not had for STALL_MS, the consumer is closed and the loop re-subscribes at nextSeq.
 */
async function resubscribeIfStalled(v: ViewState): Promise<void> {
  if (!v.running || Date.now() - v.lastProgress < STALL_MS) return;
  try {
    const last = await lastOnSubject(v.jsm, LEAVES_SUBJECT, v.stream);
    if (!last || last.seq < v.nextSeq) {
      v.lastProgress = Date.now(); // caught up: silence is fine
      return;
    }
    v.log.warn(
      { nextSeq: v.nextSeq, last: last.seq },
      'transparency log view: no batch for a while although TLOG holds more; re-subscribing',
    );
    v.lastProgress = Date.now();
    await v.closeMessages?.();
  } catch {
    /* the next tick asks again */
  }
}

/** Read the log's batches from nextSeq on, subscribing again after any failure, until stopped. */
async function follow(v: ViewState): Promise<void> {
  while (v.running) {
    try {
      const consumer = await v.js.consumers.get(v.stream, {
        filter_subjects: LEAVES_SUBJECT,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: v.nextSeq,
      });
      const messages = await consumer.consume({ max_messages: 500, expires: PULL_EXPIRES_MS });
      v.closeMessages = async () => void (await messages.close().catch(() => undefined));
      v.lastProgress = Date.now();
      for await (const m of messages) {
        applyBatch(v, m.seq, decodeJson<LeafBatch>(m.data));
        v.nextSeq = m.seq + 1;
        v.lastProgress = Date.now();
        if (!v.running) break;
      }
    } catch (err) {
      if (v.running) v.log.warn({ err }, 'transparency log view: reader restarting');
    }
    if (v.running) await new Promise((r) => setTimeout(r, 500));
  }
}

/** Leaf data of [from, to), read back from the batches that hold it. */
async function leafData(v: ViewState, from: number, to: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  if (to > v.tree.size || from > to)
    throw new RangeError(`leaves [${from}, ${to}) are not in the log of ${v.tree.size}`);
  // the batch holding `from`: the last whose first ≤ from
  let lo = 0;
  let hi = v.batchFirst.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (v.batchFirst[mid]! <= from) lo = mid;
    else hi = mid - 1;
  }
  for (let b = lo; out.length < to - from && b < v.batchSeq.length; b++) {
    const msg = await v.jsm.streams.getMessage(v.stream, { seq: v.batchSeq[b]! });
    if (!msg) throw new Error(`log batch at stream sequence ${v.batchSeq[b]} is missing`);
    const batch = decodeJson<LeafBatch>(msg.data);
    batch.leaves.forEach((leaf, i) => {
      const index = batch.first + i;
      if (index >= from && index < to) out.push(new TextEncoder().encode(leaf.data));
    });
  }
  return out;
}
