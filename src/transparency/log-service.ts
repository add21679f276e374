import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { openCheckpoint, parseVerifierKey } from './checkpoint.js';
import type { TransparencyEvidence } from './inclusion-check.js';
import {
  firstCheckpointCovering,
  latestCheckpoint,
  lastOnSubject,
  LOG_KEY_SUBJECT,
  LOG_STREAM,
  type StoredCheckpoint,
} from './log-stream.js';
import { type LogView, LogViewBehindError } from './log-view.js';
import { requestCheckpoint } from './sequencer.js';
import type { CertificateTransparency } from '../../packages/verifier/src/index.js';
import type { ConfiguredWitness } from '../config/log-witnesses.js';

/**
 * What the API asks of the log: the latest checkpoint, the verifier key, proofs for a capture. Everything comes
 * from the TLOG stream and this process's LogView — no database.
 */
export interface TransparencyService {
  readonly view: LogView;
  logKey(): Promise<string | null>;
  checkpoint(): Promise<(StoredCheckpoint & { size: number }) | null>;
  /**
   * Proof for a capture against the latest checkpoint; with `onDemand`, asks a sequencer for a new checkpoint
   * when the latest does not cover the leaf yet. `unavailable` says why there is no proof.
   */
  evidenceFor(
    captureId: string,
    opts?: { onDemand?: boolean },
  ): Promise<TransparencyEvidence | { unavailable: string; noLog?: true }>;
  /**
   * What a certificate embeds (packages/verifier/src/transparency.ts): the capture's leaf as logged, the FIRST
   * published checkpoint holding it (asked for on demand when none does yet) and the proof against it — fixed
   * facts once published, so a certificate made twice is the same. `unavailable` says why there is none yet.
   */
  certificateEvidence(captureId: string): Promise<CertificateTransparency | { unavailable: string; noLog?: true }>;
  /** The witnesses this deployment's log asks to cosign, and how many must (LOG_WITNESSES, LOG_WITNESS_QUORUM). */
  witnessPolicy?: WitnessPolicy;
}

export interface WitnessPolicy {
  quorum: number;
  witnesses: readonly ConfiguredWitness[];
}

const VIEW_CATCH_UP_MS = 10_000;
const ON_DEMAND_MS = 15_000;
/** How long a certificate request waits for a just-completed capture's leaf before answering 503. */
const LEAF_WAIT_MS = 15_000;

const NO_LOG = {
  unavailable: 'this deployment runs no transparency log sequencer (no log key is published)',
  noLog: true,
} as const;
const NOT_LOGGED_YET = {
  unavailable: 'the capture is not in the transparency log yet (the sequencer appends it shortly after completion)',
} as const;

/** The checkpoint `find` gives; when none, a sequencer is asked for a new one and `find` asked again. */
async function coveringOnDemand(
  nc: NatsConnection,
  log: Logger,
  find: () => Promise<StoredCheckpoint | null>,
): Promise<StoredCheckpoint | null> {
  const found = await find();
  if (found) return found;
  try {
    await requestCheckpoint(nc, ON_DEMAND_MS);
    return await find();
  } catch (err) {
    log.warn({ err }, 'transparency log: on-demand checkpoint failed');
    return null;
  }
}

/**
 * Waits until the view holds the checkpoint's tree; when it does not in time, no proof can be made here now,
 * which is said as such (a verify shows transparency 'skip', a certificate answers 503) and logged.
 */
async function viewBehind(view: LogView, log: Logger, size: number): Promise<{ unavailable: string } | null> {
  try {
    await view.waitForSize(size, VIEW_CATCH_UP_MS);
    return null;
  } catch (err) {
    if (!(err instanceof LogViewBehindError)) throw err;
    log.warn(
      { wanted: err.wanted, held: err.held, problem: err.problem },
      'transparency log: view behind the checkpoint',
    );
    return { unavailable: `${err.message}; ask again shortly` };
  }
}

export function createTransparencyService(
  nc: NatsConnection,
  jsm: JetStreamManager,
  view: LogView,
  log: Logger,
  stream = LOG_STREAM,
): TransparencyService {
  let cachedKey: string | null = null;

  async function logKey() {
    if (cachedKey) return cachedKey;
    const msg = await lastOnSubject(jsm, LOG_KEY_SUBJECT, stream);
    cachedKey = msg ? new TextDecoder().decode(msg.data) : null;
    return cachedKey;
  }

  async function checkpoint() {
    const cp = await latestCheckpoint(jsm, stream);
    if (!cp) return null;
    const size = Number(cp.note.split('\n')[1]);
    return { note: cp.note, timestamp: cp.timestamp, size };
  }

  return {
    view,
    logKey,
    checkpoint,
    async evidenceFor(captureId, opts = {}) {
      const key = await logKey();
      if (!key) return NO_LOG;
      const index = view.leafIndexOfCapture(captureId);
      if (index === undefined) return NOT_LOGGED_YET;
      const covering = async () => {
        const latest = await checkpoint();
        return latest && latest.size > index ? latest : null;
      };
      const cp = opts.onDemand ? await coveringOnDemand(nc, log, covering) : await covering();
      if (!cp) return { unavailable: `leaf ${index} is not covered by a published checkpoint yet` };
      // The checkpoint must be the one the key signs and the tree this view holds.
      const opened = openCheckpoint(cp.note, parseVerifierKey(key));
      const behind = await viewBehind(view, log, opened.size);
      if (behind) return behind;
      return {
        logKey: key,
        checkpoint: cp.note,
        leafIndex: index,
        inclusionProof: view.tree.inclusionProof(index, opened.size).map((h) => Buffer.from(h).toString('base64')),
      };
    },
    async certificateEvidence(captureId) {
      const key = await logKey();
      if (!key) return NO_LOG;
      // A certificate asked for right after completion: the sequencer appends the leaf within moments.
      const index = view.leafIndexOfCapture(captureId) ?? (await view.waitForCapture(captureId, LEAF_WAIT_MS));
      if (index === undefined) return NOT_LOGGED_YET;
      const cp = await coveringOnDemand(nc, log, () => firstCheckpointCovering(jsm, index, stream));
      if (!cp) return { unavailable: `leaf ${index} is not covered by a published checkpoint yet` };
      const opened = openCheckpoint(cp.note, parseVerifierKey(key));
      const behind = await viewBehind(view, log, opened.size);
      if (behind) return behind;
      const [leaf] = await view.leafData(index, index + 1);
      return {
        leafIndex: index,
        leaf: new TextDecoder().decode(leaf),
        checkpoint: cp.note,
        checkpointTimestamp: cp.timestamp,
        inclusionProof: view.tree.inclusionProof(index, opened.size).map((h) => Buffer.from(h).toString('hex')),
        logKey: key,
      };
    },
  };
}
