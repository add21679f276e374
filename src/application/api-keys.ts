import type { ServiceContext } from './service-context.js';
import { causedByAdmin } from './caller.js';
import { refusal } from '../domain/errors.js';
import { iso } from '../domain/clock.js';
import type { Scope } from '../domain/events.js';
import { generateTenantKey, KEY_HASH_PATTERN, KEY_WARNING, TENANT_ID_PATTERN } from '../domain/tenant-keys.js';
import { findKey, type KeyRow, listKeys } from '../../projections/read-models/keys.js';

/**
 * Tenant API keys as operators manage them (spec 2.8, 3.2, 4.11): create, list, revoke. The admin key routes
 * call these with the request id that becomes the events' correlation id; `keys create` in the CLI makes a key
 * the same way without HTTP.
 */

export type ApiKeys = ReturnType<typeof createApiKeys>;

/** spec 2.8, as listed: never the raw key. */
const keyRecord = (r: KeyRow) => ({
  keyHash: r.key_hash,
  tenantId: r.tenant_id,
  scopes: r.scopes,
  name: r.name,
  createdAt: iso(r.created_at)!,
  createdBy: r.created_by,
  ...(r.revoked_at ? { revoked: true as const, revokedAt: iso(r.revoked_at)! } : {}),
});

export function createApiKeys(ctx: ServiceContext) {
  return {
    /** The new key, its raw value shown only in this answer; the actor's 409 for a hash that exists. */
    async create(correlationId: string, body: { tenantId: string; scopes: Scope[]; name: string }) {
      const scopes = [...new Set(body.scopes)];
      const { key, keyHash } = generateTenantKey();
      const result = await ctx.tenants.execute(
        body.tenantId,
        { type: 'CreateKey', data: { keyHash, scopes, name: body.name } },
        causedByAdmin(correlationId),
      );
      await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
      return {
        key,
        keyHash,
        tenantId: body.tenantId,
        scopes,
        name: body.name,
        createdAt: result.reply.createdAt,
        warning: KEY_WARNING,
      };
    },

    /** All tenants' keys, or one tenant's (a tenant id no tenant can have: none); revoked ones only when asked for. */
    async list(filter: { tenantId?: string; includeRevoked: boolean }) {
      if (filter.tenantId !== undefined && !TENANT_ID_PATTERN.test(filter.tenantId)) return { data: [] };
      const rows = await listKeys(ctx.pool, {
        tenantId: filter.tenantId ?? null,
        includeRevoked: filter.includeRevoked,
      });
      return { data: rows.map(keyRecord) };
    },

    /** The revocation record, the same on a repeat (spec 3.2); 404 for a hash that names no key. */
    async revoke(correlationId: string, keyHash: string) {
      const unknownKey = () => refusal(404, `No API key with keyHash ${keyHash}.`);
      const row = KEY_HASH_PATTERN.test(keyHash) ? await findKey(ctx.pool, keyHash) : null;
      if (!row) throw unknownKey();
      const result = await ctx.tenants.execute(
        row.tenant_id,
        { type: 'RevokeKey', data: { keyHash } },
        causedByAdmin(correlationId),
      );
      // Push the revocation to every API process at once; their caches' TTL is the fallback bound.
      ctx.announceRevocation(keyHash);
      const last = result.appended.at(-1);
      if (last) await ctx.waiter.waitFor(last.seq);
      return {
        ...keyRecord({ ...row, revoked_at: new Date(result.reply.revokedAt) }),
        revoked: true as const,
        revokedAt: result.reply.revokedAt,
      };
    },
  };
}
