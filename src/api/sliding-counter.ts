import type { RateDecision } from './rate-limiter.js';

/**
 * The two-window counter of limits above EXACT_LOG_MAX (docs/api.md, Rate limits): the count of the current fixed
 * window plus the previous window's count weighted by how much of it still overlaps the rolling window.
 * Constant size and approximate. Pure: the KV limiter (kv-rate-limiter.ts) and the in-process one
 * (rate-limiter.ts) keep the counts, this decides on them.
 */
export interface WindowCounts {
  /** Tokens taken in the current fixed window. */
  cur: number;
  /** Tokens taken in the one before it. */
  prev: number;
}

/** Decides `asks` in order at time `t`; `accepted` is how many tokens the allowed ones took. */
export function decideOnCounts(
  counts: WindowCounts,
  t: number,
  limit: number,
  windowMs: number,
  asks: readonly number[],
): { decisions: RateDecision[]; accepted: number } {
  const { cur, prev } = counts;
  const elapsed = (t - Math.floor(t / windowMs) * windowMs) / windowMs;
  const weightedPrev = prev * (1 - elapsed);
  let accepted = 0;
  const decisions = asks.map((tokens): RateDecision => {
    const estimate = weightedPrev + cur + accepted;
    const asked = Math.max(1, tokens); // a take of 0 asks whether one more would pass, taking nothing
    if (estimate + asked > limit) {
      return {
        allowed: false,
        retryAfterSec: retryAfter(limit, asked, prev, cur + accepted, elapsed, windowMs),
        remaining: Math.max(0, Math.floor(limit - estimate)),
      };
    }
    accepted += tokens;
    return { allowed: true, retryAfterSec: 0, remaining: Math.max(0, Math.floor(limit - estimate - tokens)) };
  });
  return { decisions, accepted };
}

/** Whole seconds until `tokens` more would pass, `elapsed` being the fraction of the current window gone. */
export function retryAfter(
  limit: number,
  tokens: number,
  prev: number,
  cur: number,
  elapsed: number,
  windowMs: number,
): number {
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
