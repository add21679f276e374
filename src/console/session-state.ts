import type { Sessions } from './api-answers.js';

/**
 * Who is signed in, as GET /console/session last said. Only the CSRF tokens and what the answer shows: the keys
 * themselves are never kept (not in memory after the sign-in request, never in localStorage or sessionStorage).
 */
export const NO_SESSIONS: Sessions = { tenant: null, operator: null, analyst: null };
let current: Sessions = NO_SESSIONS;
const listeners = new Set<() => void>();

export const sessionState = (): Sessions => current;

export function setSessionState(next: Sessions): void {
  current = next;
  for (const l of listeners) l();
}

export function onSessionChange(listener: () => void): void {
  listeners.add(listener);
}
