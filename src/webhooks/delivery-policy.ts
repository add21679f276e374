// The retry table of spec 6.6 as a pure decision: given the attempt number and what happened, deliver,
// retry after a delay, or dead-letter. The delays come from WEBHOOK_RETRY_DELAYS (seconds, default
// 60,300,900: four attempts in all, spec 8.3).

/** What one attempt produced. */
export type AttemptResult =
  | { kind: 'response'; status: number }
  | { kind: 'timeout' }
  | { kind: 'network'; detail: string }
  /** The target resolved to an address the egress policy refuses (DESIGN decision 6). */
  | { kind: 'blocked'; detail: string };

export type DeliveryDecision =
  | { kind: 'delivered' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'dead_letter'; reason: string };

export const maxAttempts = (retryDelaysSec: readonly number[]): number => retryDelaysSec.length + 1;

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** spec 6.6 item 2: a 4xx other than 408 and 429 will not get better by retrying. */
export const isPermanentStatus = (status: number): boolean =>
  status >= 400 && status < 500 && status !== 408 && status !== 429;

/** `attempt` counts from 1. */
export function decideAfterAttempt(
  attempt: number,
  result: AttemptResult,
  retryDelaysSec: readonly number[],
): DeliveryDecision {
  if (result.kind === 'response' && isSuccess(result.status)) return { kind: 'delivered' };
  const max = maxAttempts(retryDelaysSec);
  if (result.kind === 'response' && isPermanentStatus(result.status)) {
    return {
      kind: 'dead_letter',
      reason: `the receiver answered HTTP ${result.status}, a permanent failure (no retry for 4xx other than 408 and 429)`,
    };
  }
  if (result.kind === 'blocked') {
    return {
      kind: 'dead_letter',
      reason: `the webhook URL points to an address that is not allowed: ${result.detail}`,
    };
  }
  if (attempt >= max) {
    return {
      kind: 'dead_letter',
      reason: `no successful delivery after ${max} attempts; last: ${describeResult(result)}`,
    };
  }
  return { kind: 'retry', delayMs: Math.round(retryDelaysSec[attempt - 1]! * 1000) };
}

/** A short human-readable account of a failed attempt (the `detail` of the attempt record). */
export function describeResult(result: AttemptResult): string {
  switch (result.kind) {
    case 'response':
      return `HTTP ${result.status}`;
    case 'timeout':
      return 'no response within the delivery timeout';
    case 'network':
      return result.detail;
    case 'blocked':
      return result.detail;
  }
}
