import type { ArtifactRefs, BundleRef } from '../domain/events.js';
import type { EventStore, StoredEvent } from '../ledger/event-store.js';
import type { ArtifactStore } from './artifact-store.js';
import { isNatsUnavailable, whileNatsUnavailable } from '../infra/nats-unavailable.js';

/**
 * Every artifact the ledger names, read back and checked against its digest (`capture-ledger storage verify`):
 * a completed capture's evidence must stay readable whatever happened to the nats-servers. The
 * walk follows the LEDGER stream's sequences, so it can stop anywhere and resume from the sequence it reached.
 */
export interface StoredArtifactProblem {
  seq: number;
  tenantId: string;
  captureId: string;
  /** The key in the capture's `artifacts` refs: screenshot, html, wacz, … */
  artifact: string;
  object: string;
  status: 'missing' | 'corrupt';
  detail?: string;
}

export interface StoredEvidenceTally {
  captures: number;
  artifacts: number;
  ok: number;
  missing: number;
  corrupt: number;
  /** The last stream sequence fully checked: resume from the next one. */
  lastSeq: number;
}

export interface StoredEvidenceCheckOptions {
  events: EventStore;
  artifacts: ArtifactStore;
  fromSeq: number;
  untilSeq: number;
  onProblem(problem: StoredArtifactProblem): Promise<void> | void;
  onProgress?(seq: number): void;
  /** Stops after the capture being checked; the tally says where to resume. */
  signal?: AbortSignal;
  /**
   * The stored objects made of a capture since it completed (its certificate, change certificates), beside the
   * artifacts the ledger names: checked too (S3: the names under the capture's id).
   */
  madeOf?(captureId: string): Promise<string[]>;
  /**
   * How long the walk waits through NATS being unavailable (a node restarting, an election) before it gives up
   * (default two minutes): run after a restart, it must not report an election as a loss.
   */
  unavailableBudgetMs?: number;
}

export type Completed = { captureId: string; completedAt: string; artifacts: ArtifactRefs; bundle?: BundleRef };

/** The options of a walk over the ledger's completed captures (verify and migrate). */
export type LedgerWalkOptions = Pick<
  StoredEvidenceCheckOptions,
  'events' | 'fromSeq' | 'untilSeq' | 'onProgress' | 'signal' | 'unavailableBudgetMs'
>;

/** A completed capture's named objects: [artifact, object name] for each of its artifacts refs. */
export const namedObjects = (data: Completed): Array<[string, string]> =>
  Object.entries(data.artifacts ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string');

/**
 * Calls `onCompleted` for every capture.completed event from `fromSeq` to `untilSeq`, in order; waits through
 * NATS being unavailable (resuming after the last event handled); returns the last sequence fully handled
 * (less than untilSeq when stopped by the signal).
 */
export async function walkCompletedCaptures(
  opts: LedgerWalkOptions,
  onCompleted: (e: StoredEvent, data: Completed) => Promise<void>,
  /** Every other event, in the same order (migrate: the corroboration records issued). */
  onOther?: (e: StoredEvent) => Promise<void>,
): Promise<number> {
  const stopped = new Error('stopped');
  const budgetMs = opts.unavailableBudgetMs ?? 120_000;
  let lastSeq = opts.fromSeq - 1;
  // The walk resumes after an interruption; events already handled (by sequence and place in their commit) are skipped.
  let done = { seq: opts.fromSeq - 1, index: Number.MAX_SAFE_INTEGER };
  const handled = (e: { seq: number; index: number }) =>
    e.seq < done.seq || (e.seq === done.seq && e.index <= done.index);
  const onEvent = async (e: StoredEvent) => {
    if (opts.signal?.aborted) throw stopped;
    if (handled(e)) return;
    // A commit may hold several events: the sequence before this one is complete once we move past it.
    if (e.seq - 1 > lastSeq) lastSeq = e.seq - 1;
    opts.onProgress?.(e.seq);
    if (e.event.type === 'capture.completed') await onCompleted(e, e.event.data as Completed);
    else await onOther?.(e);
    done = { seq: e.seq, index: e.index };
  };
  // The budget counts from the last progress: a long walk may meet several restarts.
  let giveUpAt = Date.now() + budgetMs;
  let doneAtFailure = done;
  for (;;) {
    try {
      await opts.events.replay(Math.max(opts.fromSeq, done.seq), onEvent, opts.untilSeq);
      return Math.max(lastSeq, opts.untilSeq);
    } catch (err) {
      if (err === stopped) return lastSeq;
      if (done !== doneAtFailure) giveUpAt = Date.now() + budgetMs;
      doneAtFailure = done;
      if (!isNatsUnavailable(err) || Date.now() > giveUpAt) throw err;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

export async function checkStoredEvidence(opts: StoredEvidenceCheckOptions): Promise<StoredEvidenceTally> {
  const tally: StoredEvidenceTally = {
    captures: 0,
    artifacts: 0,
    ok: 0,
    missing: 0,
    corrupt: 0,
    lastSeq: opts.fromSeq - 1,
  };
  const budgetMs = opts.unavailableBudgetMs ?? 120_000;
  tally.lastSeq = await walkCompletedCaptures(opts, async (e, data) => {
    tally.captures++;
    const named = namedObjects(data);
    const seen = new Set(named.map(([, object]) => object));
    const made = opts.madeOf
      ? (await whileNatsUnavailable(() => opts.madeOf!(data.captureId), { budgetMs }))
          .filter((object) => !seen.has(object))
          .map((object): [string, string] => [object.endsWith('/certificate.pdf') ? 'certificate' : 'evidence', object])
      : [];
    // A capture's objects are independent: checked side by side.
    const checks = await Promise.all(
      [...named, ...made].map(async ([artifact, object]) => ({
        artifact,
        object,
        check: await whileNatsUnavailable(() => opts.artifacts.check(object), { budgetMs }),
      })),
    );
    for (const { artifact, object, check } of checks) {
      tally.artifacts++;
      let problem: StoredArtifactProblem | null = null;
      const at = { seq: e.seq, tenantId: e.event.tenantId, captureId: data.captureId, artifact, object };
      if (check.status === 'missing')
        problem = { ...at, status: 'missing', ...(check.detail ? { detail: check.detail } : {}) };
      else if (check.status === 'corrupt') problem = { ...at, status: 'corrupt', detail: check.detail };
      else if (artifact === 'wacz' && data.bundle && check.size !== data.bundle.size) {
        problem = {
          ...at,
          status: 'corrupt',
          detail: `${check.size} bytes stored, the bundle the ledger names has ${data.bundle.size}`,
        };
      }
      if (!problem) tally.ok++;
      else {
        tally[problem.status]++;
        await opts.onProblem(problem);
      }
    }
  });
  return tally;
}
