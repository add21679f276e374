import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { problem, type ProblemBody } from '../domain/problem-body.js';
import { isNatsUnavailable } from '../infra/nats-unavailable.js';
import { ArtifactCorruptError, StorageUnavailableError } from '../storage/artifact-store.js';
import { pickHeaders } from './openapi-headers.js';

export { problem, type ProblemBody };

/** An error thrown from a route or hook and rendered by the app's error handler. */
export class HttpProblem extends Error {
  override name = 'HttpProblem';
  constructor(
    public readonly status: number,
    public readonly detail: string,
    public readonly title?: string,
    public readonly extras: Record<string, unknown> = {},
    public readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
  body(): ProblemBody {
    return problem(this.status, this.detail, this.title, this.extras);
  }
}

export function sendProblem(reply: FastifyReply, p: HttpProblem): FastifyReply {
  for (const [k, v] of Object.entries(p.headers)) reply.header(k, v);
  return reply.code(p.status).type('application/json; charset=utf-8').send(p.body());
}

/**
 * The error body as a schema (spec 7.1, 7.3): every 4xx/5xx a route documents points at this one component.
 * Loose, so members a refusal adds (quota, limitType, …) are never stripped by the serializer.
 */
export const problemSchema = z
  .looseObject({
    type: z.literal('about:blank'),
    status: z.number().int().min(400).max(599),
    title: z.string().describe('Short summary of the problem class; clients switch on `status`.'),
    detail: z.string().describe('Explanation of this occurrence.'),
    limitType: z
      .enum(['tenant', 'quota', 'schedules'])
      .optional()
      .describe("429 only (spec 7.3): absent for the per-IP limit, 'tenant', 'quota' or 'schedules'."),
    quota: z
      .looseObject({
        resource: z.enum(['captures', 'storage']),
        limit: z.number().int(),
        used: z.number().int(),
        remaining: z.number().int(),
        resetsAt: z.string().meta({ format: 'date-time' }),
        requested: z.number().int().optional().describe('Batch size, on a batch refused whole.'),
      })
      .optional()
      .describe("Only with limitType 'quota'."),
    sessionCookie: z
      .literal('duplicated')
      .optional()
      .describe(
        'Extension, on a 401 only: the request carried two console session cookies of one kind (one set by another page on this host), so neither was used.',
      ),
    captureStatus: z
      .literal('pending')
      .optional()
      .describe('Extension: on a 409 for a capture still running; ask again after Retry-After seconds.'),
  })
  .meta({ id: 'Problem', description: 'Error body (spec 7.1).' });

// 429 and 503 say when to come back (spec 7.2, 7.3): Retry-After is declared on each of them.
const problemResponse = (status: number, description: string) => ({
  description,
  content: { 'application/json': { schema: problemSchema } },
  ...(status === 429 || status === 503 ? { headers: pickHeaders(['Retry-After']) } : {}),
});

/**
 * A route's documented error answers: status → why it happens, each with the one error body. Used in
 * `schema.response` next to the success schemas, so the OpenAPI document names every status a route gives.
 */
export function problemResponses<S extends number>(
  answers: Record<S, string>,
): Record<S, ReturnType<typeof problemResponse>> {
  const out = {} as Record<S, ReturnType<typeof problemResponse>>;
  for (const [status, description] of Object.entries(answers) as Array<[string, string]>)
    out[Number(status) as S] = problemResponse(Number(status), description);
  return out;
}

/** The answers of the shared hooks and parsers, described once (spec 5, 7.2, 8.1). Spread into problemResponses. */
export const ANSWERS = {
  /** guard.require(scope): tenant key, scope, per-tenant rate limit. */
  tenantKey: {
    401: 'Missing, malformed or invalid Authorization header (spec 5.6).',
    403: 'The API key lacks the scope this endpoint needs (spec 5.3).',
    429: "Rate limited: per tenant (limitType 'tenant'), or per address after failed authentications (spec 7.3).",
  },
  /** guard.perIp(): endpoints without credentials. */
  perIp: {
    429: "Rate limited per client address (spec 7.3, 8.1), or with a valid tenant key per tenant (limitType 'tenant').",
  },
  /** checkAdmin: the operator credential (spec 5.2). */
  adminKey: {
    401: 'Missing or invalid admin credential (spec 5.6).',
    503: 'The admin API is not configured (ADMIN_KEY unset; spec 5.2).',
  },
  /** The operator routes other than the key endpoints: guard.perIp(), then operator.credential(). */
  operator: {
    401: 'Missing or invalid admin credential (spec 5.6).',
    429: 'Rate limited per client address without a valid credential (spec 8.1), or 5 failed admin credentials from it within 60 s (the operator limit of spec 4.11).',
    503: 'The admin API is not configured (ADMIN_KEY unset; spec 5.2).',
  },
  /** requireJsonBody and the JSON parser (spec 7.2). */
  jsonBody: {
    400: 'Missing or malformed JSON body, or an invalid field; the detail names it (spec 7.2).',
    413: 'The request body is larger than 1 MiB.',
    415: 'Content-Type is not application/json (spec 7.2).',
  },
  /** The error handler's last resort. */
  internal: { 500: 'Internal error; the detail carries the request id.' },
} as const;

/** Seconds a client waits before retrying while a nats-server restarts or a stream elects a leader. */
export const NATS_RETRY_AFTER_S = 5;

/**
 * The answer to an error no route expected: 503 with Retry-After while NATS is restarting or electing a leader
 * (the same request succeeds in a moment), 500 otherwise, with the request id to quote.
 */
export function unexpectedErrorProblem(err: unknown, requestId: string): HttpProblem {
  // A stored object lost or damaged: what it is, named as `capture-ledger storage verify` names it; no retry helps.
  if (err instanceof ArtifactCorruptError)
    return new HttpProblem(
      500,
      `Stored object ${err.object ?? '(unnamed)'} is ${err.missing ? 'missing from storage' : 'damaged'} (${err.message}); \`capture-ledger storage verify\` reports it too. Quote request id ${requestId} to the operator.`,
      'Internal Server Error',
    );
  if (err instanceof StorageUnavailableError)
    return new HttpProblem(
      503,
      `${err.message}; nothing stored is lost, retry after ${err.retryAfterS} seconds.`,
      'Service Unavailable',
      {},
      { 'Retry-After': String(err.retryAfterS) },
    );
  if (isNatsUnavailable(err))
    return new HttpProblem(
      503,
      `Storage is briefly unavailable (a NATS node is restarting or electing a leader); retry after ${NATS_RETRY_AFTER_S} seconds.`,
      'Service Unavailable',
      {},
      { 'Retry-After': String(NATS_RETRY_AFTER_S) },
    );
  return new HttpProblem(
    500,
    `Internal error; quote request id ${requestId} when reporting it.`,
    'Internal Server Error',
  );
}

/**
 * Logs an error no route expected, by its cause: an object storage outage at debug (the store logs the outage
 * once, naming itself: s3-health.ts), NATS restarting as a warning, a lost or damaged object or anything else as
 * an error.
 */
export function logUnexpected(
  log: {
    debug(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  },
  err: unknown,
  answer: HttpProblem,
  extra: object = {},
): void {
  if (err instanceof StorageUnavailableError) log.debug({ err, ...extra }, 'object storage unavailable; answered 503');
  else if (answer.status === 503) log.warn({ err, ...extra }, 'NATS unavailable; answered 503');
  else if (err instanceof ArtifactCorruptError)
    log.error({ err, object: err.object, ...extra }, `stored object ${err.object ?? ''} is missing or damaged`);
  else log.error({ err, ...extra }, 'unhandled error');
}
