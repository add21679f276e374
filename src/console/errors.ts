import { ApiError } from './api.js';
import { h } from './dom.js';
import { time } from './format.js';

/**
 * An answer of the API as a sentence a person understands (spec 7.2, 7.3). The server's `detail` is the reason;
 * the status only chooses the framing. The console adds no rule of its own here: quota numbers and times are the
 * ones the error body carries.
 */
export function errorSentence(err: unknown): (string | Node)[] {
  if (!(err instanceof ApiError))
    return [`Something went wrong in the console: ${(err as Error)?.message ?? String(err)}`];
  const detail = err.problem?.detail ? ` ${ensurePeriod(err.problem.detail)}` : '';
  const retry = err.retryAfter !== null ? ` Try again in ${err.retryAfter} s.` : '';
  switch (err.status) {
    case 0:
      return ['The service could not be reached. Check your connection and try again.'];
    case 400:
      return [`The service did not accept this request.${detail}`];
    case 401:
      return [
        'You are signed out, or the key you signed in with was revoked. ',
        h(
          'a',
          { href: `/console/sign-in?next=${encodeURIComponent(location.pathname + location.search)}` },
          'Sign in again',
        ),
        '.',
      ];
    case 403:
      return [`Your key does not have the scope this needs.${detail}`];
    case 404:
      return [`Not found.${detail}`];
    case 409:
      return [`This conflicts with what already exists.${detail}`];
    case 413:
      return [`That is larger than the service accepts.${detail}`];
    case 415:
      return [`The service expected JSON.${detail}`];
    case 422:
      return [`The service cannot process this.${detail}`];
    case 429: {
      const q = err.problem?.quota;
      if (err.problem?.limitType === 'quota' && q) {
        return [
          `Your monthly ${q.resource ?? 'capture'} quota is used up (${q.used ?? '?'} of ${q.limit ?? '?'}). It resets `,
          q.resetsAt ? time(q.resetsAt) : 'next month',
          '.',
        ];
      }
      if (err.problem?.limitType === 'schedules') return [`You have as many schedules as your plan allows.${detail}`];
      return [`Too many requests.${retry || ' Try again in a minute.'}`];
    }
    case 503:
      return [`The service is busy or not fully set up right now.${detail}${retry}`];
    default:
      return err.status >= 500
        ? [`The service failed to answer (HTTP ${err.status}).${detail}`]
        : [`The request was refused (HTTP ${err.status}).${detail}`];
  }
}

const ensurePeriod = (s: string) => (/[.!?]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);

/** An error box: role=alert so it is read out when it appears. */
export function errorBox(err: unknown): HTMLElement {
  return h('div', { class: 'error', role: 'alert' }, ...errorSentence(err));
}
