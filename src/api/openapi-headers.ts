import type { z } from 'zod';

/**
 * Response headers as the OpenAPI document declares them (spec 4.3, 4.4, 7.3, 8.2). A route puts them on a
 * response with `withHeaders`; `problemResponses` adds Retry-After to every 429 and 503 by itself. The
 * zod transform keeps only a response's description and content, so app.ts's `transform` carries these over.
 */
/** A header's schema with its description, the shape @fastify/swagger turns into an OpenAPI header object. */
export interface HeaderDoc {
  type: 'integer' | 'string';
  format?: string;
  minimum?: number;
  description: string;
}

export const HEADERS = {
  'X-Quota-Limit': { type: 'integer', minimum: 0, description: "The tenant's monthly capture quota (spec 8.2)." },
  'X-Quota-Used': {
    type: 'integer',
    minimum: 0,
    description: 'Captures counted this month, this submission included (spec 8.2).',
  },
  'X-Quota-Remaining': { type: 'integer', minimum: 0, description: 'Captures left this month (spec 8.2).' },
  'Retry-After': {
    type: 'integer',
    minimum: 0,
    description: 'Seconds to wait before retrying (spec 7.3; at capacity, spec 7.2).',
  },
  'Set-Cookie': {
    type: 'string',
    description: 'The console session cookie (HttpOnly; SameSite=Strict; Path=/; Secure under https), or its clearing.',
  },
  Location: { type: 'string', format: 'uri', description: 'Absolute URL of the resource this answer is about.' },
} as const satisfies Record<string, HeaderDoc>;

export type HeaderName = keyof typeof HEADERS;
export const QUOTA_HEADERS: HeaderName[] = ['X-Quota-Limit', 'X-Quota-Used', 'X-Quota-Remaining'];

/** A response in the content form (as problemResponses builds them), with `headers` for the document. */
export interface DocumentedResponse<S> {
  description: string;
  content: { 'application/json': { schema: S } };
  headers?: Partial<Record<HeaderName, HeaderDoc>>;
}

/** A JSON success response with its documented headers. */
export function withHeaders<S extends z.ZodType>(
  schema: S,
  description: string,
  names: HeaderName[],
): DocumentedResponse<S> {
  return { description, content: { 'application/json': { schema } }, headers: pickHeaders(names) };
}

export function pickHeaders(names: HeaderName[]): Partial<Record<HeaderName, HeaderDoc>> {
  return Object.fromEntries(names.map((n) => [n, HEADERS[n]]));
}

/**
 * `transform` step for @fastify/swagger after the zod one: put back the `headers` of content-form responses
 * that the zod transform dropped (`original` is the route's schema, `transformed` what the zod step made).
 */
export function keepResponseHeaders(
  original: { response?: Record<string, unknown> } | undefined,
  transformed: { response?: Record<string, unknown> },
): void {
  if (!original?.response || !transformed.response) return;
  for (const [status, response] of Object.entries(original.response)) {
    const headers = (response as { headers?: unknown } | null)?.headers;
    const target = transformed.response[status] as Record<string, unknown> | undefined;
    if (headers && target && typeof target === 'object' && 'content' in target) target.headers = headers;
  }
}
