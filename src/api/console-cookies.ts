import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ConsoleSessionKind } from '../application/console-sessions.js';
import { HttpProblem } from './problem.js';

/**
 * The console's session cookies and what a cookie-authenticated request must carry besides (* docs/security.md, Console sessions): the cookie holds an opaque session id, never a key; an unsafe request also
 * sends the session's CSRF token in X-CSRF-Token, and an Origin header, when present, must be PUBLIC_BASE_URL's.
 */

/** The cookies' names under http; under https each takes the `__Host-` prefix (sessionCookieName). */
export const SESSION_COOKIES: Record<ConsoleSessionKind, string> = {
  tenant: 'cl_tenant_session',
  operator: 'cl_operator_session',
  analyst: 'cl_analyst_session',
};
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The session cookie's name. Under https it is `__Host-` prefixed: a browser keeps such a cookie only when it is Secure,
 * has Path=/ and no Domain, so no sibling host can plant one and no page can set one for a narrower path beside it.
 * Browsers refuse the prefix without Secure, so plain http keeps the bare name.
 */
export const sessionCookieName = (kind: ConsoleSessionKind, o: CookieOptions): string =>
  `${o.secure ? '__Host-' : ''}${SESSION_COOKIES[kind]}`;

/** Every value of cookie `name` in a Cookie header, in the order sent (browsers send the most specific path first). */
export function readCookies(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    values.push(value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value);
  }
  return values;
}

/** The value of cookie `name` in a Cookie header (the first one, as browsers send the most specific first). */
export const readCookie = (header: string | undefined, name: string): string | undefined =>
  readCookies(header, name)[0];

/** The extension member that marks the refusal of a request with two session cookies of one kind. */
export const DUPLICATED_SESSION_COOKIE = { sessionCookie: 'duplicated' } as const;

/**
 * 401 for a request that carries two session cookies of one kind. This console sets one, for Path=/; a second was
 * set by another page on this host name (any port: cookies ignore ports), such as a replayed capture, and may be
 * another person's session — which one the browser sends first is the planting page's choice (a longer Path comes
 * first). Neither is used. Nothing is cleared either: clearing ours would leave the planted one to be used alone.
 */
export const duplicatedSessionCookie = (kind: ConsoleSessionKind, o: CookieOptions) =>
  new HttpProblem(
    401,
    `This request carries more than one ${sessionCookieName(kind, o)} cookie: one was set by another page on this host, not by the console, so neither is used. Sign in again; if this answer comes back, clear this site's cookies in the browser.`,
    'Unauthorized',
    DUPLICATED_SESSION_COOKIE,
  );

/** Whether an error is the refusal of duplicatedSessionCookie. */
export const isDuplicatedSessionCookie = (err: unknown): boolean =>
  err instanceof HttpProblem && err.status === 401 && err.extras['sessionCookie'] === 'duplicated';

/** The session id a request's cookie carries for this kind of session, if any; 401 when it carries two or more. */
export function sessionIdOf(req: FastifyRequest, kind: ConsoleSessionKind, o: CookieOptions): string | undefined {
  const values = readCookies(req.headers.cookie, sessionCookieName(kind, o));
  if (values.length > 1) throw duplicatedSessionCookie(kind, o);
  return values[0];
}

/** A request that a session cookie may authenticate: one without an Authorization header (a Bearer key wins). */
export const cookieMayAuthenticate = (req: FastifyRequest): boolean => req.headers.authorization === undefined;

export interface CookieOptions {
  /** PUBLIC_BASE_URL is https: the cookie is sent over TLS only. */
  secure: boolean;
}

/** Set-Cookie for a new session: HttpOnly, SameSite=Strict, Path=/, Secure under TLS; a browser-session cookie. */
export const sessionCookie = (kind: ConsoleSessionKind, id: string, o: CookieOptions): string =>
  `${sessionCookieName(kind, o)}=${id}; Path=/; HttpOnly; SameSite=Strict${o.secure ? '; Secure' : ''}`;

/** Set-Cookie that makes the browser forget the session cookie. */
export const clearedCookie = (kind: ConsoleSessionKind, o: CookieOptions): string =>
  `${sessionCookieName(kind, o)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${o.secure ? '; Secure' : ''}`;

export const cookieOptions = (publicBaseUrl: string): CookieOptions => ({
  secure: new URL(publicBaseUrl).protocol === 'https:',
});

/** 401 for a cookie whose session is over; the answer also clears the cookie. */
export const sessionEnded = (kind: ConsoleSessionKind, o: CookieOptions) =>
  new HttpProblem(
    401,
    'Your console session has ended; sign in again.',
    'Unauthorized',
    {},
    {
      'Set-Cookie': clearedCookie(kind, o),
    },
  );

export const CSRF_REFUSAL = 'Missing or wrong X-CSRF-Token header: the console sends the token it got at sign-in.';

const tokenEquals = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * A cookie-authenticated request with an unsafe method: 403 unless it carries the session's CSRF token and, when it
 * sends an Origin, comes from PUBLIC_BASE_URL's origin or the origin the request itself was sent to. SameSite=Strict already keeps the cookie off cross-site
 * requests; these two checks hold when it does not (an old browser, a sibling subdomain).
 */
export function checkUnsafeCookieRequest(req: FastifyRequest, csrfToken: string, publicOrigin: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  // The request's own origin as the browser addressed it (the Host it sent) counts too: a console opened by another
  // name than PUBLIC_BASE_URL's (a loopback address, an internal host name) is still same-origin with its API.
  if (origin !== undefined && origin !== publicOrigin && origin !== `${req.protocol}://${req.host}`)
    throw new HttpProblem(
      403,
      `Requests signed in by a console cookie must come from the console's own origin (${publicOrigin}), not ${origin}.`,
      'Forbidden',
    );
  const sent = req.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !tokenEquals(sent, csrfToken)) throw new HttpProblem(403, CSRF_REFUSAL, 'Forbidden');
}
