import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { RateDecision, RateLimiter } from './rate-limiter.js';

/**
 * Rolling-window limits shared by every API process (issue 4 §4), kept in a NATS KV bucket: a sliding
 * window counter per key (count of the current fixed window + the previous window's count weighted by how
 * much of it still overlaps the rolling window), updated with compare-and-set so concurrent processes never
 * lose a token. Counters are not events (DESIGN decision 1). If NATS cannot be reached the request is let
 * through (fail open) rather than failing the API.
 */

export const RATE_LIMIT_BUCKET = 'ratelimits';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const safeKey = (key: string) => key.replace(/[^-/_=.a-zA-Z0-9]/g, '_');

export async function createKvRateLimiter(nc: NatsConnection, opts: { now?: () => number; onError?: (err: unknown) => void } = {}): Promise<RateLimiter> {
  const kv: KV = await new Kvm(nc).create(RATE_LIMIT_BUCKET, { history: 1, ttl: 5 * 60_000 });
  const now = opts.now ?? Date.now;

  async function read(key: string): Promise<{ count: number; revision: number | null }> {
    const e = await kv.get(key);
    if (!e || e.operation !== 'PUT' || e.value.length === 0) return { count: 0, revision: e?.revision ?? null };
    return { count: Number(decoder.decode(e.value)) || 0, revision: e.revision };
  }

  return {
    async take(key, limit, windowMs, tokens = 1): Promise<RateDecision> {
      const base = safeKey(key);
      try {
        for (let attempt = 0; attempt < 20; attempt++) {
          const t = now();
          const index = Math.floor(t / windowMs);
          const elapsed = (t - index * windowMs) / windowMs;
          const [cur, prev] = await Promise.all([read(`${base}.${index}`), read(`${base}.${index - 1}`)]);
          const estimate = prev.count * (1 - elapsed) + cur.count;
          if (estimate + tokens > limit) {
            return { allowed: false, retryAfterSec: retryAfter(limit, tokens, prev.count, cur.count, elapsed, windowMs), remaining: Math.max(0, Math.floor(limit - estimate)) };
          }
          const value = encoder.encode(String(cur.count + tokens));
          try {
            if (cur.revision === null) await kv.create(`${base}.${index}`, value);
            else await kv.update(`${base}.${index}`, value, cur.revision);
            return { allowed: true, retryAfterSec: 0, remaining: Math.max(0, Math.floor(limit - estimate - tokens)) };
          } catch {
            // another process moved the counter first: read again
          }
        }
        return { allowed: false, retryAfterSec: 1, remaining: 0 };
      } catch (err) {
        opts.onError?.(err);
        return { allowed: true, retryAfterSec: 0, remaining: limit };
      }
    },
  };
}

/** Seconds until `tokens` more fit under `limit` as the previous window's weight decays. */
export function retryAfter(limit: number, tokens: number, prev: number, cur: number, elapsed: number, windowMs: number): number {
  let waitFraction: number;
  if (cur + tokens <= limit && prev > 0) {
    // Still in this window: wait until prev·(1−f) ≤ limit − cur − tokens.
    waitFraction = Math.max(0, 1 - (limit - cur - tokens) / prev - elapsed);
  } else {
    // Not before the next window, whose previous-window weight is this window's count.
    const next = cur > 0 ? Math.max(0, 1 - (limit - tokens) / cur) : 0;
    waitFraction = 1 - elapsed + next;
  }
  return Math.max(1, Math.ceil((waitFraction * windowMs) / 1000));
}
