import { STATUS_CODES } from 'node:http';
import { problem, type ProblemBody } from './problem-body.js';

/**
 * A refusal decided by the domain or an application service, carrying the HTTP-like status the API answers with (spec 7).
 * Recognised by `status`, never by message text.
 */
export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    public readonly status: number,
    public readonly title: string,
    public readonly detail: string,
    /** Extra members of the error body (limitType, quota) and headers (Retry-After). */
    public readonly extras: { body?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(detail);
  }
  /** The spec 7.1 error body. */
  body(): ProblemBody {
    return problem(this.status, this.detail, this.title, this.extras.body ?? {});
  }
  get headers(): Record<string, string> {
    return this.extras.headers ?? {};
  }
}

/** A refusal with the status's standard title (400, 404, 422, 500, 503 …). */
export const refusal = (status: number, detail: string, extras: DomainError['extras'] = {}) =>
  new DomainError(status, STATUS_CODES[status] ?? 'Error', detail, extras);

/** A 503 that says when to come back (spec 7.2). */
export const unavailable = (detail: string, retryAfterSec: number) =>
  refusal(503, detail, { headers: { 'Retry-After': String(retryAfterSec) } });

/** The tenant's request rate is used up (spec 7.3, 8.1: limitType 'tenant'). */
export const tenantRateLimited = (retryAfterSec: number, detail?: string) =>
  new DomainError(
    429,
    'Too Many Requests',
    detail ?? `Rate limit of this tenant exceeded; retry in ${retryAfterSec} s.`,
    {
      body: { limitType: 'tenant' },
      headers: { 'Retry-After': String(retryAfterSec) },
    },
  );

export const notFound = (detail: string) => new DomainError(404, 'Not Found', detail);
export const badRequest = (detail: string) => new DomainError(400, 'Bad Request', detail);
export const conflict = (detail: string) => new DomainError(409, 'Conflict', detail);

/** How soon a client asking for a pending capture's certificate should ask again (a capture takes seconds). */
export const PENDING_RETRY_AFTER_S = 5;

/** 409 for a capture still running: "wait", which a client or agent can tell from the 404's "gone". */
export const stillPending = (captureId: string, what: string) =>
  refusal(
    409,
    `Capture ${captureId} is still pending; its ${what} exists once it completes. Poll GET /v1/captures/${captureId}/status and ask again.`,
    { body: { captureStatus: 'pending' }, headers: { 'Retry-After': String(PENDING_RETRY_AFTER_S) } },
  );
