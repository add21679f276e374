/**
 * A refusal decided by the domain, carrying the HTTP-like status the API answers with (spec 7).
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
}

export const notFound = (detail: string) => new DomainError(404, 'Not Found', detail);
export const badRequest = (detail: string) => new DomainError(400, 'Bad Request', detail);
export const conflict = (detail: string) => new DomainError(409, 'Conflict', detail);
