import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Principal } from '../application/caller.js';
import { HttpProblem } from './problem.js';
import { keyHashOf } from '../domain/tenant-keys.js';
import { findKeyForAuth } from '../../projections/read-models/keys.js';

/** `Authorization: Bearer <token>` → token, or a 401 naming what is wrong (spec 5.6). */
export function bearerToken(req: FastifyRequest): string {
  const header = req.headers.authorization;
  if (!header) throw unauthorized('Missing Authorization header; send `Authorization: Bearer <API key>`.');
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Malformed Authorization header; expected `Bearer <API key>`.');
  return match[1]!;
}

export const unauthorized = (detail: string) => new HttpProblem(401, detail, 'Unauthorized');

/** Constant-time comparison of two secrets of any length (compares their digests). */
export function secretEquals(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export const adminNotConfigured = () =>
  new HttpProblem(
    503,
    'The admin API is not configured: set ADMIN_KEY to enable operator endpoints.',
    'Service Unavailable',
  );

export const analystNotConfigured = () =>
  new HttpProblem(
    503,
    'Analyst access is not configured: set ANALYST_KEY to let analysts sign in to the reports.',
    'Service Unavailable',
  );

/** Operator endpoints (spec 5.2): 503 when ADMIN_KEY is not configured, 401 unless it matches. */
export function checkAdmin(req: FastifyRequest, adminKey: string | undefined): void {
  if (!adminKey) throw adminNotConfigured();
  const token = bearerToken(req);
  if (!secretEquals(token, adminKey)) throw unauthorized('Invalid admin credential.');
}

export interface KeyResolver {
  resolve(token: string): Promise<Principal | null>;
  /** The same, by the key's SHA-256 (a console session holds the hash, never the key). */
  resolveHash(keyHash: string): Promise<Principal | null>;
  /** Forget a key at once (revocation pushed from any API process). */
  evict(keyHash: string): void;
}

/**
 * Tenant keys by SHA-256, cached for `ttlMs`. Revocation reaches every process through `evict` (pushed over
 * NATS); the TTL bounds how long a missed push can keep a revoked key alive (spec 5.8: 60 s).
 */
export function createKeyResolver(
  pool: pg.Pool,
  opts: { ttlMs?: number; unknownTtlMs?: number; now?: () => number } = {},
): KeyResolver {
  const ttlMs = opts.ttlMs ?? 30_000;
  const unknownTtlMs = opts.unknownTtlMs ?? 2_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { principal: Principal | null; until: number }>();
  async function resolveHash(keyHash: string): Promise<Principal | null> {
    const hit = cache.get(keyHash);
    if (hit && hit.until > now()) return hit.principal;
    const row = await findKeyForAuth(pool, keyHash);
    const principal = row && !row.revoked_at ? { tenantId: row.tenant_id, scopes: row.scopes, keyHash } : null;
    if (cache.size > 100_000) cache.clear();
    // An unknown key is remembered briefly only, so guessing costs no query per try while a key created a
    // moment ago in another process still works within seconds.
    cache.set(keyHash, { principal, until: now() + (row ? ttlMs : unknownTtlMs) });
    return principal;
  }
  return {
    resolve: (token) => resolveHash(keyHashOf(token)),
    resolveHash,
    evict(keyHash) {
      cache.set(keyHash, { principal: null, until: now() + ttlMs });
    },
  };
}
