import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { openKvBucket } from '../infra/nats-buckets.js';
import { BUCKETS } from '../infra/topology.js';

/**
 * Webhook secrets never enter the ledger in the clear (docs/security.md, crypto-shredding): each secret is sealed
 * with AES-256-GCM under a key of its own, kept in a KV bucket under the webhook id, and the
 * `webhook.registered` event carries only the sealed form. Deleting the webhook deletes its key, so the secret
 * is gone for good while the log stays complete and replayable; the sealed bytes left in the log open to
 * nothing. The bucket keeps one revision per key (history 1), so the delete marker itself drops the key's
 * revision: no KV purge, which nats-server before 2.9.21 could replay as a purge of the whole bucket's
 * front after a restart (nats-server #4196, src/infra/nats-server-version.ts).
 */
export const WEBHOOK_KEY_BUCKET = BUCKETS.webhookKeys.name;

export interface WebhookSecretStore {
  /** A new key for this webhook, and `secret` sealed under it (base64 of iv | tag | ciphertext). */
  seal(webhookId: string, secret: string): Promise<string>;
  /** The secret, or null when the webhook's key was shredded (the webhook was deleted). */
  open(webhookId: string, sealed: string): Promise<string | null>;
  /** Destroy the webhook's key (idempotent). */
  shred(webhookId: string): Promise<void>;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealSecret(key: Uint8Array, secret: string, webhookId: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(webhookId)); // a sealed secret opens only for its own webhook
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function openSecret(key: Uint8Array, sealed: string, webhookId: string): string {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(webhookId));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

export function secretStoreOver(kv: KV): WebhookSecretStore {
  return {
    async seal(webhookId, secret) {
      const key = randomBytes(32);
      await kv.put(webhookId, key);
      return sealSecret(key, secret, webhookId);
    },
    async open(webhookId, sealed) {
      const entry = await kv.get(webhookId);
      if (entry?.operation !== 'PUT' || entry.value.length !== 32) return null;
      return openSecret(entry.value, sealed, webhookId);
    },
    async shred(webhookId) {
      await kv.delete(webhookId);
    },
  };
}

export async function openWebhookSecretStore(nc: NatsConnection, replicas = 1): Promise<WebhookSecretStore> {
  return secretStoreOver(await openKvBucket(nc, WEBHOOK_KEY_BUCKET, { history: 1 }, replicas));
}

/** A projected webhook's secret: opened from its sealed form, or as stored in the clear before sealing. */
export async function secretOfWebhook(
  store: WebhookSecretStore,
  row: { webhook_id: string; secret: string | null; sealed_secret: string | null },
): Promise<string | null> {
  if (row.sealed_secret) return store.open(row.webhook_id, row.sealed_secret);
  return row.secret;
}
