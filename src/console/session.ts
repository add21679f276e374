import { ApiError, call } from './api.js';
import { parseSessions, type Sessions } from './shapes.js';
import { sessionState, setSessionState } from './session-state.js';

/**
 * Sign-in against the session routes (/console/session): the key goes to the server once, in the body of a POST;
 * from then on the browser holds only an HttpOnly cookie and the CSRF token of each session.
 */
export const SESSION_PATH = '/console/session';

/** Loads who is signed in. A deployment without the session routes (404) has no one signed in. */
export async function loadSessions(): Promise<Sessions> {
  try {
    const { body } = await call<unknown>('GET', SESSION_PATH);
    setSessionState(parseSessions(body));
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500 || err.status === 0) throw err;
    setSessionState({ tenant: null, operator: null });
  }
  return sessionState();
}

export async function signIn(kind: 'tenant' | 'operator', key: string): Promise<void> {
  await call<unknown>('POST', SESSION_PATH, kind === 'tenant' ? { apiKey: key } : { adminKey: key });
  // The session answer names the session just made; GET gives both kinds, as every later page needs them.
  await loadSessions();
}

export async function signOut(kind: 'tenant' | 'operator'): Promise<void> {
  try {
    await call<unknown>('DELETE', `${SESSION_PATH}?kind=${kind}`);
  } finally {
    await loadSessions().catch(() => setSessionState({ ...sessionState(), [kind]: null }));
  }
}
