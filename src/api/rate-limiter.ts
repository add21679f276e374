import { takeFromLog } from './rolling-log.js';
import { decideOnCounts } from './sliding-counter.js';

/**
 * Rolling-window rate limits (spec 8.1): a request is allowed when fewer than `limit` tokens were taken for
 * the key within the last `windowMs`. Counters are not events (DESIGN decision 1).
 */
export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until enough tokens leave the window (≥ 1 when refused). */
  retryAfterSec: number;
  remaining: number;
}

export interface TakeOptions {
  /**
   * When the shared counters cannot be reached: refuse (the operator key endpoints, where a guessing attack
   * must not get through) rather than let the request through (tenant traffic, which stays available while
   * NATS elects a leader). docs/security.md.
   */
  failClosed?: boolean;
}

export interface RateLimiter {
  /** `tokens` 0 asks whether one more would be allowed, taking nothing. */
  take(key: string, limit: number, windowMs: number, tokens?: number, opts?: TakeOptions): Promise<RateDecision>;
}

/** The largest limit counted by the exact log: at most this many timestamps (≈ 4 bytes each) kept per key. */
export const EXACT_LOG_MAX = 2000;

/** The counting a limit uses: the exact log up to EXACT_LOG_MAX, above it the two-window counter (sliding-counter.ts). */
export const countingFor = (limit: number): 'exact-log' | 'sliding-counter' =>
  limit <= EXACT_LOG_MAX ? 'exact-log' : 'sliding-counter';

/**
 * The limits in this process's memory, counted as the shared limiter counts them (kv-rate-limiter.ts): for a
 * deployment whose only API process is this one (`make run`, RATE_LIMIT_STORE=memory), where a KV round trip
 * per request would buy nothing. Counters start empty when the process starts.
 */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const logs = new Map<string, number[]>();
  const counters = new Map<string, { index: number; cur: number; prev: number }>();
  let calls = 0;
  return {
    async take(key, limit, windowMs, tokens = 1) {
      const t = now();
      if (++calls % 1000 === 0) {
        for (const [k, v] of logs) if (v.every((ts) => ts <= t - windowMs)) logs.delete(k);
        for (const [k, c] of counters) if (c.index < Math.floor(t / windowMs) - 1) counters.delete(k);
      }
      if (countingFor(limit) === 'exact-log') {
        const { stamps, decisions } = takeFromLog(logs.get(key) ?? [], t, limit, windowMs, [tokens]);
        logs.set(key, stamps);
        return decisions[0]!;
      }
      const index = Math.floor(t / windowMs);
      const known = counters.get(key);
      const counts =
        known?.index === index ? known : { index, cur: 0, prev: known?.index === index - 1 ? known.cur : 0 };
      const { decisions, accepted } = decideOnCounts(counts, t, limit, windowMs, [tokens]);
      counters.set(key, { ...counts, cur: counts.cur + accepted });
      return decisions[0]!;
    },
  };
}
