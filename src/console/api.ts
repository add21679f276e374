import type { Problem, SessionKind } from './api-answers.js';
import { sessionState } from './session-state.js';

/**
 * Every request the console makes goes through `call`: same-origin, the session cookie and never an Authorization
 * header; unsafe methods carry the session's CSRF token. An answer outside 2xx becomes an ApiError that keeps the
 * spec's error body (spec 7.1); errors.ts turns it into a sentence.
 */
/** The error body as the console meets it: any field may be missing (a proxy in front of the service may answer). */
export type ProblemBody = Partial<Problem>;

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly problem: ProblemBody | null,
    /** Retry-After in seconds, when the answer gave a number of seconds. */
    readonly retryAfter: number | null,
    readonly path: string,
  ) {
    super(problem?.detail ?? `HTTP ${status} from ${path}`);
  }
}

export interface Answer<T> {
  status: number;
  body: T;
  headers: Headers;
}

const SAFE = new Set(['GET', 'HEAD']);

/**
 * Told when a request made with a session answers 401: the sessions that could have answered it have ended (signed
 * out, expired, key revoked or changed), or (`duplicated`) the browser sent two session cookies of one kind, one of
 * them set by another page on this host, and the service used neither.
 */
let sessionEnded: ((kinds: SessionKind[], duplicated: boolean) => void) | null = null;
export function onSessionEnded(handler: (kinds: SessionKind[], duplicated: boolean) => void): void {
  sessionEnded = handler;
}

/** An answer refusing a request that carried two session cookies of one kind. */
export const isDuplicatedCookie = (err: unknown): boolean =>
  err instanceof ApiError && err.status === 401 && err.problem?.sessionCookie === 'duplicated';
const SIGN_IN_PATH = '/console/session';
const REPORTS_PATH = '/v1/admin/reports/';

/**
 * Which sessions a request's cookies can stand for: the reports take the operator's or the analyst's (the server uses
 * whichever is live), the rest of /v1/admin/… the operator's only, everything else the tenant's; a sign-out, its kind.
 */
function sessionsFor(path: string): SessionKind[] {
  const signOut = /[?&]kind=(tenant|operator|analyst)\b/.exec(path);
  if (path.startsWith(SIGN_IN_PATH) && signOut) return [signOut[1] as SessionKind];
  if (path.startsWith(REPORTS_PATH)) return ['operator', 'analyst'];
  if (path.startsWith('/v1/admin/')) return ['operator'];
  return ['tenant'];
}

/** The CSRF token to send: that of the first of those sessions the browser holds. */
function csrfTokenFor(path: string): string | undefined {
  const s = sessionState();
  for (const kind of sessionsFor(path)) {
    const token = s[kind]?.csrfToken;
    if (token) return token;
  }
  return undefined;
}

export async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (!SAFE.has(method)) {
    const token = csrfTokenFor(path);
    if (token) headers['X-CSRF-Token'] = token;
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, null, null, path);
  }
  const text = res.status === 204 ? '' : await res.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (!res.ok) {
    const ra = res.headers.get('Retry-After');
    const seconds = ra && /^\d+$/.test(ra.trim()) ? Number(ra) : null;
    const problem = parsed && typeof parsed === 'object' ? (parsed as ProblemBody) : null;
    const error = new ApiError(res.status, problem, seconds, path);
    if (res.status === 401 && !path.startsWith(SIGN_IN_PATH))
      sessionEnded?.(sessionsFor(path), isDuplicatedCookie(error));
    throw error;
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export const get = <T>(path: string, signal?: AbortSignal) =>
  call<T>('GET', path, undefined, signal).then((a) => a.body);

/** A query string from the given values, leaving out empty ones. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
