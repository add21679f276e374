/**
 * When a capture is tried again, and when it fails for good (DESIGN decisions 3 and 13). The page has
 * MAX_PAGE_ATTEMPTS; a failure that was the service's own (no browser page in time, a browser crash, a
 * worker killed mid-capture, storing failed) does not use one of them: it is retried after the next of the
 * service delays (30 s, 2 min, … by default), and only when those run out does the capture fail, with the
 * service's reason. Pure: the worker keeps the counts (attempt-store.ts) and acts on the verdict.
 */
import type { FailureReason } from '../domain/failure-reason.js';

export const MAX_PAGE_ATTEMPTS = 3;

/** How often a capture has been tried, by whose failure; kept per capture until it completes or fails. */
export interface AttemptCounts {
  /** Attempts that failed for the page's reason. */
  page: number;
  /** Attempts that failed for the service's own reason, an abandoned one included. */
  service: number;
  /** Attempts begun; more than page + service means one was abandoned (its worker stopped). */
  started: number;
  /** The last failure, for the capture's final error when it has to fail. */
  last?: Failure;
  /** Epoch ms of the last attempt's start or failure: how long a capture has waited since. */
  lastAt?: number;
}

export interface Failure {
  owner: 'page' | 'service';
  failureReason: FailureReason;
  error: string;
  retryable: boolean;
}

export const NO_ATTEMPTS: AttemptCounts = { page: 0, service: 0, started: 0 };

export interface AttemptPolicy {
  /** Waits after the service's own failures, in order; their number is how many such failures are borne. */
  serviceDelaysMs: readonly number[];
  /** Wait before the page is tried again after its n-th failure. */
  pageDelayMs(failures: number): number;
}

export const defaultPageDelayMs = (failures: number) => Math.min(30_000, 2000 * failures);

/** An attempt that began but never reported: its worker stopped. Counted as the service's failure. */
export function countAbandoned(counts: AttemptCounts): AttemptCounts {
  const abandoned = counts.started - counts.page - counts.service;
  if (abandoned <= 0) return counts;
  return {
    ...counts,
    service: counts.service + abandoned,
    last: {
      owner: 'service',
      failureReason: 'browser_crashed',
      error: 'The capture worker stopped while rendering the page',
      retryable: true,
    },
  };
}

export type Verdict =
  | { kind: 'run' }
  | { kind: 'wait'; delayMs: number }
  | { kind: 'fail'; error: string; retryable: boolean; failureReason: FailureReason; attempts: number };

/**
 * Before an attempt (counts with abandoned attempts already counted): run it, wait first (the service's
 * delay not yet served, `waitedMs` since the last failure), or fail for good.
 */
export function beforeAttempt(counts: AttemptCounts, policy: AttemptPolicy, waitedMs: number): Verdict {
  const verdict = exhausted(counts, policy);
  if (verdict) return verdict;
  if (counts.last?.owner === 'service') {
    const delay = policy.serviceDelaysMs[counts.service - 1] ?? 0;
    if (waitedMs < delay) return { kind: 'wait', delayMs: delay - waitedMs };
  }
  return { kind: 'run' };
}

/** After a failed attempt (counts include it): try again after a delay, or fail for good. */
export function afterFailure(counts: AttemptCounts, policy: AttemptPolicy): Verdict {
  const verdict = exhausted(counts, policy);
  if (verdict) return verdict;
  if (counts.last?.owner === 'service')
    return { kind: 'wait', delayMs: policy.serviceDelaysMs[counts.service - 1] ?? 0 };
  return { kind: 'wait', delayMs: policy.pageDelayMs(counts.page) };
}

function exhausted(counts: AttemptCounts, policy: AttemptPolicy): Verdict | null {
  const last = counts.last;
  const attempts = counts.page + counts.service;
  if (last && !last.retryable)
    return { kind: 'fail', error: last.error, retryable: false, failureReason: last.failureReason, attempts };
  if (counts.page >= MAX_PAGE_ATTEMPTS) {
    const why = last?.owner === 'page' ? last : undefined;
    return {
      kind: 'fail',
      error: why?.error ?? `The capture did not finish after ${MAX_PAGE_ATTEMPTS} attempts`,
      retryable: true,
      failureReason: why?.failureReason ?? 'target_timeout',
      attempts,
    };
  }
  if (counts.service > policy.serviceDelaysMs.length) {
    const failureReason: FailureReason = last?.owner === 'service' ? last.failureReason : 'service_overloaded';
    return {
      kind: 'fail',
      error: `The capture service could not complete this capture after ${counts.service} tries of its own (${last?.error ?? 'overloaded'}); submit it again later`,
      retryable: true,
      failureReason,
      attempts,
    };
  }
  return null;
}
