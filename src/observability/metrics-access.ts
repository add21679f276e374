import { timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';

/**
 * Who may scrape /metrics (it names queues, lags and error counts, and each scrape asks NATS and Postgres):
 * with METRICS_TOKEN, a request bearing it; without, only clients on this machine (a loopback peer address —
 * the socket's own, not a forwarded one). docs/security.md.
 */
export function metricsAllowed(
  authorization: string | undefined,
  peerAddress: string | undefined,
  token: string | undefined,
): boolean {
  if (token) {
    const given = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '');
    const wanted = Buffer.from(token);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }
  if (!peerAddress || !ipaddr.isValid(peerAddress)) return false;
  const parsed = ipaddr.process(peerAddress);
  return parsed.range() === 'loopback';
}

export const METRICS_REFUSAL = 'Metrics are served to this machine, or with the METRICS_TOKEN bearer token.';
