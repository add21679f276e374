import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { Scope } from '../domain/events.js';
import { type KeyResolver, bearerToken, secretEquals, unauthorized } from './auth.js';
import type { Caller, Principal } from '../application/caller.js';
import { tenantRateLimited } from '../domain/errors.js';
import { HttpProblem } from './problem.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * Tenant credentials (spec 5) and the limits that hang off them (spec 8.1):
 *   401 missing/malformed/unknown/revoked key → 403 scope not granted → 429 per-tenant rate limit.
 * `capture` implies `read`; `admin` grants nothing on tenant endpoints. Unauthenticated endpoints are limited
 * per IP instead.
 */

export const LEGACY_TENANT = 'default';
const WINDOW_MS = 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export interface TenantGuard {
  /** onRequest hook: authenticate, check the scope, take one tenant rate-limit token. */
  require(scope: Exclude<Scope, 'admin'> | 'any'): (req: FastifyRequest) => Promise<void>;
  /** The key of a request (401; failures charged to the client address, 429). What `require` does first. */
  authenticate(req: FastifyRequest): Promise<Principal>;
  /** The scope check (403), usage count and one tenant token (429) of `require`, for a principal already known (an MCP tool call). */
  authorize(principal: Principal, scope: Exclude<Scope, 'admin'> | 'any'): Promise<void>;
  /** onRequest hook for endpoints without credentials: the per-IP limit. */
  perIp(): (req: FastifyRequest) => Promise<void>;
  /** Take `tokens` more tenant tokens (a batch of N URLs consumes N; spec 8.1). */
  takeTenantTokens(tenantId: string, tokens: number): Promise<{ allowed: boolean; retryAfterSec: number }>;
}

/** The caller of an application service, from a request that passed `require` (DESIGN decision 15). */
export const callerOf = (req: FastifyRequest): Caller => ({
  principal: req.principal!,
  correlationId: req.id,
  log: req.log,
});

export const grants = (scopes: Scope[], needed: Exclude<Scope, 'admin'> | 'any'): boolean =>
  needed === 'any'
    ? scopes.includes('capture') || scopes.includes('read')
    : scopes.includes(needed) || (needed === 'read' && scopes.includes('capture'));

const tooManyFromAddress = (retryAfterSec: number) =>
  new HttpProblem(
    429,
    `Too many requests from this address; retry in ${retryAfterSec} s.`,
    'Too Many Requests',
    {},
    {
      'Retry-After': String(retryAfterSec),
    },
  );

export function createTenantGuard(
  config: Config,
  resolver: KeyResolver,
  limiter: RateLimiter,
  onAuthenticated: (p: Principal) => void,
): TenantGuard {
  async function authenticate(req: FastifyRequest): Promise<Principal> {
    const token = bearerToken(req);
    if (config.CAPTURE_API_KEY && secretEquals(token, config.CAPTURE_API_KEY)) {
      // spec 5.10: the legacy single key works only while per-tenant key management is off.
      if (config.ADMIN_KEY)
        throw unauthorized(
          'The legacy API key is disabled because per-tenant keys are enabled; use a key created by your operator.',
        );
      return { tenantId: LEGACY_TENANT, scopes: ['capture', 'read'], keyHash: null };
    }
    if (!token.startsWith('svc_live_')) throw unauthorized('Invalid API key.');
    const principal = await resolver.resolve(token);
    if (!principal) throw unauthorized('Invalid or revoked API key.');
    return principal;
  }

  /**
   * Failed authentications are charged to the client address before any key lookup, so an address that keeps
   * guessing is answered 429 without touching Postgres (the per-IP limit otherwise applies only to public routes).
   */
  async function authenticateCharged(req: FastifyRequest): Promise<Principal> {
    const key = `authfail:${req.ip}`;
    const before = await limiter.take(key, config.RATE_LIMIT_IP_PER_MIN, WINDOW_MS, 0);
    if (!before.allowed) throw tooManyFromAddress(before.retryAfterSec);
    try {
      return await authenticate(req);
    } catch (err) {
      if (err instanceof HttpProblem && err.status === 401)
        await limiter.take(key, config.RATE_LIMIT_IP_PER_MIN, WINDOW_MS);
      throw err;
    }
  }

  async function authorize(principal: Principal, scope: Exclude<Scope, 'admin'> | 'any'): Promise<void> {
    if (!grants(principal.scopes, scope)) {
      throw new HttpProblem(
        403,
        `This API key lacks the '${scope === 'any' ? 'read' : scope}' scope needed here (it has: ${principal.scopes.join(', ')}).`,
        'Forbidden',
      );
    }
    onAuthenticated(principal);
    const d = await limiter.take(`tenant:${principal.tenantId}`, config.RATE_LIMIT_TENANT_PER_MIN, WINDOW_MS);
    if (!d.allowed) throw tenantRateLimited(d.retryAfterSec);
  }

  return {
    require(scope) {
      return async (req) => {
        const principal = await authenticateCharged(req);
        await authorize(principal, scope);
        req.principal = principal;
      };
    },
    authenticate: authenticateCharged,
    authorize,
    perIp() {
      return async (req) => {
        const d = await limiter.take(`ip:${req.ip}`, config.RATE_LIMIT_IP_PER_MIN, WINDOW_MS);
        if (!d.allowed) throw tooManyFromAddress(d.retryAfterSec);
      };
    },
    takeTenantTokens: (tenantId, tokens) =>
      limiter.take(`tenant:${tenantId}`, config.RATE_LIMIT_TENANT_PER_MIN, WINDOW_MS, tokens),
  };
}
