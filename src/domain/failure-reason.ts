/**
 * Why a capture failed, as a class a client can branch on (README, Failure reasons; `failureReason` of the
 * capture record, status, list item and the capture.failed webhook). The first four are the page's; the
 * next two the service's own, which are retried with backoff outside the page's attempt budget and reach a
 * tenant only when that could not be avoided; the last is the egress policy's refusal.
 */
export const FAILURE_REASONS = [
  'target_timeout',
  'target_unreachable',
  'target_refused',
  'blocked',
  'browser_crashed',
  'service_overloaded',
  'egress_refused',
] as const;

export type FailureReason = (typeof FAILURE_REASONS)[number];
