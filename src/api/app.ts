import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type RawServerDefault,
} from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.js';
import { httpDuration, httpRequests, scrape } from '../observability/metrics.js';
import { METRICS_REFUSAL, metricsAllowed } from '../observability/metrics-access.js';
import {
  OPENAPI_TAGS,
  OPENAPI_VERSION,
  OPENAPI_WEBHOOKS,
  openApiTransform,
  openApiTransformObject,
  ROOT_SECURITY,
} from './openapi-document.js';
import {
  HttpProblem,
  NATS_RETRY_AFTER_S,
  problem,
  sendProblem,
  logUnexpected,
  unexpectedErrorProblem,
} from './problem.js';
import { drainRequest } from './request-drain.js';
import { responseHeadersHook } from './response-headers.js';
import { MAX_PATH_SEGMENT, namesNothing } from './schemas.js';
import { cookieOptions, sessionCookieName } from './console-cookies.js';

/** The app as plugins see it: zod schemas type params, query, body and replies. */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** An area of the API: routes + schemas + hooks, registered in its own encapsulated scope. */
export type ApiPlugin = (app: TypedApp) => Promise<void> | void;

export interface AppOptions {
  log: Logger;
  publicBaseUrl: string;
  /** TRUST_PROXY: whose X-Forwarded-For gives the client address. */
  trustProxy?: boolean | number | string;
  /** METRICS_TOKEN: bearer token for /metrics; unset → loopback clients only. */
  metricsToken?: string | undefined;
  /** Area plugins (routes + schemas + hooks), registered in order. */
  plugins: ApiPlugin[];
  /** How long this process has been without any nats-server (src/infra/nats-link.ts); 0 while connected. */
  natsDownForMs?: () => number;
}

/**
 * Without any nats-server for this long, a write (which always goes through the ledger) is answered 503 at once
 * instead of after the ledger's retries; losing one node of a cluster reconnects well within it.
 */
export const NATS_OUTAGE_MS = 5_000;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const describeIssue = (v: { instancePath?: string; message?: string }, context: string): string => {
  const path = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  return path ? `${context}.${path}: ${v.message}` : `${context}: ${v.message}`;
};

/** The 400 detail of a schema violation, e.g. `Invalid request: body.options.delayMs: …`; MCP tools answer the same words. */
export const invalidRequestDetail = (
  issues: Array<{ instancePath?: string; message?: string }>,
  context: string,
): string => `Invalid request: ${issues.map((v) => describeIssue(v, context)).join('; ')}`;

/** Largest request body of a route that sets none of its own (ANSWERS.jsonBody's 413). */
export const BODY_LIMIT = 1024 * 1024;

/** A body limit as the 413 names it: "1 MiB", "256 KiB". */
const sizeText = (bytes: number): string =>
  bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : bytes % 1024 === 0
      ? `${bytes / 1024} KiB`
      : `${bytes} bytes`;

/** The 404 of a method and path no route answers. */
const notFound = (req: FastifyRequest, reply: FastifyReply) =>
  reply
    .code(404)
    .type('application/json; charset=utf-8')
    .send(problem(404, `No route for ${req.method} ${req.url.split('?')[0]}.`, 'Not Found'));

/**
 * The routes' zod schemas validate and serialize, in every plugin. Given when the app is made, Fastify does not load
 * its default compilers (ajv, fast-json-stringify), whose types its options name.
 */
const ZOD_COMPILERS = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** Fastify with the spec's error body on every error path (spec 7.1) and the OpenAPI document. */
export async function buildApp(opts: AppOptions): Promise<TypedApp> {
  // Plugins see the logger as Fastify's base logger; what they log through is the pino instance given here.
  const app = Fastify<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger>({
    loggerInstance: opts.log,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming)
        ? incoming
        : `req_${randomBytes(8).toString('hex')}`;
    },
    bodyLimit: BODY_LIMIT,
    // A hop count is "trust the nearest N proxies".
    trustProxy:
      typeof opts.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (opts.trustProxy as number)
        : (opts.trustProxy ?? false),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_SEGMENT },
    schemaController: { compilersFactory: ZOD_COMPILERS },
    // Errors raised before a route runs (a path segment over 100 characters: 414, a malformed URL: 400) get
    // the spec's error body like every other answer (spec 7.1).
    frameworkErrors: (err, _req, reply) => {
      const status = err.statusCode ?? 400;
      const detail =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `A path segment is longer than ${MAX_PATH_SEGMENT} characters; no resource has such a name.`
          : 'The request URL is malformed.';
      return sendProblem(reply as FastifyReply, new HttpProblem(status, detail));
    },
    // Requests Node rejects before Fastify sees them (headers or URL over 16 KiB: 431; unparseable: 400).
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return socket.destroy();
      const code = (err as NodeJS.ErrnoException).code;
      const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'HPE_URI_TOO_LONG' ? 414 : 400;
      const detail =
        status === 431
          ? 'The request line and headers are larger than 16 KiB.'
          : status === 414
            ? 'The request URL is too long.'
            : 'The request is not valid HTTP.';
      const body = JSON.stringify(problem(status, detail));
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    reply.header('X-Content-Type-Options', 'nosniff');
    // No route for this method and path: answer 404 without parsing the body, so neither its size (413)
    // nor its syntax (400) changes the answer.
    if (req.is404) return notFound(req, reply);
    if (WRITES.has(req.method) && (opts.natsDownForMs?.() ?? 0) >= NATS_OUTAGE_MS)
      return sendProblem(
        reply,
        new HttpProblem(
          503,
          `The service cannot reach its message store (NATS) and takes no writes until it is back; retry after ${NATS_RETRY_AFTER_S} seconds.`,
          'Service Unavailable',
          {},
          { 'Retry-After': String(NATS_RETRY_AFTER_S) },
        ),
      );
  });
  // Every answer waits until the request body is read (bounded; src/api/request-drain.ts), so a client
  // still sending gets the answer instead of a reset connection.
  app.addHook('onSend', async (req, _reply, payload) => {
    if (!req.raw.complete) await drainRequest(req.raw);
    return payload;
  });
  app.addHook('onSend', responseHeadersHook({ publicBaseUrl: opts.publicBaseUrl }));

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (!metricsAllowed(req.headers.authorization, req.socket.remoteAddress, opts.metricsToken)) {
      throw new HttpProblem(401, METRICS_REFUSAL, 'Unauthorized', {}, { 'WWW-Authenticate': 'Bearer' });
    }
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await scrape());
  });

  app.setErrorHandler(answerError);

  app.setNotFoundHandler((req, reply) => notFound(req, reply));

  await registerOpenApi(app, opts.publicBaseUrl);

  for (const plugin of opts.plugins) await app.register(async (scope) => plugin(scope));
  return app;
}

/** Every error as the spec's error body (spec 7.1): refusals as thrown, Fastify's own errors named, the rest a 500. */
function answerError(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof HttpProblem) return sendProblem(reply, err);
  if (err instanceof DomainError) {
    return sendProblem(
      reply,
      new HttpProblem(err.status, err.detail, err.title, err.extras.body ?? {}, err.extras.headers ?? {}),
    );
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    const unknown = namesNothing(err.validation);
    if (unknown !== null) return sendProblem(reply, new HttpProblem(404, unknown, 'Not Found'));
    const context = (err as FastifyError).validationContext ?? 'request';
    return sendProblem(reply, new HttpProblem(400, invalidRequestDetail(err.validation, context), 'Bad Request'));
  }
  const fe = err as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendProblem(
        reply,
        new HttpProblem(415, 'Content-Type must be application/json.', 'Unsupported Media Type'),
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendProblem(reply, new HttpProblem(400, 'The request body is empty; send a JSON object.', 'Bad Request'));
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return sendProblem(
        reply,
        new HttpProblem(400, `The request body is not valid JSON: ${fe.message}`, 'Bad Request'),
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendProblem(
        reply,
        new HttpProblem(
          413,
          `The request body is larger than ${sizeText(req.routeOptions.bodyLimit ?? BODY_LIMIT)}.`,
          'Payload Too Large',
        ),
      );
    default:
      break;
  }
  if (err instanceof SyntaxError || (fe.statusCode === 400 && /JSON/i.test(fe.message))) {
    return sendProblem(reply, new HttpProblem(400, `The request body is not valid JSON: ${fe.message}`, 'Bad Request'));
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return sendProblem(reply, new HttpProblem(fe.statusCode, fe.message));
  }
  const answer = unexpectedErrorProblem(err, req.id);
  logUnexpected(req.log, err, answer);
  return sendProblem(reply, answer);
}

/** The OpenAPI document at /openapi.json and Swagger UI at /docs, made from the routes' zod schemas. */
async function registerOpenApi(app: TypedApp, publicBaseUrl: string): Promise<void> {
  const cookies = cookieOptions(publicBaseUrl);
  await app.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: {
        title: 'Capture Ledger API',
        version: '0.6.0',
        description: 'Signed, timestamped captures of public web pages.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          // The console's session cookies (src/api/console-cookies.ts), accepted where no Authorization header is sent;
          // named as this deployment names them (`__Host-` prefixed under https).
          consoleTenantSession: { type: 'apiKey', in: 'cookie', name: sessionCookieName('tenant', cookies) },
          consoleOperatorSession: { type: 'apiKey', in: 'cookie', name: sessionCookieName('operator', cookies) },
          consoleAnalystSession: { type: 'apiKey', in: 'cookie', name: sessionCookieName('analyst', cookies) },
          // ANALYST_KEY: a Bearer token like the others, accepted on the report routes only (docs/security.md).
          analystBearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'ANALYST_KEY; accepted by GET /v1/admin/reports/{name} only.',
          },
        },
      },
      tags: OPENAPI_TAGS,
      security: ROOT_SECURITY,
      webhooks: OPENAPI_WEBHOOKS,
    },
    transform: openApiTransform,
    // Schemas registered with an id (the error body) become components, referenced from every route.
    transformObject: openApiTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/** preValidation hook for POST endpoints that take a body (spec 7.2: 415). */
export async function requireJsonBody(req: FastifyRequest): Promise<void> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new HttpProblem(415, 'Content-Type must be application/json.', 'Unsupported Media Type');
}
