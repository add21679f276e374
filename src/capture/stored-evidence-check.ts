import type { ArtifactRefs, BundleRef } from '../domain/events.js';
import type { EventStore } from '../ledger/event-store.js';
import type { ArtifactStore } from './artifact-store.js';

/**
 * Every artifact the ledger names, read back and checked against its digest (`capture-ledger storage verify`,
 * issue 26): a completed capture's evidence must stay readable whatever happened to the nats-servers. The
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
}

type Completed = { captureId: string; artifacts: ArtifactRefs; bundle?: BundleRef };

export async function checkStoredEvidence(opts: StoredEvidenceCheckOptions): Promise<StoredEvidenceTally> {
  const tally: StoredEvidenceTally = {
    captures: 0,
    artifacts: 0,
    ok: 0,
    missing: 0,
    corrupt: 0,
    lastSeq: opts.fromSeq - 1,
  };
  const stopped = new Error('stopped');
  try {
    await opts.events.replay(
      opts.fromSeq,
      async (e) => {
        if (opts.signal?.aborted) throw stopped;
        // A commit may hold several events: the sequence before this one is complete once we move past it.
        if (e.seq - 1 > tally.lastSeq) tally.lastSeq = e.seq - 1;
        opts.onProgress?.(e.seq);
        if (e.event.type !== 'capture.completed') return;
        const data = e.event.data as Completed;
        tally.captures++;
        const named = Object.entries(data.artifacts ?? {}).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        );
        // A capture's objects are independent: checked side by side.
        const checks = await Promise.all(
          named.map(async ([artifact, object]) => ({ artifact, object, check: await opts.artifacts.check(object) })),
        );
        for (const { artifact, object, check } of checks) {
          tally.artifacts++;
          let problem: StoredArtifactProblem | null = null;
          const at = { seq: e.seq, tenantId: e.event.tenantId, captureId: data.captureId, artifact, object };
          if (check.status === 'missing') problem = { ...at, status: 'missing' };
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
      },
      opts.untilSeq,
    );
    tally.lastSeq = Math.max(tally.lastSeq, opts.untilSeq);
  } catch (err) {
    if (err !== stopped) throw err;
  }
  return tally;
}
