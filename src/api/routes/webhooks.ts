import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isId, newId } from '../../domain/ids.js';
import type { WebhookEventType } from '../../domain/events.js';
import { type AddressPolicy, checkTargetUrl } from '../../net/index.js';
import { isSuccess } from '../../webhooks/delivery-policy.js';
import { generateWebhookSecret } from '../../webhooks/signature.js';
import { envelopeBody, pingEnvelope } from '../../webhooks/webhook-events.js';
import { sendWebhook } from '../../webhooks/webhook-sender.js';
import { requireJsonBody } from '../app.js';
import { checkAdmin } from '../auth.js';
import { secretOfWebhook, type WebhookSecretStore } from '../../webhooks/webhook-secret-store.js';
import type { ApiContext } from '../context.js';
import { HttpProblem } from '../problem.js';
import { iso, nameSchema } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import { listDeadLetters, listDeliveryAttempts } from '../../../projections/read-models/webhook-deliveries.js';
import { findActiveWebhookOfTenant, findWebhookOwner, listActiveWebhooks } from '../../../projections/read-models/webhooks.js';

/** Webhooks (spec 4.13, 2.9, 3.3; scope capture per 5.4) and the operators' delivery listing (docs/webhooks.md). */

export interface WebhookRouteDeps {
  ctx: ApiContext;
  guard: TenantGuard;
  policy: AddressPolicy;
  /** Extra trusted CAs for pings (WEBHOOK_CA_CERTS), PEM. */
  ca: string[];
  /** Where each webhook's secret key lives (crypto-shredding). */
  secrets: WebhookSecretStore;
}

const WARNING = 'Store this secret now. It cannot be retrieved after this response.';
const MAX_WEBHOOK_URL = 2048;
const EVENT_TYPES = ['capture.complete', 'capture.failed'] as const;

const isHttpsUrl = (v: string): boolean => {
  try {
    return new URL(v.trim()).protocol === 'https:';
  } catch {
    return false;
  }
};

const requiredAs = (what: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${what}`),
});

const createBody = z.object(
  {
    url: z
      .string(requiredAs('a string'))
      .max(MAX_WEBHOOK_URL, `must be at most ${MAX_WEBHOOK_URL} characters`)
      .refine(isHttpsUrl, 'must be an absolute https URL'),
    events: z
      .array(z.enum(EVENT_TYPES, { error: "must be 'capture.complete' or 'capture.failed'" }), requiredAs("a non-empty array of 'capture.complete' / 'capture.failed'"))
      .min(1, "must be a non-empty array of 'capture.complete' / 'capture.failed'"),
    name: nameSchema,
  },
  { error: 'must be a JSON object with url, events and name' },
);

const causedBy = (req: FastifyRequest) => ({
  correlationId: req.id,
  causedBy: req.principal!.keyHash ? { kind: 'key' as const, keyHash: req.principal!.keyHash } : { kind: 'legacy-key' as const },
});

const unknownWebhook = (id: string) => new HttpProblem(404, `No webhook ${id}.`, 'Not Found');

export function webhookRoutes(deps: WebhookRouteDeps) {
  const { ctx, guard, policy } = deps;

  return async (app: FastifyInstance) => {
    app.addHook('onRequest', guard.require('capture'));
    // Ping and delete take no body (spec 4.13); a client that still labels its empty POST as JSON must not
    // get a 400 for it. Non-empty bodies go through Fastify's own JSON parser as everywhere else.
    const json = app.getDefaultJsonParser('error', 'ignore');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
      body === '' ? done(null, undefined) : json(req, body as string, done),
    );

    app.post(
      '/v1/webhooks',
      {
        preValidation: requireJsonBody,
        schema: { tags: ['webhooks'], summary: 'Register a webhook', body: createBody, security: [{ bearer: [] }] },
      },
      async (req, reply) => {
        const body = req.body as z.infer<typeof createBody>;
        // The delivery target must be a public address, like a capture target (DESIGN decision 6). A name
        // that does not resolve now is accepted: the dispatcher checks every address again at send time.
        const checked = await checkTargetUrl(body.url, { policy, onRefusedAddress: (why) => req.log.info({ why }, 'target refused') });
        if (!checked.ok) throw new HttpProblem(400, `Invalid request: body.url: ${checked.detail}`, 'Bad Request');
        const events = [...new Set(body.events)];
        const webhookId = newId('whk');
        const secret = generateWebhookSecret();
        // Only the sealed secret goes into the log; its key stays in the secret store until the webhook is deleted.
        const sealedSecret = await deps.secrets.seal(webhookId, secret);
        const result = await ctx.tenants.execute(
          req.principal!.tenantId,
          { type: 'RegisterWebhook', data: { webhookId, url: checked.url, events, name: body.name, sealedSecret } },
          causedBy(req),
        );
        await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
        return reply.code(201).send({
          id: webhookId,
          url: checked.url,
          events,
          name: body.name,
          secret,
          createdAt: result.reply.createdAt,
          warning: WARNING,
        });
      },
    );

    app.get('/v1/webhooks', { schema: { tags: ['webhooks'], summary: 'List webhooks', security: [{ bearer: [] }] } }, async (req) => {
      const rows = await listActiveWebhooks(ctx.pool, req.principal!.tenantId);
      // spec 2.9: never the secret; `active` is always true (there is no pause).
      return {
        data: rows.map((w) => ({ id: w.webhook_id, url: w.url, events: w.events, name: w.name, createdAt: iso(w.created_at)!, active: true })),
      };
    });

    app.delete(
      '/v1/webhooks/:webhookId',
      { schema: { tags: ['webhooks'], summary: 'Delete a webhook (permanent; discards its secret)', security: [{ bearer: [] }] } },
      async (req) => {
        const { webhookId } = req.params as { webhookId: string };
        if (!isId('whk', webhookId)) throw unknownWebhook(webhookId);
        // Another tenant's webhook is not in this tenant's state: 404 as for an unknown one.
        const result = await ctx.tenants.execute(req.principal!.tenantId, { type: 'DeleteWebhook', data: { webhookId } }, causedBy(req));
        // Spec 3.3: the secret is discarded. Its key is destroyed now (the webhook feeder does it again from the log).
        await deps.secrets.shred(webhookId);
        await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
        return { id: webhookId, deleted: true };
      },
    );

    app.post(
      '/v1/webhooks/:webhookId/ping',
      { schema: { tags: ['webhooks'], summary: 'Send a signed ping event to a webhook now', security: [{ bearer: [] }] } },
      async (req) => {
        const { webhookId } = req.params as { webhookId: string };
        if (!isId('whk', webhookId)) throw unknownWebhook(webhookId);
        const hook = await findActiveWebhookOfTenant(ctx.pool, req.principal!.tenantId, webhookId);
        const secret = hook ? await secretOfWebhook(deps.secrets, hook) : null;
        if (!hook || !secret) throw unknownWebhook(webhookId);
        const envelope = pingEnvelope(newId('evt'), ctx.clock.now(), webhookId);
        // A ping is not recorded and never changes the webhook (spec 4.13).
        const sent = await sendWebhook({ policy, clock: ctx.clock, ca: deps.ca }, { url: hook.url, secret, eventId: envelope.id, body: envelopeBody(envelope) });
        const success = sent.result.kind === 'response' && isSuccess(sent.result.status);
        return {
          success,
          // 0 when no HTTP response arrived (refused, reset, TLS failure, timeout, refused address).
          httpStatus: sent.httpStatus ?? 0,
          latencyMs: sent.latencyMs,
          ...(success ? {} : { detail: sent.detail ?? `HTTP ${sent.httpStatus}` }),
        };
      },
    );
  };
}

const deliveriesQuery = (raw: Record<string, unknown>): { limit: number } => {
  const v = raw.limit;
  if (v === undefined) return { limit: 100 };
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1) throw new HttpProblem(400, 'Invalid request: querystring.limit: must be an integer of at least 1', 'Bad Request');
  return { limit: Math.min(n, 500) };
};

/** Operators: a webhook's recent delivery attempts (newest first) and its dead letters (admin credential). */
export function adminWebhookRoutes(ctx: ApiContext, guard: TenantGuard) {
  return async (app: FastifyInstance) => {
    app.addHook('onRequest', guard.perIp());
    app.addHook('onRequest', async (req) => checkAdmin(req, ctx.config.ADMIN_KEY));

    app.get(
      '/v1/admin/webhooks/:webhookId/deliveries',
      { schema: { tags: ['admin'], summary: "List a webhook's delivery attempts and dead letters", security: [{ bearer: [] }] } },
      async (req) => {
        const { webhookId } = req.params as { webhookId: string };
        const { limit } = deliveriesQuery(req.query as Record<string, unknown>);
        const row = isId('whk', webhookId) ? await findWebhookOwner(ctx.pool, webhookId) : null;
        if (!row) throw unknownWebhook(webhookId);
        const [attempts, dead] = await Promise.all([listDeliveryAttempts(ctx.pool, webhookId, limit), listDeadLetters(ctx.pool, webhookId, limit)]);
        return {
          webhookId,
          tenantId: row.tenant_id,
          deleted: row.deleted_at !== null,
          data: attempts.map((a) => ({
            deliveryId: a.delivery_id,
            eventId: a.event_id,
            eventType: a.event_type,
            attempt: a.attempt,
            outcome: a.outcome,
            httpStatus: a.http_status,
            ...(a.detail ? { detail: a.detail } : {}),
            latencyMs: a.latency_ms,
            attemptedAt: iso(a.attempted_at)!,
            ...(a.next_attempt_at ? { nextAttemptAt: iso(a.next_attempt_at)! } : {}),
          })),
          deadLetters: dead.map((d) => ({
            deliveryId: d.delivery_id,
            eventId: d.event_id,
            eventType: d.event_type,
            attempts: d.attempts,
            reason: d.reason,
            deadLetteredAt: iso(d.dead_lettered_at)!,
          })),
        };
      },
    );
  };
}
