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

/** Sliding log per key, in this process's memory. */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const logs = new Map<string, number[]>();
  let calls = 0;
  return {
    async take(key, limit, windowMs, tokens = 1) {
      const t = now();
      const cutoff = t - windowMs;
      const log = (logs.get(key) ?? []).filter((ts) => ts > cutoff);
      if (++calls % 1000 === 0) {
        for (const [k, v] of logs) if (v.every((ts) => ts <= cutoff)) logs.delete(k);
      }
      const asked = Math.max(1, tokens); // a take of 0 asks whether one more would pass, taking nothing
      if (log.length + asked > limit) {
        // The earliest moment at which `asked` slots are free again.
        const needed = log.length + asked - limit;
        const freeAt = asked > limit ? t + windowMs : (log[needed - 1] ?? t) + windowMs;
        logs.set(key, log);
        return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((freeAt - t) / 1000)), remaining: Math.max(0, limit - log.length) };
      }
      for (let i = 0; i < tokens; i++) log.push(t);
      logs.set(key, log);
      return { allowed: true, retryAfterSec: 0, remaining: limit - log.length };
    },
  };
}
