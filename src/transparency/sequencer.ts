import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Notary } from '../archive/notary.js';
import { fromBase64Strict, toBase64 } from '../archive/digests.js';
import { generateSeedBase64 } from '../archive/signing-key.js';
import { readSecretFile, writeOnce } from '../infra/write-once.js';
import { storedOf } from '../ledger/event-store.js';
import { LEDGER_STREAM, PULL_EXPIRES_MS } from '../ledger/streams.js';
import { type NoteSigner, noteSignerFromSeed, signCheckpoint, verifierKeyString } from './checkpoint.js';
import { encodeLeaf, leafOfEvent } from './leaf.js';
import {
  CHECKPOINT_REQUEST_SUBJECT,
  CHECKPOINTS_SUBJECT,
  decodeJson,
  encodeJson,
  LEAVES_SUBJECT,
  latestCheckpoint,
  lastOnSubject,
  type LeafBatch,
  LOG_KEY_SUBJECT,
  LOG_STREAM,
  readTail,
  type StoredCheckpoint,
} from './log-stream.js';
import type { LogView } from './log-view.js';
import type { Cosigning } from './witness-cosigning.js';

/**
 * The sequencer decides the order of the log's leaves once (docs/transparency.md): it reads LEDGER in stream
 * order from where the log's last batch stopped (`through`), turns each logged event into its leaf
 * (leafOfEvent) and appends them as one batch on `tlog.leaves` with
 *   - expect.lastSubjectSequence = the last batch's sequence: a batch lands only right after the one it read;
 *   - msgID = its slot `tlog.leaves@<expected sequence>`: on a clustered 2.9 stream two concurrent publishes
 *     with the same expected sequence can both be accepted (nats-server #4320); within the duplicate window the
 *     slot msgID lets only one in, as for ledger commits (src/ledger/event-store.ts).
 * Any failure — a rival sequencer won the slot, a timeout, a lost leader — reloads the tail from the stream and
 * reads LEDGER again from its `through`, so a sequencer killed at any point resumes with no gap and no duplicate,
 * and any number of sequencers may run at once.
 */

const WRONG_LAST_SEQUENCE = JetStreamApiCodes.StreamWrongLastSequence;
const MAX_BATCH_LEAVES = 512;
const PUBLISH_TIMEOUT_MS = 5_000;

export const LOG_SEED_FILE_NAME = 'log-key.seed';

export interface Sequencer {
  /** Resolves once the log has read LEDGER up to `ledgerSeq` (tests and tools). */
  stop(): Promise<void>;
}

export const leafSlotId = (expectedSeq: number): string => `${LEAVES_SUBJECT}@${expectedSeq}`;

export async function startSequencer(js: JetStreamClient, jsm: JetStreamManager, log: Logger): Promise<Sequencer> {
  let running = true;
  let closeMessages: (() => Promise<void>) | null = null;
  const appended = { leaves: 0 };

  async function runOnce(): Promise<void> {
    const tail = await readTail(jsm);
    let expected = tail.seq;
    let size = tail.size;
    const consumer = await js.consumers.get(LEDGER_STREAM, {
      filter_subjects: 'ledger.>',
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: tail.through + 1,
    });
    const messages = await consumer.consume({ max_messages: 1000, expires: PULL_EXPIRES_MS });
    closeMessages = async () => void (await messages.close().catch(() => undefined));
    let pending: LeafBatch['leaves'] = [];
    try {
      for await (const m of messages) {
        if (!running) break;
        for (const stored of storedOf(m.seq, m.subject, m.data)) {
          const leaf = leafOfEvent(stored.event);
          if (leaf) pending.push({ src: [stored.seq, stored.index], data: new TextDecoder().decode(encodeLeaf(leaf)) });
        }
        // Whole commits per batch; flush when caught up or the batch is large. A scan that found no leaf is not
        // written: a restart reads those commits again and again finds none.
        if (pending.length > 0 && (m.info.pending === 0 || pending.length >= MAX_BATCH_LEAVES)) {
          const batch: LeafBatch = { first: size, through: m.seq, leaves: pending };
          expected = await appendBatch(batch, expected);
          size += pending.length;
          appended.leaves += pending.length;
          pending = [];
        }
      }
    } finally {
      await messages.close().catch(() => undefined);
    }
  }

  /** Append one batch in the slot after `expected`; returns the new last sequence. Throws on conflict. */
  async function appendBatch(batch: LeafBatch, expected: number): Promise<number> {
    const data = encodeJson(batch);
    try {
      const ack = await js.publish(LEAVES_SUBJECT, data, {
        msgID: leafSlotId(expected),
        expect: { lastSubjectSequence: expected },
        timeout: PUBLISH_TIMEOUT_MS,
      });
      if (ack.duplicate) {
        // The slot is taken: by this batch (an earlier try that landed) or by a rival sequencer's.
        const original = await jsm.streams.getMessage(LOG_STREAM, { seq: ack.seq });
        if (!original || Buffer.compare(Buffer.from(original.data), Buffer.from(data)) !== 0) throw new SlotTaken();
      }
      return ack.seq;
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE) throw new SlotTaken();
      throw err;
    }
  }

  const loop = (async () => {
    while (running) {
      try {
        await runOnce();
      } catch (err) {
        if (!running) break;
        if (err instanceof SlotTaken)
          log.info('transparency log: another sequencer appended first; re-reading the tail');
        else log.warn({ err }, 'transparency log: sequencer restarting from the stored tail');
      }
      if (running) await new Promise((r) => setTimeout(r, 200));
    }
  })();

  return {
    async stop() {
      running = false;
      await closeMessages?.();
      await loop;
    },
  };
}

class SlotTaken extends Error {
  override name = 'SlotTaken';
}

// ---------------------------------------------------------------------------------------------
// Checkpoints

/** LOG_SIGNING_KEY (base64 seed) or, unset, a seed generated once into DATA_DIR/log-key.seed. */
export async function loadLogSigner(
  origin: string,
  seedBase64: string | undefined,
  dataDir: string,
): Promise<NoteSigner> {
  return noteSignerFromSeed(origin, await loadLogSeed(seedBase64, dataDir));
}

/** The log's 32-byte seed: LOG_SIGNING_KEY, or DATA_DIR/log-key.seed (generated once when absent). */
export async function loadLogSeed(seedBase64: string | undefined, dataDir: string): Promise<Uint8Array> {
  let text = seedBase64;
  if (!text) {
    await mkdir(dataDir, { recursive: true });
    const path = join(dataDir, LOG_SEED_FILE_NAME);
    try {
      text = await readSecretFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await writeOnce(path, `${generateSeedBase64()}\n`);
      text = await readSecretFile(path);
    }
  }
  const seed = fromBase64Strict(text.trim());
  if (seed?.byteLength !== 32) throw new Error('LOG_SIGNING_KEY must be the base64 encoding of a 32-byte Ed25519 seed');
  return seed;
}

export interface Checkpointer {
  /** Publish a checkpoint of the view's current tree unless one of that size or larger exists; returns the latest. */
  checkpointNow(): Promise<StoredCheckpoint | null>;
  stop(): Promise<void>;
}

/**
 * Signs checkpoints of the tree the view has followed, every `intervalMs` when it grew and on request
 * (`tlog.checkpoint.request`, queue group `sequencers`). Each note is time-stamped through the notary (the
 * signer role's TSA path) when the deployment time-stamps; a TSA that is down leaves `timestamp` null rather
 * than holding the checkpoint back. Checkpoints only grow: one is published only after the latest, in its slot.
 * With witnesses configured, each note carries the cosignatures that came back within LOG_WITNESS_TIMEOUT_MS.
 */
export async function startCheckpointer(opts: {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  view: LogView;
  signer: NoteSigner;
  notary: Notary | null;
  intervalMs: number;
  log: Logger;
  /** The witnesses' cosignatures, asked for before each checkpoint is published (witness-cosigning.ts). */
  cosigning?: Cosigning | undefined;
}): Promise<Checkpointer> {
  const { nc, js, jsm, view, signer, log } = opts;
  const vkey = verifierKeyString(signer);
  const lastKey = await lastOnSubject(jsm, LOG_KEY_SUBJECT);
  if (!lastKey || new TextDecoder().decode(lastKey.data) !== vkey) {
    await js.publish(LOG_KEY_SUBJECT, vkey, { msgID: `tlog.key:${vkey}` });
  }
  let inFlight: Promise<StoredCheckpoint | null> | null = null;

  async function timestampNote(note: string): Promise<StoredCheckpoint['timestamp']> {
    if (!opts.notary) return null;
    try {
      const described = await opts.notary.describe();
      if (!described?.timestamps) return null;
      const t = await opts.notary.timestamp(new Uint8Array(createHash('sha256').update(note, 'utf8').digest()));
      return { token: toBase64(t.token), genTime: t.genTime, tsa: t.tsa };
    } catch (err) {
      log.warn({ err }, 'transparency log: checkpoint issued without an RFC 3161 timestamp');
      return null;
    }
  }

  async function publish(): Promise<StoredCheckpoint | null> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const latest = await latestCheckpoint(jsm);
      const size = view.size();
      if (view.problem()) throw new Error(view.problem()!);
      if (latest && checkpointSize(latest.note) >= size) return latest;
      if (size === 0) return latest;
      const signed = signCheckpoint(
        { origin: signer.name, size, rootHash: view.tree.root(size), extensions: [] },
        signer,
      );
      // Cosigned before it is time-stamped and published: the stored note, and so a certificate, carries them.
      const note = opts.cosigning ? await opts.cosigning.cosign(signed, size) : signed;
      const cp: StoredCheckpoint = { note, timestamp: await timestampNote(note) };
      const expected = latest?.seq ?? 0;
      try {
        const ack = await js.publish(CHECKPOINTS_SUBJECT, encodeJson(cp), {
          msgID: `${CHECKPOINTS_SUBJECT}@${expected}`,
          expect: { lastSubjectSequence: expected },
        });
        if (!ack.duplicate) {
          log.info({ size }, 'transparency log: checkpoint published');
          return cp;
        }
      } catch (err) {
        if (!(err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE)) throw err;
      }
    }
    return latestCheckpoint(jsm);
  }

  const checkpointNow = () => (inFlight ??= publish().finally(() => (inFlight = null)));

  const timer = setInterval(
    () => void checkpointNow().catch((err) => log.warn({ err }, 'transparency log: checkpoint failed')),
    opts.intervalMs,
  );
  const sub: Subscription = nc.subscribe(CHECKPOINT_REQUEST_SUBJECT, {
    queue: 'sequencers',
    callback: (_err, msg) => {
      checkpointNow().then(
        (cp) => msg.respond(encodeJson({ ok: true, checkpoint: cp })),
        (err: Error) => msg.respond(encodeJson({ ok: false, error: err.message })),
      );
    },
  });

  return {
    checkpointNow,
    async stop() {
      clearInterval(timer);
      sub.unsubscribe();
      await inFlight?.catch(() => undefined);
    },
  };
}

export const checkpointSize = (note: string): number => Number(note.split('\n')[1]);

/** Ask a sequencer for a checkpoint covering the log as it is now (the API's on-demand path). */
export async function requestCheckpoint(nc: NatsConnection, timeoutMs = 30_000): Promise<StoredCheckpoint | null> {
  const reply = await nc.request(CHECKPOINT_REQUEST_SUBJECT, '', { timeout: timeoutMs });
  const body = decodeJson<{ ok: boolean; checkpoint?: StoredCheckpoint | null; error?: string }>(reply.data);
  if (!body.ok) throw new Error(`the sequencer could not publish a checkpoint: ${body.error}`);
  return body.checkpoint ?? null;
}
