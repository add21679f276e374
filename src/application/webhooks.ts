import type { ServiceContext } from './service-context.js';
import { type Caller, causedBy } from './caller.js';
import { refusal } from '../domain/errors.js';
import { iso } from '../domain/clock.js';
import type { WebhookEventType } from '../domain/events.js';
import { isId, newId } from '../domain/ids.js';
import { type AddressPolicy, checkTargetUrl } from '../net/index.js';
import { isSuccess } from '../webhooks/delivery-policy.js';
import { generateWebhookSecret } from '../webhooks/signature.js';
import { envelopeBody, pingEnvelope } from '../webhooks/webhook-events.js';
import { sendWebhook } from '../webhooks/webhook-sender.js';
import { secretOfWebhook, type WebhookSecretStore } from '../webhooks/webhook-secret-store.js';
import { TENANT_ID_PATTERN } from '../domain/tenant-keys.js';
import { listRecentDeadLetters, readDeliveryLog } from '../../projections/read-models/webhook-deliveries.js';
import {
  findActiveWebhookOfTenant,
  findWebhookOwner,
  listActiveWebhooks,
} from '../../projections/read-models/webhooks.js';

/**
 * A tenant's webhooks (spec 2.9, 3.3, 4.13): register, list, delete, ping; and the operators' view of one
 * webhook's deliveries (docs/webhooks.md). The webhook routes call these; deliveries themselves are made by
 * the dispatcher role.
 */

export type Webhooks = ReturnType<typeof createWebhooks>;

export interface WebhookDeps {
  policy: AddressPolicy;
  /** Extra trusted CAs for pings (WEBHOOK_CA_CERTS), PEM. */
  ca: string[];
  /** Where each webhook's secret key lives (crypto-shredding). */
  secrets: WebhookSecretStore;
}

const WARNING = 'Store this secret now. It cannot be retrieved after this response.';

const unknownWebhook = (id: string) => refusal(404, `No webhook ${id}.`);
const invalidQuery = (field: string, why: string) => refusal(400, `Invalid request: querystring.${field}: ${why}`);

/** The dead-letter page cursor: the last row's time and delivery id, opaque to callers. */
const deadLetterCursor = {
  encode: (at: Date, deliveryId: string) => Buffer.from(`${at.toISOString()}|${deliveryId}`).toString('base64url'),
  decode(cursor: string): { at: Date; deliveryId: string } {
    const [at = '', deliveryId = '', extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
    const when = new Date(at);
    if (extra !== undefined || !/^[\w-]{1,100}$/.test(deliveryId) || Number.isNaN(when.getTime()))
      throw invalidQuery('cursor', 'must be the nextCursor of a page before');
    return { at: when, deliveryId };
  },
};

/** Extension event types (docs/watch.md): subscribed to through `extensionEvents`, beside spec 2.9's `events`. */
export const EXTENSION_EVENT_TYPES: readonly WebhookEventType[] = ['capture.changed'];

/** A webhook's event types as the API shows them: the spec's in `events`, extensions apart, and only when there are some. */
function eventLists(all: readonly WebhookEventType[]) {
  const extensionEvents = all.filter((e) => EXTENSION_EVENT_TYPES.includes(e));
  return {
    events: all.filter((e) => !EXTENSION_EVENT_TYPES.includes(e)) as Array<'capture.complete' | 'capture.failed'>,
    ...(extensionEvents.length ? { extensionEvents: extensionEvents as Array<'capture.changed'> } : {}),
  };
}

export function createWebhooks(ctx: ServiceContext, deps: WebhookDeps) {
  return {
    /** 400 for a delivery target that is not a public address; the actor's 409 at 5 webhooks (spec 7.2). */
    register: (
      caller: Caller,
      body: { url: string; events: WebhookEventType[]; extensionEvents?: WebhookEventType[]; name: string },
    ) => registerWebhook(ctx, deps, caller, body),
    list: (caller: Caller) => listWebhooks(ctx, caller),
    /** Permanent, and the secret is discarded (spec 3.3); 404 for an unknown webhook or another tenant's. */
    delete: (caller: Caller, webhookId: string) => deleteWebhook(ctx, deps, caller, webhookId),
    /** One signed ping now (spec 4.13); 404 for an unknown webhook, another tenant's, or one whose secret is gone. */
    ping: (caller: Caller, webhookId: string) => pingWebhook(ctx, deps, caller, webhookId),
    /**
     * The dead-letter queue across tenants (or of one), newest first, a page at a time: deliveries the dispatcher
     * gave up after the retry table (docs/webhooks.md). Operators only; 400 naming tenant or cursor when malformed.
     */
    deadLetters: (page: { tenant?: string | undefined; limit: number; cursor?: string | undefined }) =>
      deadLetterPage(ctx, page),
    /**
     * A webhook's recent delivery attempts and dead letters, newest first: operators see any webhook's (no tenant),
     * a tenant only its own. 404 for an unknown webhook, and for another tenant's.
     */
    deliveries: (webhookId: string, limit: number, tenantId?: string) => deliveriesOf(ctx, webhookId, limit, tenantId),
  };
}

async function registerWebhook(
  ctx: ServiceContext,
  { policy, secrets }: WebhookDeps,
  caller: Caller,
  body: { url: string; events: WebhookEventType[]; extensionEvents?: WebhookEventType[]; name: string },
) {
  // The delivery target must be a public address, like a capture target (DESIGN decision 6). A name
  // that does not resolve now is accepted: the dispatcher checks every address again at send time.
  const checked = await checkTargetUrl(body.url, {
    policy,
    onRefusedAddress: (why) => caller.log.info({ why }, 'target refused'),
  });
  if (!checked.ok) throw refusal(400, `Invalid request: body.url: ${checked.detail}`);
  const events = [...new Set([...body.events, ...(body.extensionEvents ?? [])])];
  const webhookId = newId('whk');
  const secret = generateWebhookSecret();
  // Only the sealed secret goes into the log; its key stays in the secret store until the webhook is deleted.
  const sealedSecret = await secrets.seal(webhookId, secret);
  const result = await ctx.tenants.execute(
    caller.principal.tenantId,
    { type: 'RegisterWebhook', data: { webhookId, url: checked.url, events, name: body.name, sealedSecret } },
    causedBy(caller),
  );
  await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  return {
    id: webhookId,
    url: checked.url,
    ...eventLists(events),
    name: body.name,
    secret,
    createdAt: result.reply.createdAt,
    warning: WARNING,
  };
}

async function listWebhooks(ctx: ServiceContext, caller: Caller) {
  const rows = await listActiveWebhooks(ctx.pool, caller.principal.tenantId);
  // spec 2.9: never the secret; `active` is always true (there is no pause).
  return {
    data: rows.map((w) => ({
      id: w.webhook_id,
      url: w.url,
      ...eventLists(w.events),
      name: w.name,
      createdAt: iso(w.created_at)!,
      active: true as const,
    })),
  };
}

async function deleteWebhook(ctx: ServiceContext, { secrets }: WebhookDeps, caller: Caller, webhookId: string) {
  if (!isId('whk', webhookId)) throw unknownWebhook(webhookId);
  // Another tenant's webhook is not in this tenant's state: 404 as for an unknown one.
  const result = await ctx.tenants.execute(
    caller.principal.tenantId,
    { type: 'DeleteWebhook', data: { webhookId } },
    causedBy(caller),
  );
  // Spec 3.3: the secret is discarded. Its key is destroyed now (the webhook feeder does it again from the log).
  await secrets.shred(webhookId);
  await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  return { id: webhookId, deleted: true as const };
}

async function pingWebhook(ctx: ServiceContext, deps: WebhookDeps, caller: Caller, webhookId: string) {
  const { policy, secrets } = deps;
  if (!isId('whk', webhookId)) throw unknownWebhook(webhookId);
  const hook = await findActiveWebhookOfTenant(ctx.pool, caller.principal.tenantId, webhookId);
  const secret = hook ? await secretOfWebhook(secrets, hook) : null;
  if (!hook || !secret) throw unknownWebhook(webhookId);
  const envelope = pingEnvelope(newId('evt'), ctx.clock.now(), webhookId);
  // A ping is not recorded and never changes the webhook (spec 4.13).
  const sent = await sendWebhook(
    { policy, clock: ctx.clock, ca: deps.ca },
    { url: hook.url, secret, eventId: envelope.id, body: envelopeBody(envelope) },
  );
  const success = sent.result.kind === 'response' && isSuccess(sent.result.status);
  return {
    success,
    // 0 when no HTTP response arrived (refused, reset, TLS failure, timeout, refused address).
    httpStatus: sent.httpStatus ?? 0,
    latencyMs: sent.latencyMs,
    ...(success ? {} : { detail: sent.detail ?? `HTTP ${sent.httpStatus}` }),
  };
}

async function deadLetterPage(
  ctx: ServiceContext,
  page: { tenant?: string | undefined; limit: number; cursor?: string | undefined },
) {
  if (page.tenant !== undefined && !TENANT_ID_PATTERN.test(page.tenant))
    throw invalidQuery('tenant', 'must match ^[a-z0-9_-]{1,64}$');
  const before = page.cursor === undefined ? null : deadLetterCursor.decode(page.cursor);
  // One row more than asked says whether there is a next page.
  const rows = await listRecentDeadLetters(ctx.pool, {
    tenantId: page.tenant ?? null,
    before,
    limit: page.limit + 1,
  });
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    data: shown.map((d) => ({
      deliveryId: d.delivery_id,
      tenantId: d.tenant_id,
      webhookId: d.webhook_id,
      eventId: d.event_id,
      eventType: d.event_type,
      attempts: d.attempts,
      reason: d.reason,
      deadLetteredAt: iso(d.dead_lettered_at)!,
    })),
    nextCursor:
      rows.length > page.limit && last ? deadLetterCursor.encode(last.dead_lettered_at, last.delivery_id) : null,
  };
}

async function deliveriesOf(ctx: ServiceContext, webhookId: string, limit: number, tenantId?: string) {
  const row = isId('whk', webhookId) ? await findWebhookOwner(ctx.pool, webhookId) : null;
  if (!row || (tenantId !== undefined && row.tenant_id !== tenantId)) throw unknownWebhook(webhookId);
  const { attempts, deadLetters: dead } = await readDeliveryLog(ctx.pool, webhookId, limit);
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
}
