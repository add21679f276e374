import { takeFromLog } from './rolling-log.js';

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

/** The exact rolling log per key (rolling-log.ts), in this process's memory. */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const logs = new Map<string, number[]>();
  let calls = 0;
  return {
    async take(key, limit, windowMs, tokens = 1) {
      const t = now();
      if (++calls % 1000 === 0) {
        for (const [k, v] of logs) if (v.every((ts) => ts <= t - windowMs)) logs.delete(k);
      }
      const { stamps, decisions } = takeFromLog(logs.get(key) ?? [], t, limit, windowMs, [tokens]);
      logs.set(key, stamps);
      return decisions[0]!;
    },
  };
}
