import { createHash } from 'node:crypto';
import type { WebhookEventType } from '../../src/domain/events.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import {
  type EventRef,
  type ReadRow,
  auditedReadModel,
  type Sql,
  type TableComparison,
  type TenantEnvelope,
  type TenantEventType,
} from './read-model.js';
import {
  compareFoldedRows,
  type FoldedRows,
  foldChange,
  type InsertChange,
  tableSpec,
  type UpdateChange,
  writeChange,
} from './row-changes.js';

/**
 * `webhooks`: every registered webhook, deleted ones included (with their ledger positions, so the webhook
 * feeder can ask which webhooks existed at a point of the log, spec 4.13). The secret is held sealed (or in
 * the clear for webhooks registered before sealing) and discarded on deletion (spec 3.3).
 */

const WEBHOOKS_HANDLES: readonly TenantEventType[] = ['webhook.registered', 'webhook.deleted'];

/** A `webhooks` row as the events give it (timestamps as ISO text). */
export type WebhookValues = {
  webhook_id: string;
  tenant_id: string;
  url: string;
  events: WebhookEventType[];
  name: string;
  /** In the clear, for webhooks registered before sealing. */
  secret: string | null;
  /** As the event carries it: ciphertext. */
  sealed_secret: string | null;
  created_at: string;
  deleted_at: string | null;
  registered_seq: number | null;
  deleted_seq: number | null;
};

/** A row of `webhooks`. */
export type WebhookRow = ReadRow<WebhookValues, 'created_at' | 'deleted_at'>;

export const WEBHOOKS = tableSpec<WebhookValues>({
  name: 'webhooks',
  key: ['webhook_id'],
  columns: {
    webhook_id: 'text',
    tenant_id: 'text',
    url: 'text',
    events: 'text[]',
    name: 'text',
    secret: 'text',
    sealed_secret: 'text',
    created_at: 'timestamptz',
    deleted_at: 'timestamptz',
    registered_seq: 'bigint',
    deleted_seq: 'bigint',
  },
});

// ---- what an event does to the rows (the one definition the writer and the fold carry out) -------------

/** Registered once, with its ledger position; the first deletion stands and discards the secret (spec 3.3). */
export function webhookChange(stored: StoredEvent): InsertChange<WebhookValues> | UpdateChange<WebhookValues> | null {
  const e = stored.event as TenantEnvelope;
  if (e.type === 'webhook.registered') {
    const d = e.data;
    return {
      op: 'insert',
      row: {
        webhook_id: d.webhookId,
        tenant_id: e.tenantId,
        url: d.url,
        events: [...d.events],
        name: d.name,
        secret: d.secret ?? null,
        sealed_secret: d.sealedSecret ?? null,
        created_at: d.createdAt,
        registered_seq: stored.seq,
      },
    };
  }
  if (e.type === 'webhook.deleted') {
    return {
      op: 'update',
      key: { webhook_id: e.data.webhookId },
      set: { deleted_at: e.data.deletedAt, secret: null, sealed_secret: null, deleted_seq: stored.seq },
      when: { deleted_at: null },
    };
  }
  return null;
}

// ---- batch writer (rare events: one statement each, in order) ------------------------------------------

function createWebhooksWriter(q: Sql) {
  return {
    async apply(stored: StoredEvent): Promise<void> {
      const change = webhookChange(stored);
      if (change) await writeChange(q, WEBHOOKS, change);
    },
  };
}

// ---- pure fold ------------------------------------------------------------------------------------------

function createWebhooksFold() {
  const webhooks: FoldedRows<WebhookValues> = new Map();
  return {
    webhooks,
    apply(stored: StoredEvent, ref: EventRef): void {
      const change = webhookChange(stored);
      if (change) foldChange(WEBHOOKS, webhooks, change, ref);
    },
  };
}
export type WebhooksFold = ReturnType<typeof createWebhooksFold>;

// ---- queries --------------------------------------------------------------------------------------------

export type WebhookSecretRow = Pick<WebhookRow, 'webhook_id' | 'url' | 'secret' | 'sealed_secret'>;

/** A tenant's webhooks not deleted, oldest first (spec 2.9: never the secret). */
export async function listActiveWebhooks(
  q: Sql,
  tenantId: string,
): Promise<Array<Pick<WebhookRow, 'webhook_id' | 'url' | 'events' | 'name' | 'created_at'>>> {
  const r = await q.query<Pick<WebhookRow, 'webhook_id' | 'url' | 'events' | 'name' | 'created_at'>>(
    `SELECT webhook_id, url, events, name, created_at FROM webhooks WHERE tenant_id = $1 AND deleted_at IS NULL
     ORDER BY created_at, webhook_id`,
    [tenantId],
  );
  return r.rows;
}

/** The tenant's webhook with what signing needs; null when unknown, another tenant's or deleted. */
export async function findActiveWebhookOfTenant(
  q: Sql,
  tenantId: string,
  webhookId: string,
): Promise<WebhookSecretRow | null> {
  const r = await q.query<WebhookSecretRow>(
    'SELECT webhook_id, url, secret, sealed_secret FROM webhooks WHERE webhook_id = $1 AND tenant_id = $2 AND deleted_at IS NULL',
    [webhookId, tenantId],
  );
  return r.rows[0] ?? null;
}

/** What signing a delivery needs (the secrets are null once the webhook is deleted). */
export async function findWebhookSecrets(
  q: Sql,
  webhookId: string,
): Promise<Pick<WebhookRow, 'webhook_id' | 'secret' | 'sealed_secret'> | null> {
  const r = await q.query<Pick<WebhookRow, 'webhook_id' | 'secret' | 'sealed_secret'>>(
    'SELECT webhook_id, secret, sealed_secret FROM webhooks WHERE webhook_id = $1',
    [webhookId],
  );
  return r.rows[0] ?? null;
}

/** Whose webhook it is and whether it was deleted (operators' delivery listing). */
export async function findWebhookOwner(
  q: Sql,
  webhookId: string,
): Promise<Pick<WebhookRow, 'tenant_id' | 'deleted_at'> | null> {
  return (
    (
      await q.query<Pick<WebhookRow, 'tenant_id' | 'deleted_at'>>(
        'SELECT tenant_id, deleted_at FROM webhooks WHERE webhook_id = $1',
        [webhookId],
      )
    ).rows[0] ?? null
  );
}

/** Webhooks of the tenant subscribed to `type`, registered before commit `seq` and not deleted before it. */
export async function webhooksSubscribedAsOf(
  q: Sql,
  tenantId: string,
  type: string,
  seq: number,
  at: string,
): Promise<Array<Pick<WebhookRow, 'webhook_id' | 'url'>>> {
  // Rows projected before migration 002 have no positions; their timestamps stand in.
  const r = await q.query<Pick<WebhookRow, 'webhook_id' | 'url'>>(
    `SELECT webhook_id, url FROM webhooks
     WHERE tenant_id = $1 AND $2 = ANY(events)
       AND (registered_seq < $3 OR (registered_seq IS NULL AND created_at <= $4))
       AND (deleted_at IS NULL OR deleted_seq > $3 OR (deleted_seq IS NULL AND deleted_at > $4))
     ORDER BY created_at, webhook_id`,
    [tenantId, type, seq, at],
  );
  return r.rows;
}

export type AuditWebhookRow = Pick<
  WebhookRow,
  'webhook_id' | 'url' | 'events' | 'name' | 'secret' | 'sealed_secret'
> & { deleted_at: Date | string | null };

export async function readWebhooksForAudit(q: Sql, tenantId: string): Promise<AuditWebhookRow[]> {
  return (
    await q.query<AuditWebhookRow>(
      'SELECT webhook_id, url, events, name, secret, sealed_secret, deleted_at FROM webhooks WHERE tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

const digestOf = (value: string | null): string | null =>
  value === null ? null : createHash('sha256').update(value).digest('hex');

/** The same columns of a folded row and of a row read back; a secret in the clear by digest, so no report ever shows it. */
const comparableWebhook = (
  r: Pick<AuditWebhookRow, 'url' | 'events' | 'name' | 'deleted_at' | 'sealed_secret' | 'secret'>,
) => ({
  url: r.url,
  events: r.events,
  name: r.name,
  deleted: r.deleted_at !== null,
  sealed_secret: r.sealed_secret,
  'secret (sha256)': digestOf(r.secret),
});

export function compareWebhooks(fold: WebhooksFold, rows: AuditWebhookRow[]): TableComparison {
  return compareFoldedRows('webhooks', fold.webhooks, rows, (r) => r.webhook_id, comparableWebhook);
}

// ---- the read model ---------------------------------------------------------------------------------------

export const webhooksReadModel = auditedReadModel({
  name: 'webhooks',
  tables: [WEBHOOKS.name],
  handles: WEBHOOKS_HANDLES,
  changes: { event: webhookChange },
  writer: createWebhooksWriter,
  fold: createWebhooksFold,
  audit: { read: readWebhooksForAudit, compare: (fold, rows) => [compareWebhooks(fold, rows)] },
});
