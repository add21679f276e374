import type { RateDecision } from './rate-limiter.js';

/**
 * The exact rolling window of spec 8.1 as a pure function over a log of token timestamps (ms, ascending): a
 * take is allowed when the tokens taken in (now − window, now] plus the ones asked fit under the limit. A token
 * taken at t leaves the window at exactly t + window. Used by the in-memory limiter and, shared through NATS KV,
 * by every API process (kv-rate-limiter.ts).
 */
export function takeFromLog(
  stamps: readonly number[],
  now: number,
  limit: number,
  windowMs: number,
  asks: readonly number[],
): { stamps: number[]; decisions: RateDecision[]; took: number } {
  const cutoff = now - windowMs;
  const live = stamps.filter((s) => s > cutoff);
  let took = 0;
  const decisions = asks.map((tokens): RateDecision => {
    const asked = Math.max(1, tokens); // a take of 0 asks whether one more would pass, taking nothing
    if (live.length + asked > limit) {
      // The earliest moment at which `asked` slots are free again.
      const needed = live.length + asked - limit;
      const freeAt = asked > limit ? now + windowMs : (live[needed - 1] ?? now) + windowMs;
      return {
        allowed: false,
        retryAfterSec: Math.max(1, Math.ceil((freeAt - now) / 1000)),
        remaining: Math.max(0, limit - live.length),
      };
    }
    for (let i = 0; i < tokens; i++) insertSorted(live, now);
    took += tokens;
    return { allowed: true, retryAfterSec: 0, remaining: limit - live.length };
  });
  return { stamps: live, decisions, took };
}

/** Another process's clock may run a little ahead: keep the log ascending whatever order stamps arrive in. */
function insertSorted(log: number[], t: number): void {
  let i = log.length;
  while (i > 0 && log[i - 1]! > t) i--;
  log.splice(i, 0, t);
}

/** Compact text of a log for a KV value: the first stamp, then each stamp's distance from the one before, base 36. */
export function encodeLog(stamps: readonly number[]): string {
  return stamps.map((s, i) => (i === 0 ? s : s - stamps[i - 1]!).toString(36)).join(',');
}

/** The log of `encodeLog`; an unreadable value is an empty log (a counter, never evidence). */
export function decodeLog(text: string): number[] {
  if (text === '') return [];
  const out: number[] = [];
  let prev = 0;
  for (const part of text.split(',')) {
    if (!/^-?[0-9a-z]{1,12}$/.test(part)) return [];
    const n = parseInt(part, 36);
    prev = out.length === 0 ? n : prev + n;
    out.push(prev);
  }
  return out.sort((a, b) => a - b);
}
