/**
 * Why a capture failed, as a class a client can branch on (docs/api.md, Failure reasons; `failureReason` of the
 * capture record, status, list item and the capture.failed webhook). The first four are the page's; the
 * next two the service's own, which are retried with backoff outside the page's attempt budget and reach a
 * tenant only when that could not be avoided; then the egress policy's refusal, and a capture asked from a
 * vantage point whose proxy did not answer (never made directly instead), and one whose browser profile was
 * deleted before it ran (never made signed out instead).
 */
export const FAILURE_REASONS = [
  'target_timeout',
  'target_unreachable',
  'target_refused',
  'blocked',
  'browser_crashed',
  'service_overloaded',
  'egress_refused',
  'vantage_unavailable',
  'profile_unavailable',
] as const;

export type FailureReason = (typeof FAILURE_REASONS)[number];
