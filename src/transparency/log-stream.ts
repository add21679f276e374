import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { ensureStream, PULL_EXPIRES_MS } from '../ledger/streams.js';
import { STREAMS, SUBJECTS } from '../infra/topology.js';

/**
 * The transparency log's own stream (docs/transparency.md). The LEDGER stays the truth of what happened; TLOG
 * records the order in which it was logged, decided once by a sequencer, so that every process — and every
 * mirror reading the tiles — computes the same tree.
 *
 *   tlog.leaves       one message per appended batch: {first, through, leaves[{src, data}]}; `first` is the
 *                     tree size before it, `through` the last LEDGER sequence the batch read, `src` the
 *                     [ledger sequence, index in commit] of the event a leaf comes from, `data` the leaf (leaf.ts)
 *   tlog.checkpoints  one message per published checkpoint: {note, timestamp}
 *   tlog.key          the log's verifier key (the note key's public half), published by a sequencer at start
 *   tlog.checkpoint.request   core request/reply: ask a sequencer for a checkpoint now
 */
export const LOG_STREAM = STREAMS.tlog.name;
export const LEAVES_SUBJECT = SUBJECTS.logLeaves.subject;
export const CHECKPOINTS_SUBJECT = SUBJECTS.logCheckpoints.subject;
export const LOG_KEY_SUBJECT = SUBJECTS.logKey.subject;
export const CHECKPOINT_REQUEST_SUBJECT = SUBJECTS.checkpointRequest.subject;

export interface LeafBatch {
  first: number;
  through: number;
  leaves: Array<{ src: [number, number]; data: string }>;
}

export interface StoredCheckpoint {
  /** The C2SP signed note. */
  note: string;
  /** RFC 3161 token over SHA-256 of the note's bytes; null when the deployment has no TSA (TSA_URL=none) or it was down. */
  timestamp: { token: string; genTime: string; tsa: string } | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encodeJson = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v));
export const decodeJson = <T>(data: Uint8Array): T => JSON.parse(decoder.decode(data)) as T;

/** Create TLOG when absent (immutable: no delete, no purge) and bring it to `replicas`. Safe from every process. */
export const ensureLogStream = (jsm: JetStreamManager, replicas = 1): Promise<void> =>
  ensureStream(jsm, STREAMS.tlog, replicas);

/** The last message on `subject`, or null. */
export async function lastOnSubject(
  jsm: JetStreamManager,
  subject: string,
  stream = LOG_STREAM,
): Promise<StoredMsg | null> {
  try {
    return (await jsm.streams.getMessage(stream, { last_by_subj: subject })) ?? null;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return null;
    throw err;
  }
}

export interface LogTail {
  /** Tree size after the last batch. */
  size: number;
  /** Last LEDGER sequence the log has read. */
  through: number;
  /** Stream sequence of the last batch (0: none): the expected last subject sequence of the next append. */
  seq: number;
}

export async function readTail(jsm: JetStreamManager, stream = LOG_STREAM): Promise<LogTail> {
  const msg = await lastOnSubject(jsm, LEAVES_SUBJECT, stream);
  if (!msg) return { size: 0, through: 0, seq: 0 };
  const batch = decodeJson<LeafBatch>(msg.data);
  return { size: batch.first + batch.leaves.length, through: batch.through, seq: msg.seq };
}

export async function latestCheckpoint(
  jsm: JetStreamManager,
  stream = LOG_STREAM,
): Promise<(StoredCheckpoint & { seq: number }) | null> {
  const msg = await lastOnSubject(jsm, CHECKPOINTS_SUBJECT, stream);
  return msg ? { ...decodeJson<StoredCheckpoint>(msg.data), seq: msg.seq } : null;
}

/** The first checkpoint message at or after stream sequence `seq`, or null. */
async function checkpointFrom(
  jsm: JetStreamManager,
  seq: number,
  stream: string,
): Promise<(StoredCheckpoint & { seq: number; size: number }) | null> {
  let msg: StoredMsg | null;
  try {
    // STREAM.MSG.GET takes next_by_subj (nats-server ≥ 2.9); the client's type names only its direct-get twin.
    msg =
      (await jsm.streams.getMessage(stream, { seq, next_by_subj: CHECKPOINTS_SUBJECT } as unknown as {
        seq: number;
      })) ?? null;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return null;
    throw err;
  }
  if (!msg) return null;
  const cp = decodeJson<StoredCheckpoint>(msg.data);
  return { ...cp, seq: msg.seq, size: Number(cp.note.split('\n')[1]) };
}

/**
 * The first published checkpoint whose tree holds leaf `index` (size > index), or null when none does yet.
 * Checkpoints only grow along the stream, so a binary search over stream sequences finds it in O(log n) reads —
 * a fixed fact once published, which is what a certificate embeds (the same capture gives the same bytes).
 */
export async function firstCheckpointCovering(
  jsm: JetStreamManager,
  index: number,
  stream = LOG_STREAM,
): Promise<(StoredCheckpoint & { seq: number; size: number }) | null> {
  const latest = await latestCheckpoint(jsm, stream);
  if (!latest || Number(latest.note.split('\n')[1]) <= index) return null;
  let lo = 1;
  let hi = latest.seq; // invariant: the first checkpoint at or after hi covers; none before lo does
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const cp = await checkpointFrom(jsm, mid, stream);
    if (!cp) throw new Error(`checkpoint after stream sequence ${mid} vanished from ${stream}`);
    if (cp.size > index) hi = mid;
    else lo = cp.seq + 1;
  }
  return checkpointFrom(jsm, lo, stream);
}

/**
 * Every stored leaf batch, in stream order, up to the last one now (an auditor's full read; a serving process
 * follows the stream in log-view.ts instead). `onBatch` sees each batch with its stream sequence.
 */
export async function readAllBatches(
  js: JetStreamClient,
  jsm: JetStreamManager,
  onBatch: (seq: number, batch: LeafBatch) => void,
  stream = LOG_STREAM,
): Promise<LogTail> {
  const tail = await readTail(jsm, stream);
  if (tail.seq === 0) return tail;
  const consumer = await js.consumers.get(stream, {
    filter_subjects: LEAVES_SUBJECT,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: 1,
  });
  const messages = await consumer.consume({ max_messages: 500, expires: PULL_EXPIRES_MS });
  try {
    for await (const m of messages) {
      onBatch(m.seq, decodeJson<LeafBatch>(m.data));
      if (m.seq >= tail.seq) break;
    }
  } finally {
    await messages.close().catch(() => undefined);
  }
  return tail;
}
