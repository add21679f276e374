import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { Scope } from '../domain/events.js';
import { type KeyResolver, bearerToken, secretEquals, unauthorized } from './auth.js';
import type { Caller, Principal } from '../application/caller.js';
import { principalOfOidcSession } from '../application/console-oidc.js';
import { type ConsoleSessions, type LiveSession, secretDigest } from '../application/console-sessions.js';
import {
  checkUnsafeCookieRequest,
  cookieMayAuthenticate,
  cookieOptions,
  sessionEnded,
  sessionIdOf,
} from './console-cookies.js';
import { tenantRateLimited } from '../domain/errors.js';
import { HttpProblem } from './problem.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * Tenant credentials (spec 5) and the limits that hang off them (spec 8.1):
 *   401 missing/malformed/unknown/revoked key → 403 scope not granted → 429 per-tenant rate limit.
 * `capture` implies `read`; `admin` grants nothing on tenant endpoints. Unauthenticated endpoints are limited
 * per IP instead. A request without an Authorization header may instead carry a console session cookie
 * (src/api/console-cookies.ts): it stands for the same key, re-resolved on every request, so everything after
 * authentication is the same; a Bearer header always wins.
 */

export const LEGACY_TENANT = 'default';
const LEGACY_PRINCIPAL: Principal = { tenantId: LEGACY_TENANT, scopes: ['capture', 'read'], keyHash: null };

export interface OpenedSession {
  csrfToken: string;
  expiresAt: Date;
}

/** Console sessions, when this API serves the console (src/features/caller-access.ts). */
export interface ConsoleSessionOptions {
  sessions: ConsoleSessions;
  publicBaseUrl: string;
}
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
  /** The scope check (403), usage count and one tenant token (429) of `require`, for a principal already known. */
  authorize(principal: Principal, scope: Exclude<Scope, 'admin'> | 'any'): Promise<void>;
  /** The scope check (403) and usage count of `authorize`, without a token: for a call already charged (an MCP message). */
  permit(principal: Principal, scope: Exclude<Scope, 'admin'> | 'any'): void;
  /**
   * Console sign-in with a tenant key: the same key check as a Bearer key, failures charged alike;
   * 403 for a key that grants nothing here (only 'admin'). Opens a session for it.
   */
  openSession(req: FastifyRequest, apiKey: string): Promise<{ principal: Principal; id: string } & OpenedSession>;
  /** The request's tenant session cookie: null without one; 401 (clearing it) when it has ended or its key is revoked. */
  consoleSession(req: FastifyRequest): Promise<{ principal: Principal; session: LiveSession; id: string } | null>;
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

/** What the tenant guard's steps read: the configuration, the key resolver, the limiter and the console's sessions. */
interface GuardContext {
  config: Config;
  resolver: KeyResolver;
  limiter: RateLimiter;
  onAuthenticated: (p: Principal) => void;
  consoleAccess: ConsoleSessionOptions | undefined;
  cookies: ReturnType<typeof cookieOptions> | { secure: false };
  publicOrigin: string;
}

export function createTenantGuard(
  config: Config,
  resolver: KeyResolver,
  limiter: RateLimiter,
  onAuthenticated: (p: Principal) => void,
  consoleAccess?: ConsoleSessionOptions,
): TenantGuard {
  const g: GuardContext = {
    config,
    resolver,
    limiter,
    onAuthenticated,
    consoleAccess,
    cookies: consoleAccess ? cookieOptions(consoleAccess.publicBaseUrl) : { secure: false },
    publicOrigin: consoleAccess ? new URL(consoleAccess.publicBaseUrl).origin : '',
  };
  const authenticateCharged = (req: FastifyRequest) => charged(g, req, () => authenticate(g, req));
  return {
    require: (scope) => async (req) => {
      const principal = await authenticateCharged(req);
      await authorize(g, principal, scope);
      req.principal = principal;
    },
    authenticate: authenticateCharged,
    authorize: (principal, scope) => authorize(g, principal, scope),
    permit: (principal, scope) => permit(g, principal, scope),
    openSession: (req, apiKey) => openSession(g, req, apiKey),
    consoleSession: (req) => consoleSession(g, req),
    perIp: () => (req) => limitPerIp(g, req),
    takeTenantTokens: (tenantId, tokens) =>
      limiter.take(`tenant:${tenantId}`, config.RATE_LIMIT_TENANT_PER_MIN, WINDOW_MS, tokens),
  };
}

async function principalOfKey({ config, resolver }: GuardContext, token: string): Promise<Principal> {
  if (config.CAPTURE_API_KEY && secretEquals(token, config.CAPTURE_API_KEY)) {
    // spec 5.10: the legacy single key works only while per-tenant key management is off.
    if (config.ADMIN_KEY)
      throw unauthorized(
        'The legacy API key is disabled because per-tenant keys are enabled; use a key created by your operator.',
      );
    return LEGACY_PRINCIPAL;
  }
  if (!token.startsWith('svc_live_')) throw unauthorized('Invalid API key.');
  const principal = await resolver.resolve(token);
  if (!principal) throw unauthorized('Invalid or revoked API key.');
  return principal;
}

/**
 * Who a session stands for now: its key as it is today, so a revoked key (or a disabled legacy key) ends it; an
 * OpenID Connect session's claim mapped again under today's configuration, so a removed mapping ends it.
 */
async function principalOfSession({ config, resolver }: GuardContext, session: LiveSession): Promise<Principal | null> {
  const r = session.record;
  if ('keyHash' in r) return resolver.resolveHash(r.keyHash);
  if ('oidc' in r) return principalOfOidcSession(config.CONSOLE_OIDC_PROVIDERS, r);
  if ('legacyKeyDigest' in r) {
    const legacy = config.CAPTURE_API_KEY;
    const stillValid =
      legacy !== undefined && !config.ADMIN_KEY && secretEquals(secretDigest(legacy), r.legacyKeyDigest);
    return stillValid ? LEGACY_PRINCIPAL : null;
  }
  return null;
}

async function consoleSession(g: GuardContext, req: FastifyRequest) {
  const { consoleAccess, cookies } = g;
  if (!consoleAccess) return null;
  const id = sessionIdOf(req, 'tenant', cookies);
  if (id === undefined) return null;
  const session = await consoleAccess.sessions.find('tenant', id);
  if (!session) throw sessionEnded('tenant', cookies);
  const principal = await principalOfSession(g, session);
  if (!principal) {
    await consoleAccess.sessions.end('tenant', id);
    throw sessionEnded('tenant', cookies);
  }
  return { principal, session, id };
}

async function authenticate(g: GuardContext, req: FastifyRequest): Promise<Principal> {
  if (cookieMayAuthenticate(req)) {
    const found = await consoleSession(g, req);
    if (found) {
      checkUnsafeCookieRequest(req, found.session.csrfToken, g.publicOrigin);
      return found.principal;
    }
  }
  return principalOfKey(g, bearerToken(req));
}

/**
 * Failed authentications are charged to the client address before any key lookup, so an address that keeps
 * guessing is answered 429 without touching Postgres (the per-IP limit otherwise applies only to public routes).
 */
async function charged(
  { config, limiter }: GuardContext,
  req: FastifyRequest,
  check: () => Promise<Principal>,
): Promise<Principal> {
  const key = `authfail:${req.ip}`;
  const before = await limiter.take(key, config.RATE_LIMIT_IP_PER_MIN, WINDOW_MS, 0);
  if (!before.allowed) throw tooManyFromAddress(before.retryAfterSec);
  try {
    return await check();
  } catch (err) {
    if (err instanceof HttpProblem && err.status === 401)
      await limiter.take(key, config.RATE_LIMIT_IP_PER_MIN, WINDOW_MS);
    throw err;
  }
}

function permit(g: GuardContext, principal: Principal, scope: Exclude<Scope, 'admin'> | 'any'): void {
  if (!grants(principal.scopes, scope)) {
    throw new HttpProblem(
      403,
      `This API key lacks the '${scope === 'any' ? 'read' : scope}' scope needed here (it has: ${principal.scopes.join(', ')}).`,
      'Forbidden',
    );
  }
  g.onAuthenticated(principal);
}

async function authorize(g: GuardContext, principal: Principal, scope: Exclude<Scope, 'admin'> | 'any'): Promise<void> {
  permit(g, principal, scope);
  const d = await g.limiter.take(`tenant:${principal.tenantId}`, g.config.RATE_LIMIT_TENANT_PER_MIN, WINDOW_MS);
  if (!d.allowed) throw tenantRateLimited(d.retryAfterSec);
}

async function openSession(g: GuardContext, req: FastifyRequest, apiKey: string) {
  if (!g.consoleAccess) throw new Error('console sessions are not configured in this process');
  const principal = await charged(g, req, () => principalOfKey(g, apiKey));
  if (!grants(principal.scopes, 'any'))
    throw new HttpProblem(
      403,
      "This API key has only the 'admin' scope, which grants nothing in the tenant console; sign in with a key that has 'read' or 'capture'.",
      'Forbidden',
    );
  const opened = await g.consoleAccess.sessions.open(
    principal.keyHash
      ? { kind: 'tenant', keyHash: principal.keyHash }
      : { kind: 'tenant', legacyKeyDigest: secretDigest(apiKey) },
  );
  return { principal, ...opened };
}

/**
 * Who a request on a route without credentials authenticates as, if anyone: a tenant (its key), the operator
 * (the admin or analyst key, limited by the operator guard), or null — no key, or one that is not valid (the
 * request then counts as unauthenticated; nothing is charged as a failure where no key is required).
 */
async function authenticatedBy(g: GuardContext, req: FastifyRequest): Promise<Principal | 'operator' | null> {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !/^Bearer\s+\S/i.test(header)) return null;
  const token = header.replace(/^Bearer\s+/i, '').trim();
  for (const secret of [g.config.ADMIN_KEY, g.config.ANALYST_KEY])
    if (secret && secretEquals(token, secret)) return 'operator';
  return principalOfKey(g, token).catch(() => null);
}

// spec 8.1: per IP for unauthenticated requests, per tenant for authenticated ones. A request with a
// valid key counts against its tenant (or, the admin or analyst key, against the operator limits only).
async function limitPerIp(g: GuardContext, req: FastifyRequest): Promise<void> {
  const { config, limiter } = g;
  const authenticated = await authenticatedBy(g, req);
  if (authenticated === 'operator') return;
  if (authenticated) {
    const t = await limiter.take(`tenant:${authenticated.tenantId}`, config.RATE_LIMIT_TENANT_PER_MIN, WINDOW_MS);
    if (!t.allowed) throw tenantRateLimited(t.retryAfterSec);
    return;
  }
  const d = await limiter.take(`ip:${req.ip}`, config.RATE_LIMIT_IP_PER_MIN, WINDOW_MS);
  if (!d.allowed) throw tooManyFromAddress(d.retryAfterSec);
}
