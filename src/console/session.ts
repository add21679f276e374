import { ApiError, call, isDuplicatedCookie } from './api.js';
import type { SessionKind, Sessions } from './api-answers.js';
import { NO_SESSIONS, sessionState, setSessionState } from './session-state.js';

/**
 * Sign-in against the session routes (/console/session): the key goes to the server once, in the body of a POST;
 * from then on the browser holds only an HttpOnly cookie and the CSRF token of each session.
 */
export const SESSION_PATH = '/console/session';

let duplicatedCookie = false;
/** The last loadSessions was refused: the browser holds two session cookies of one kind (isDuplicatedCookie). */
export const sessionCookiesDuplicated = (): boolean => duplicatedCookie;

/** Loads who is signed in. A deployment without the session routes (404) has no one signed in. */
export async function loadSessions(): Promise<Sessions> {
  try {
    const { body } = await call<Sessions>('GET', SESSION_PATH);
    duplicatedCookie = false;
    setSessionState(body);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500 || err.status === 0) throw err;
    duplicatedCookie = isDuplicatedCookie(err);
    setSessionState(NO_SESSIONS);
  }
  return sessionState();
}

/** The sign-in body's field for each kind of session. */
const KEY_FIELD: Record<SessionKind, string> = { tenant: 'apiKey', operator: 'adminKey', analyst: 'analystKey' };

export async function signIn(kind: SessionKind, key: string): Promise<void> {
  await call<unknown>('POST', SESSION_PATH, { [KEY_FIELD[kind]]: key });
  // The session answer names the session just made; GET gives both kinds, as every later page needs them.
  await loadSessions();
}

export async function signOut(kind: SessionKind): Promise<void> {
  try {
    await call<unknown>('DELETE', `${SESSION_PATH}?kind=${kind}`);
  } finally {
    await loadSessions().catch(() => setSessionState({ ...sessionState(), [kind]: null }));
  }
}
