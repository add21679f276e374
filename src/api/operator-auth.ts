import type { FastifyRequest } from 'fastify';
import type { LiveSession, SessionBinding, SessionRecord } from '../application/console-sessions.js';
import { secretDigest } from '../application/console-sessions.js';
import type { Config } from '../config/config.js';
import {
  adminNotConfigured,
  analystNotConfigured,
  bearerToken,
  checkAdmin,
  secretEquals,
  unauthorized,
} from './auth.js';
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
 * The operator endpoints' credential and limits (spec 4.11, 5.2). Failed admin credentials are charged to one count
 * per address, 5 per 60 s, wherever they are sent (every /v1/admin/* route, the key endpoints included, and the
 * console's admin sign-in), checked before the credential is compared: the admin key cannot be guessed more than 5
 * times a minute from an address, whichever routes the guesses are spread over. The key endpoints also take spec
 * 4.11's 5 requests per 60 s per address, right or wrong, before the credential. Both fail closed: a guess must not
 * get through while NATS is unreachable (docs/security.md).
 * A request without an Authorization header may instead carry the operator console's session cookie (never the
 * tenant one): it holds a digest of the admin key it was opened with, so changing ADMIN_KEY ends it.
 * The report routes alone also take the analysts' credential (ANALYST_KEY, or an analyst session bound to it the same
 * way): least privilege for people who read the reports (docs/security.md, Analyst access).
 */
export interface OperatorGuard {
  /** onRequest of the key endpoints: 5 requests per 60 s per address, then the admin credential (failures charged). */
  keyEndpoints(): (req: FastifyRequest) => Promise<void>;
  /** onRequest of the other operator routes: the admin credential, failed ones charged at the operator limit. */
  credential(): (req: FastifyRequest) => Promise<void>;
  /** onRequest of the report routes: the admin or the analyst credential, failed ones charged like failed admin ones. */
  reportReader(): (req: FastifyRequest) => Promise<void>;
  /**
   * Console sign-in with the admin key (or, for `analyst`, ANALYST_KEY): failed ones charged like failed credentials
   * (429 after 5); 503 when that key is unset.
   */
  openSession(req: FastifyRequest, key: string, kind?: KeyedKind): Promise<{ id: string } & OpenedSession>;
  /** The request's operator (or analyst) session cookie: null without one; 401 (clearing it) when ended or its key changed. */
  consoleSession(req: FastifyRequest, kind?: KeyedKind): Promise<{ session: LiveSession; id: string } | null>;
}

/** The console sessions opened with a configured key rather than a tenant's. */
export type KeyedKind = 'operator' | 'analyst';

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

/** The key behind each keyed session, how its session records it, and the answers when it is unset or wrong. */
const KEYED: Record<
  KeyedKind,
  {
    secret: (config: Config) => string | undefined;
    digestOf: (r: SessionRecord) => string | undefined;
    binding: (digest: string) => SessionBinding;
    notConfigured: () => HttpProblem;
    invalid: string;
  }
> = {
  operator: {
    secret: (c) => c.ADMIN_KEY,
    digestOf: (r) => ('adminKeyDigest' in r ? r.adminKeyDigest : undefined),
    binding: (adminKeyDigest) => ({ kind: 'operator', adminKeyDigest }),
    notConfigured: adminNotConfigured,
    invalid: 'Invalid admin credential.',
  },
  analyst: {
    secret: (c) => c.ANALYST_KEY,
    digestOf: (r) => ('analystKeyDigest' in r ? r.analystKeyDigest : undefined),
    binding: (analystKeyDigest) => ({ kind: 'analyst', analystKeyDigest }),
    notConfigured: analystNotConfigured,
    invalid: 'Invalid analyst credential.',
  },
};

/** What the operator guard's steps read: the configuration, the limiter and the console's sessions. */
interface OperatorGuardContext {
  config: Config;
  limiter: RateLimiter;
  consoleAccess: ConsoleSessionOptions | undefined;
  cookies: ReturnType<typeof cookieOptions> | { secure: false };
  publicOrigin: string;
}

export function createOperatorGuard(
  config: Config,
  limiter: RateLimiter,
  consoleAccess?: ConsoleSessionOptions,
): OperatorGuard {
  const g: OperatorGuardContext = {
    config,
    limiter,
    consoleAccess,
    cookies: consoleAccess ? cookieOptions(consoleAccess.publicBaseUrl) : { secure: false },
    publicOrigin: consoleAccess ? new URL(consoleAccess.publicBaseUrl).origin : '',
  };
  return {
    keyEndpoints: () => async (req) => {
      const d = await take(g, `admin-keys:${req.ip}`, 1);
      if (!d.allowed) throw tooMany('requests to the key endpoints', d.retryAfterSec);
      // A failed credential here counts toward the one failed-admin limit of every operator route.
      await chargedFailures(g, req, () => checkOperator(g, req));
    },
    credential: () => (req) => chargedFailures(g, req, () => checkOperator(g, req)),
    reportReader: () => (req) => chargedFailures(g, req, () => checkReportReader(g, req)),
    openSession: (req, key, kind = 'operator') => openSession(g, req, key, kind),
    consoleSession: (req, kind) => consoleSession(g, req, kind),
  };
}

const take = ({ limiter }: OperatorGuardContext, key: string, tokens: number) =>
  limiter.take(key, OPERATOR_LIMIT, OPERATOR_WINDOW_MS, tokens, { failClosed: true });

async function consoleSession(g: OperatorGuardContext, req: FastifyRequest, kind: KeyedKind = 'operator') {
  const { config, consoleAccess, cookies } = g;
  if (!consoleAccess) return null;
  const id = sessionIdOf(req, kind, cookies);
  if (id === undefined) return null;
  const keyed = KEYED[kind];
  const secret = keyed.secret(config);
  if (!secret) throw keyed.notConfigured();
  const session = await consoleAccess.sessions.find(kind, id);
  if (!session) throw sessionEnded(kind, cookies);
  const digest = keyed.digestOf(session.record);
  if (digest === undefined || !secretEquals(digest, secretDigest(secret))) {
    await consoleAccess.sessions.end(kind, id);
    throw sessionEnded(kind, cookies);
  }
  return { session, id };
}

/** The admin credential of a request: the Bearer admin key, or (without an Authorization header) the operator cookie. */
async function checkOperator(g: OperatorGuardContext, req: FastifyRequest): Promise<void> {
  if (cookieMayAuthenticate(req)) {
    const found = await consoleSession(g, req);
    if (found) return checkUnsafeCookieRequest(req, found.session.csrfToken, g.publicOrigin);
  }
  checkAdmin(req, g.config.ADMIN_KEY);
}

/**
 * The first live one of the operator and analyst sessions the request's cookies name: a browser signed in as both
 * reads the reports while either holds. Null without such cookies; the first refusal when none is live.
 */
async function reportSession(g: OperatorGuardContext, req: FastifyRequest) {
  // Without ANALYST_KEY an analyst cookie is not looked at: the reports are as they were before analysts.
  const kinds: KeyedKind[] = g.config.ANALYST_KEY ? ['operator', 'analyst'] : ['operator'];
  let refusal: unknown = null;
  for (const kind of kinds) {
    try {
      const found = await consoleSession(g, req, kind);
      if (found) return found;
    } catch (err) {
      if (!(err instanceof HttpProblem && (err.status === 401 || err.status === 503))) throw err;
      refusal ??= err;
    }
  }
  if (refusal) throw refusal;
  return null;
}

/** The report routes' credential: the admin key or ANALYST_KEY by Bearer, or an operator or analyst session. */
async function checkReportReader(g: OperatorGuardContext, req: FastifyRequest): Promise<void> {
  const { config } = g;
  if (cookieMayAuthenticate(req)) {
    const found = await reportSession(g, req);
    if (found) return checkUnsafeCookieRequest(req, found.session.csrfToken, g.publicOrigin);
  }
  const analystKey = config.ANALYST_KEY;
  if (!analystKey) return checkAdmin(req, config.ADMIN_KEY);
  const token = bearerToken(req);
  const adminKey = config.ADMIN_KEY;
  // Both compared, so the time taken does not tell which key a guess was near.
  const analyst = secretEquals(token, analystKey);
  const admin = adminKey !== undefined && secretEquals(token, adminKey);
  if (!analyst && !admin) throw unauthorized('Invalid admin or analyst credential.');
}

/** Failed admin credentials charged to the address; an address out of guesses is not told whether this one was right. */
async function chargedFailures<T>(g: OperatorGuardContext, req: FastifyRequest, check: () => Promise<T>): Promise<T> {
  const key = `admin-fail:${req.ip}`;
  const before = await take(g, key, 0);
  if (!before.allowed) throw tooMany('failed admin credentials', before.retryAfterSec);
  try {
    return await check();
  } catch (err) {
    if (err instanceof HttpProblem && err.status === 401) await take(g, key, 1);
    throw err;
  }
}

async function openSession(g: OperatorGuardContext, req: FastifyRequest, key: string, kind: KeyedKind) {
  const { config, consoleAccess } = g;
  if (!consoleAccess) throw new Error('console sessions are not configured in this process');
  const keyed = KEYED[kind];
  const configured = keyed.secret(config);
  if (!configured) throw keyed.notConfigured();
  return chargedFailures(g, req, async () => {
    if (!secretEquals(key, configured)) throw unauthorized(keyed.invalid);
    return consoleAccess.sessions.open(keyed.binding(secretDigest(configured)));
  });
}
