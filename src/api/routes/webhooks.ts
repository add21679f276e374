import { z } from 'zod';
import type { Webhooks } from '../../application/webhooks.js';
import { requireJsonBody, type TypedApp } from '../app.js';
import type { OperatorGuard } from '../operator-auth.js';
import { ANSWERS, problemResponses } from '../problem.js';
import { dateTime, idParam, nameSchema, pageLimit, uri } from '../schemas.js';
import { callerOf, type TenantGuard } from '../tenant-auth.js';
import { type RouteRegistrar, registerRoutes } from '../route-registrar.js';

/** Webhooks (spec 4.13, 2.9, 3.3; scope capture per 5.4) and the operators' delivery listing (docs/webhooks.md). */

export interface WebhookRouteDeps {
  guard: TenantGuard;
  /** The application service: register, list, delete, ping. */
  webhooks: Webhooks;
}
const MAX_WEBHOOK_URL = 2048;
const EVENT_TYPES = ['capture.complete', 'capture.failed'] as const;

const isHttpsUrl = (v: string): boolean => {
  try {
    return new URL(v.trim()).protocol === 'https:';
  } catch {
    return false;
  }
};

// Opt-in event types beside spec 2.9's `events`, which keeps the spec's enumeration exactly.
const extensionEventsSchema = z.array(z.enum(['capture.changed'], { error: "must be 'capture.changed'" }));

const requiredAs = (what: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${what}`),
});

const createBody = z.object(
  {
    url: z
      .string(requiredAs('a string'))
      .max(MAX_WEBHOOK_URL, `must be at most ${MAX_WEBHOOK_URL} characters`)
      .refine(isHttpsUrl, 'must be an absolute https URL')
      .meta({ format: 'uri', pattern: '^https://' }),
    events: z
      .array(
        z.enum(EVENT_TYPES, { error: "must be 'capture.complete' or 'capture.failed'" }),
        requiredAs("a non-empty array of 'capture.complete' / 'capture.failed'"),
      )
      .min(1, "must be a non-empty array of 'capture.complete' / 'capture.failed'"),
    extensionEvents: extensionEventsSchema
      .optional()
      .describe('Extension (docs/watch.md): opt-in event types beyond spec 6, sent only to webhooks that list them.'),
    name: nameSchema,
  },
  { error: 'must be a JSON object with url, events and name' },
);

const eventsSchema = z.array(z.enum(EVENT_TYPES));

/** spec 2.9, as created: the secret is shown only here. */
const createdSchema = z
  .object({
    id: z.string().describe('whk_<id>'),
    url: uri(),
    events: eventsSchema,
    extensionEvents: extensionEventsSchema.optional().describe('Extension (docs/watch.md): present when subscribed.'),
    name: z.string(),
    secret: z
      .string()
      .describe('svcsec_ followed by 64 hex characters; the HMAC key is the hex-decoded part (spec 6.5).'),
    createdAt: dateTime(),
    warning: z.string(),
  })
  .describe('Registered (spec 4.13).');

/** spec 2.9, as listed: never the secret. */
const webhookSchema = z.object({
  id: z.string(),
  url: uri(),
  events: eventsSchema,
  extensionEvents: extensionEventsSchema.optional().describe('Extension (docs/watch.md): present when subscribed.'),
  name: z.string(),
  createdAt: dateTime(),
  active: z.literal(true).describe('Always true; there is no pause.'),
});

const pingSchema = z
  .object({
    success: z.boolean().describe('True when the endpoint answered 2xx.'),
    httpStatus: z.number().int().describe('0 when no HTTP response arrived.'),
    latencyMs: z.number().int(),
    detail: z.string().optional().describe('Present on failure: non-2xx, network error, timeout.'),
  })
  .describe('The outcome of one signed ping (spec 4.13); a failed ping never changes the webhook.');

const webhookIdParams = z.object({ webhookId: idParam('webhook', 'whk_<id>') });
const unknownWebhookAnswer = { 404: 'No such webhook for this tenant.' } as const;
/** Every tenant webhook endpoint: scope capture (spec 5.4). */
const WEBHOOK_ANSWERS = { ...ANSWERS.tenantKey, ...ANSWERS.internal } as const;

const deliveriesQuery = z.object({
  limit: pageLimit(100, 500, 'Newest first; default 100, at most 500.'),
});

const deliveriesSchema = z
  .object({
    webhookId: z.string(),
    tenantId: z.string(),
    deleted: z.boolean(),
    data: z
      .array(
        z.object({
          deliveryId: z.string(),
          eventId: z.string(),
          eventType: z.string(),
          attempt: z.number().int(),
          outcome: z.enum(['delivered', 'failed']),
          httpStatus: z.number().int().nullable(),
          detail: z.string().optional(),
          latencyMs: z.number().int().nullable(),
          attemptedAt: dateTime(),
          nextAttemptAt: dateTime().optional(),
        }),
      )
      .describe('Delivery attempts, newest first.'),
    deadLetters: z.array(
      z.object({
        deliveryId: z.string(),
        eventId: z.string(),
        eventType: z.string(),
        attempts: z.number().int(),
        reason: z.string(),
        deadLetteredAt: dateTime(),
      }),
    ),
  })
  .describe("A webhook's delivery attempts and dead letters (docs/webhooks.md).");

export function webhookRoutes(deps: WebhookRouteDeps) {
  return async (app: TypedApp) => {
    app.addHook('onRequest', deps.guard.require('capture'));
    acceptEmptyJsonBodies(app);
    registerRoutes(app, WEBHOOK_ROUTES, deps);
  };
}

const WEBHOOK_ROUTES: RouteRegistrar<WebhookRouteDeps>[] = [
  registerWebhookRoute,
  listWebhooksRoute,
  deleteWebhookRoute,
  pingWebhookRoute,
  ownDeliveriesRoute,
];

/**
 * Ping and delete take no body (spec 4.13); a client that still labels its empty POST as JSON must not
 * get a 400 for it. Non-empty bodies go through Fastify's own JSON parser as everywhere else.
 */
function acceptEmptyJsonBodies(app: TypedApp) {
  const json = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    body === '' ? done(null, undefined) : json(req, body as string, done),
  );
}

function registerWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps) {
  app.post(
    '/v1/webhooks',
    {
      preValidation: requireJsonBody,
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook',
        operationId: 'registerWebhook',
        body: createBody,
        security: [{ bearer: [] }],
        response: {
          201: createdSchema,
          ...problemResponses({
            ...WEBHOOK_ANSWERS,
            ...ANSWERS.jsonBody,
            400: 'Invalid url, events or name, or a URL that is not a public address; the detail names the field (spec 7.2).',
            409: 'The tenant already has 5 webhooks (spec 7.2).',
            503: 'The service is unavailable (spec 4.13).',
          }),
        },
      },
    },
    async (req, reply) => reply.code(201).send(await webhooks.register(callerOf(req), req.body)),
  );
}

function listWebhooksRoute(app: TypedApp, { webhooks }: WebhookRouteDeps) {
  app.get(
    '/v1/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'List webhooks',
        operationId: 'listWebhooks',
        security: [{ bearer: [] }],
        response: {
          200: z.object({ data: z.array(webhookSchema) }).describe('Never secrets; empty when none.'),
          ...problemResponses(WEBHOOK_ANSWERS),
        },
      },
    },
    async (req) => webhooks.list(callerOf(req)),
  );
}

function deleteWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps) {
  app.delete(
    '/v1/webhooks/:webhookId',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook (permanent; discards its secret)',
        operationId: 'deleteWebhook',
        security: [{ bearer: [] }],
        params: webhookIdParams,
        response: {
          200: z
            .object({ id: z.string(), deleted: z.literal(true) })
            .describe('Deleted; events already dispatched may still be delivered.'),
          ...problemResponses({ ...WEBHOOK_ANSWERS, ...unknownWebhookAnswer }),
        },
      },
    },
    async (req) => webhooks.delete(callerOf(req), req.params.webhookId),
  );
}

function pingWebhookRoute(app: TypedApp, { webhooks }: WebhookRouteDeps) {
  app.post(
    '/v1/webhooks/:webhookId/ping',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a signed ping event to a webhook now',
        operationId: 'pingWebhook',
        security: [{ bearer: [] }],
        params: webhookIdParams,
        response: { 200: pingSchema, ...problemResponses({ ...WEBHOOK_ANSWERS, ...unknownWebhookAnswer }) },
      },
    },
    async (req) => webhooks.ping(callerOf(req), req.params.webhookId),
  );
}

/** Extension (docs/api.md, Console endpoints): the operators' delivery listing, for the tenant's own webhooks. */
function ownDeliveriesRoute(app: TypedApp, { webhooks }: WebhookRouteDeps) {
  app.get(
    '/v1/webhooks/:webhookId/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: "List one of the tenant's webhooks' delivery attempts and dead letters",
        operationId: 'listOwnWebhookDeliveries',
        security: [{ bearer: [] }],
        params: webhookIdParams,
        querystring: deliveriesQuery,
        response: {
          200: deliveriesSchema,
          ...problemResponses({
            ...WEBHOOK_ANSWERS,
            400: 'limit is not an integer of at least 1.',
            ...unknownWebhookAnswer,
          }),
        },
      },
    },
    async (req) => webhooks.deliveries(req.params.webhookId, req.query.limit, callerOf(req).principal.tenantId),
  );
}

/** Operators: a webhook's recent delivery attempts (newest first) and its dead letters (admin credential). */
const once = { error: 'must be given once' };
const deadLettersQuery = z.object({
  tenant: z.string(once).optional().describe('Only this tenant; default all.'),
  limit: pageLimit(50, 200, 'Newest first; default 50, at most 200.'),
  cursor: z.string(once).optional().describe('The nextCursor of the page before.'),
});

const deadLetterListSchema = z
  .object({
    data: z
      .array(
        z.object({
          deliveryId: z.string(),
          tenantId: z.string(),
          webhookId: z.string(),
          eventId: z.string().describe('The webhook event id receivers dedupe on.'),
          eventType: z.string(),
          attempts: z.number().int().describe('Attempts made before giving up (docs/webhooks.md, retry table).'),
          reason: z.string().describe("The last attempt's failure: an HTTP status, a refused address, a timeout."),
          deadLetteredAt: dateTime(),
        }),
      )
      .describe('Dead letters, newest first.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page.'),
  })
  .describe('The webhook dead-letter queue across tenants (docs/webhooks.md).');

export function adminWebhookRoutes(operator: OperatorGuard, guard: TenantGuard, webhooks: Webhooks) {
  return async (app: TypedApp) => {
    app.addHook('onRequest', guard.perIp());
    app.addHook('onRequest', operator.credential());

    app.get(
      '/v1/admin/webhooks/:webhookId/deliveries',
      {
        schema: {
          tags: ['admin'],
          summary: "List a webhook's delivery attempts and dead letters",
          operationId: 'listWebhookDeliveries',
          security: [{ bearer: [] }],
          params: webhookIdParams,
          querystring: deliveriesQuery,
          response: {
            200: deliveriesSchema,
            ...problemResponses({
              ...ANSWERS.operator,
              ...ANSWERS.internal,
              400: 'limit is not an integer of at least 1.',
              404: 'No such webhook.',
            }),
          },
        },
      },
      async (req) => webhooks.deliveries(req.params.webhookId, req.query.limit),
    );

    app.get(
      '/v1/admin/webhooks/dead-letters',
      {
        schema: {
          tags: ['admin'],
          summary: 'List webhook dead letters across tenants, newest first',
          operationId: 'listWebhookDeadLetters',
          security: [{ bearer: [] }],
          querystring: deadLettersQuery,
          response: {
            200: deadLetterListSchema,
            ...problemResponses({
              ...ANSWERS.operator,
              ...ANSWERS.internal,
              400: 'tenant, limit or cursor is invalid; the detail names it.',
            }),
          },
        },
      },
      async (req) => webhooks.deadLetters(req.query),
    );
  };
}
