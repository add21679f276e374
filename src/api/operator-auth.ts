import type { FastifyRequest } from 'fastify';
import type { LiveSession } from '../application/console-sessions.js';
import { secretDigest } from '../application/console-sessions.js';
import type { Config } from '../config/config.js';
import { adminNotConfigured, checkAdmin, secretEquals, unauthorized } from './auth.js';
import {
  checkUnsafeCookieRequest,
  cookieMayAuthenticate,
  cookieOptions,
  sessionEnded,
  sessionIdOf,
} from './console-cookies.js';
import { HttpProblem } from './problem.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ConsoleSessionOptions, OpenedSession } from './tenant-auth.js';

/**
 * The operator endpoints' credential and limits (spec 4.11, 5.2). The key endpoints take spec 4.11's 5 requests per
 * 60 s per address before the credential; every other /v1/admin/* route charges the same limit to failed admin
 * credentials only (issue 28), so the admin key cannot be guessed at the general per-address rate anywhere. Both
 * fail closed: a guess must not get through while NATS is unreachable (docs/security.md).
 * A request without an Authorization header may instead carry the operator console's session cookie (never the
 * tenant one): it holds a digest of the admin key it was opened with, so changing ADMIN_KEY ends it.
 */
export interface OperatorGuard {
  /** onRequest of the key endpoints: 5 requests per 60 s per address, then the admin credential. */
  keyEndpoints(): (req: FastifyRequest) => Promise<void>;
  /** onRequest of the other operator routes: the admin credential, failed ones charged at the operator limit. */
  credential(): (req: FastifyRequest) => Promise<void>;
  /** Console sign-in with the admin key: failed ones charged like failed credentials (429 after 5); 503 when unset. */
  openSession(req: FastifyRequest, adminKey: string): Promise<{ id: string } & OpenedSession>;
  /** The request's operator session cookie: null without one; 401 (clearing it) when ended or ADMIN_KEY changed. */
  consoleSession(req: FastifyRequest): Promise<{ session: LiveSession; id: string } | null>;
}

/** spec 4.11 and 8.1: "Operator key endpoints: 5 requests per 60 seconds per IP". */
export const OPERATOR_LIMIT = 5;
const OPERATOR_WINDOW_MS = 60_000;

const tooMany = (what: string, retryAfterSec: number) =>
  new HttpProblem(
    429,
    `Too many ${what} from this address; retry in ${retryAfterSec} s.`,
    'Too Many Requests',
    {},
    { 'Retry-After': String(retryAfterSec) },
  );

export function createOperatorGuard(
  config: Config,
  limiter: RateLimiter,
  consoleAccess?: ConsoleSessionOptions,
): OperatorGuard {
  const take = (key: string, tokens: number) =>
    limiter.take(key, OPERATOR_LIMIT, OPERATOR_WINDOW_MS, tokens, { failClosed: true });
  const cookies = consoleAccess ? cookieOptions(consoleAccess.publicBaseUrl) : { secure: false };
  const publicOrigin = consoleAccess ? new URL(consoleAccess.publicBaseUrl).origin : '';

  async function consoleSession(req: FastifyRequest) {
    const id = sessionIdOf(req, 'operator');
    if (!consoleAccess || id === undefined) return null;
    const adminKey = config.ADMIN_KEY;
    if (!adminKey) throw adminNotConfigured();
    const session = await consoleAccess.sessions.find('operator', id);
    if (!session) throw sessionEnded('operator', cookies);
    const r = session.record;
    if (!('adminKeyDigest' in r) || !secretEquals(r.adminKeyDigest, secretDigest(adminKey))) {
      await consoleAccess.sessions.end('operator', id);
      throw sessionEnded('operator', cookies);
    }
    return { session, id };
  }

  /** The admin credential of a request: the Bearer admin key, or (without an Authorization header) the operator cookie. */
  async function checkOperator(req: FastifyRequest): Promise<void> {
    if (cookieMayAuthenticate(req)) {
      const found = await consoleSession(req);
      if (found) return checkUnsafeCookieRequest(req, found.session.csrfToken, publicOrigin);
    }
    checkAdmin(req, config.ADMIN_KEY);
  }

  /** Failed admin credentials charged to the address; an address out of guesses is not told whether this one was right. */
  async function chargedFailures<T>(req: FastifyRequest, check: () => Promise<T>): Promise<T> {
    const key = `admin-fail:${req.ip}`;
    const before = await take(key, 0);
    if (!before.allowed) throw tooMany('failed admin credentials', before.retryAfterSec);
    try {
      return await check();
    } catch (err) {
      if (err instanceof HttpProblem && err.status === 401) await take(key, 1);
      throw err;
    }
  }

  return {
    keyEndpoints() {
      return async (req) => {
        const d = await take(`admin-keys:${req.ip}`, 1);
        if (!d.allowed) throw tooMany('requests to the key endpoints', d.retryAfterSec);
        await checkOperator(req);
      };
    },
    credential() {
      return (req) => chargedFailures(req, () => checkOperator(req));
    },
    async openSession(req, adminKey) {
      if (!consoleAccess) throw new Error('console sessions are not configured in this process');
      const configured = config.ADMIN_KEY;
      if (!configured) throw adminNotConfigured();
      return chargedFailures(req, async () => {
        if (!secretEquals(adminKey, configured)) throw unauthorized('Invalid admin credential.');
        return consoleAccess.sessions.open({ kind: 'operator', adminKeyDigest: secretDigest(configured) });
      });
    },
    consoleSession,
  };
}
