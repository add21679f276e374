/**
 * Per-capture attempt counts (attempt-policy.ts) in a KV bucket, so that any worker, after any crash, knows
 * how often a capture was tried and by whose failure. Counts are operational state like rate-limit counters,
 * not tenant facts: the outcome event carries the total. Written by compare-and-set on the entry's revision;
 * a job is held by one worker at a time, so a conflict is rare and simply read again.
 */
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { openKvBucket } from '../infra/nats-buckets.js';
import { type AttemptCounts, countAbandoned, type Failure, NO_ATTEMPTS, type Verdict } from './attempt-policy.js';
import { BUCKETS } from '../infra/topology.js';

export const ATTEMPTS_BUCKET = BUCKETS.attempts.name;
/** A capture is decided long before the TTL; the entry is only a record of work in progress. */
export const ATTEMPTS_KV_OPTIONS = BUCKETS.attempts.options;
const MAX_CAS_ROUNDS = 8;

export interface AttemptStore {
  /**
   * Counts an abandoned earlier attempt, asks `decide` what to do with the counts, and records the start of
   * an attempt only when the answer is to run one.
   */
  begin(
    captureId: string,
    decide: (counts: AttemptCounts) => Verdict,
  ): Promise<{ counts: AttemptCounts; verdict: Verdict }>;
  /** Records the failure of the attempt begun last; answers the counts with it. */
  fail(captureId: string, failure: Failure): Promise<AttemptCounts>;
  /** The capture completed or failed for good: its counts are no longer needed. */
  clear(captureId: string): Promise<void>;
}

export async function openAttemptStore(
  nc: NatsConnection,
  replicas: number,
  now: () => number = Date.now,
): Promise<AttemptStore> {
  const kv: KV = await openKvBucket(nc, ATTEMPTS_BUCKET, ATTEMPTS_KV_OPTIONS, replicas);

  /** Compare-and-set: `next` answers the new value (null: leave the entry as it is) and what to tell the caller. */
  async function change<R>(
    captureId: string,
    next: (counts: AttemptCounts) => { value: AttemptCounts | null; result: R },
  ): Promise<R> {
    for (let round = 0; round < MAX_CAS_ROUNDS; round++) {
      const entry = await kv.get(captureId);
      const live = entry !== null && entry.operation === 'PUT' && entry.value.length > 0;
      const { value, result } = next(live ? (entry.json() as AttemptCounts) : NO_ATTEMPTS);
      if (value === null) return result;
      try {
        // A deleted key keeps a marker with a revision: update against it like against a live entry.
        if (entry) await kv.update(captureId, JSON.stringify(value), entry.revision);
        else await kv.create(captureId, JSON.stringify(value));
        return result;
      } catch (err) {
        if (isConflict(err)) continue;
        throw err;
      }
    }
    throw new Error(`attempt counts of ${captureId} kept changing`);
  }

  return {
    begin: (captureId, decide) =>
      change<{ counts: AttemptCounts; verdict: Verdict }>(captureId, (stored) => {
        const counts = countAbandoned(stored);
        const verdict = decide(counts);
        if (verdict.kind === 'run')
          return {
            value: { ...counts, started: counts.page + counts.service + 1, lastAt: now() },
            result: { counts, verdict },
          };
        return { value: counts === stored ? null : counts, result: { counts, verdict } };
      }),
    fail: (captureId, failure) =>
      change(captureId, (counts) => {
        const page = counts.page + (failure.owner === 'page' ? 1 : 0);
        const service = counts.service + (failure.owner === 'service' ? 1 : 0);
        const value: AttemptCounts = { page, service, started: page + service, last: failure, lastAt: now() };
        return { value, result: value };
      }),
    async clear(captureId) {
      await kv.delete(captureId);
    },
  };

  function isConflict(err: unknown): boolean {
    if (err instanceof JetStreamApiError) return err.code === JetStreamApiCodes.StreamWrongLastSequence;
    // kv.create on an existing key answers "wrong last sequence" too, as a plain error on some paths.
    return err instanceof Error && /wrong last sequence|key exists/i.test(err.message);
  }
}
