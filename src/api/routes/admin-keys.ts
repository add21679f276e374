import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Scope } from '../../domain/events.js';
import { findKey, type KeyRow, listKeys } from '../../../projections/read-models/keys.js';
import { requireJsonBody } from '../app.js';
import { checkAdmin, generateTenantKey, KEY_WARNING } from '../auth.js';
import type { ApiContext } from '../context.js';
import { HttpProblem } from '../problem.js';
import type { RateLimiter } from '../rate-limiter.js';
import { iso, keyHashSchema, nameSchema, scopeSchema, tenantIdSchema } from '../schemas.js';

/** Operator key endpoints (spec 4.11, first three rows; 3.2; 5). */

export const REVOCATION_SUBJECT = 'auth.key-revoked';

const createBody = z.object({
  tenantId: tenantIdSchema,
  scopes: z.array(scopeSchema, { error: 'must be a non-empty array' }).min(1, 'must be a non-empty array'),
  name: nameSchema,
});

const listQuery = z.object({
  tenant: z.string().optional(),
  include: z.enum(['revoked'], { error: "must be 'revoked' when given" }).optional(),
});

const keyRecord = (r: KeyRow) => ({
  keyHash: r.key_hash,
  tenantId: r.tenant_id,
  scopes: r.scopes,
  name: r.name,
  createdAt: iso(r.created_at)!,
  createdBy: r.created_by,
  ...(r.revoked_at ? { revoked: true, revokedAt: iso(r.revoked_at)! } : {}),
});

export const causedByAdmin = (req: FastifyRequest) => ({ correlationId: req.id, causedBy: { kind: 'admin' as const } });

export function adminKeyRoutes(ctx: ApiContext, limiter: RateLimiter) {
  return async (app: FastifyInstance) => {
    // spec 4.11: 5 requests per 60 s per IP, checked before the credential.
    app.addHook('onRequest', async (req) => {
      const d = await limiter.take(`admin-keys:${req.ip}`, 5, 60_000, 1, { failClosed: true });
      if (!d.allowed) {
        throw new HttpProblem(429, `Too many requests to the key endpoints from this address; retry in ${d.retryAfterSec} s.`, 'Too Many Requests', {}, {
          'Retry-After': String(d.retryAfterSec),
        });
      }
      checkAdmin(req, ctx.config.ADMIN_KEY);
    });

    app.post(
      '/v1/admin/keys',
      { preValidation: requireJsonBody, schema: { tags: ['admin'], summary: 'Create a tenant API key', body: createBody } },
      async (req, reply) => {
        const body = req.body as z.infer<typeof createBody>;
        const scopes = [...new Set(body.scopes)];
        const { key, keyHash } = generateTenantKey();
        const result = await ctx.tenants.execute(body.tenantId, { type: 'CreateKey', data: { keyHash, scopes, name: body.name } }, causedByAdmin(req));
        await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
        return reply.code(201).send({
          key,
          keyHash,
          tenantId: body.tenantId,
          scopes,
          name: body.name,
          createdAt: result.reply.createdAt,
          warning: KEY_WARNING,
        });
      },
    );

    app.get('/v1/admin/keys', { schema: { tags: ['admin'], summary: 'List tenant API keys', querystring: listQuery } }, async (req) => {
      const q = req.query as z.infer<typeof listQuery>;
      const rows = await listKeys(ctx.pool, { tenantId: q.tenant ?? null, includeRevoked: q.include === 'revoked' });
      return { data: rows.map(keyRecord) };
    });

    app.delete('/v1/admin/keys/:keyHash', { schema: { tags: ['admin'], summary: 'Revoke a tenant API key' } }, async (req) => {
      const { keyHash } = req.params as { keyHash: string };
      const notFound = new HttpProblem(404, `No API key with keyHash ${keyHash}.`, 'Not Found');
      if (!keyHashSchema.safeParse(keyHash).success) throw notFound;
      const row = await findKey(ctx.pool, keyHash);
      if (!row) throw notFound;
      const result = await ctx.tenants.execute(row.tenant_id, { type: 'RevokeKey', data: { keyHash } }, causedByAdmin(req));
      // Push the revocation to every API process at once; their caches' TTL is the fallback bound.
      ctx.nc.publish(REVOCATION_SUBJECT, keyHash);
      const last = result.appended.at(-1);
      if (last) await ctx.waiter.waitFor(last.seq);
      return { ...keyRecord({ ...row, revoked_at: new Date(result.reply.revokedAt) }), revoked: true, revokedAt: result.reply.revokedAt };
    });
  };
}
