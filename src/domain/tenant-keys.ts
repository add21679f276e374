import { createHash, randomBytes } from 'node:crypto';

/**
 * Tenant API keys (spec 2.8, 5.1): the raw key is shown once and never stored; it is identified by its SHA-256.
 * The admin API, the CLI and the key resolver share these, so a key is made and looked up one way.
 */

/** The tenant id rule (spec 2.8): the admin API's schemas and the services that look tenants up. */
export const TENANT_ID_PATTERN = /^[a-z0-9_-]{1,64}$/;

/** A key's identity: SHA-256 hex of the raw key. */
export const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;

export const keyHashOf = (rawKey: string): string => createHash('sha256').update(rawKey).digest('hex');

/** A new tenant key (spec 5.1: `svc_live_` prefix) and the SHA-256 it is stored under. */
export function generateTenantKey(): { key: string; keyHash: string } {
  const key = `svc_live_${randomBytes(32).toString('hex')}`;
  return { key, keyHash: keyHashOf(key) };
}

/** Shown with every new key (spec 4.11). */
export const KEY_WARNING = 'Store this key now. It cannot be retrieved after this response.';
