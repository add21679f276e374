import { jetstream, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { openKvBucket } from '../infra/nats-buckets.js';
import { commitSlotId } from '../ledger/event-store.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import { BUCKETS } from '../infra/topology.js';

/**
 * Rolling-window limits shared by every API process (docs/architecture.md, tenancy), kept in a NATS KV bucket: a sliding
 * window counter per key (count of the current fixed window + the previous window's count weighted by how
 * much of it still overlaps the rolling window), updated with compare-and-set so concurrent processes never
 * lose a token. Within a process, takes for one key are group-committed: while one read-decide-CAS round is
 * in flight, later takes queue and are decided together in the next round, so a hot tenant costs one CAS
 * per round instead of a storm of conflicting ones. The CAS is a publish to the key's subject with the expected
 * revision and one msgID per (key, revision), like a ledger append: a clustered NATS 2.9 may accept two
 * publishes with the same expected revision (nats-server #4320), its msgID dedupe does not.
 * A process remembers the counters it last read or wrote for a key's current window, and its next round
 * decides on those and writes by CAS without reading first: when nobody else took from the key meanwhile
 * (a client polling one API process) a take costs one round trip instead of three; when someone did, the
 * CAS fails and the round reads again. The remembered counts are never above the stored ones (a counter
 * only grows within its window), so a refusal decided on them is one the stored counts would give too.
 * Counters are not events (DESIGN decision 1). If NATS
 * cannot be reached the request is let through (fail open) rather than failing the API, except for takes
 * marked failClosed (the operator key endpoints), which are refused.
 */

export const RATE_LIMIT_BUCKET = BUCKETS.rateLimits.name;
export const RATE_LIMIT_KV_OPTIONS = BUCKETS.rateLimits.options;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAX_ROUNDS = 50;
/** Keys whose counters a process remembers; the oldest are forgotten first (they are only a shortcut). */
const MAX_REMEMBERED_KEYS = 10_000;
/** A counter read or write without an answer (its stream is electing a leader) must not hold the request long. */
const KV_TIMEOUT_MS = 1500;

const safeKey = (key: string) => key.replace(/[^-/_=.a-zA-Z0-9]/g, '_');

interface Counter {
  count: number;
  revision: number | null;
}

/** A key's counters as this process last read or wrote them, for the window `index`. */
interface Remembered {
  index: number;
  cur: Counter;
  prev: Counter;
}

interface Waiting {
  tokens: number;
  failClosed: boolean;
  limit: number;
  windowMs: number;
  resolve(d: RateDecision): void;
}

export async function createKvRateLimiter(
  nc: NatsConnection,
  opts: { now?: () => number; onError?: (err: unknown) => void; replicas?: number } = {},
): Promise<RateLimiter> {
  const kv: KV = await openKvBucket(nc, RATE_LIMIT_BUCKET, RATE_LIMIT_KV_OPTIONS, opts.replicas ?? 1, KV_TIMEOUT_MS);
  const js = jetstream(nc, { timeout: KV_TIMEOUT_MS });
  const now = opts.now ?? Date.now;
  const queues = new Map<string, Waiting[]>();
  const remembered = new Map<string, Remembered>();
  const remember = (base: string, counters: Remembered) => {
    remembered.delete(base); // re-inserted last: the map's order is the order of use
    remembered.set(base, counters);
    if (remembered.size > MAX_REMEMBERED_KEYS) remembered.delete(remembered.keys().next().value!);
  };

  async function read(key: string): Promise<Counter> {
    const e = await kv.get(key);
    if (!e || e.operation !== 'PUT' || e.value.length === 0) return { count: 0, revision: e?.revision ?? null };
    return { count: Number(decoder.decode(e.value)) || 0, revision: e.revision };
  }

  /**
   * One round: read both windows (unless this process knows them from its last round on the key in this
   * window), decide every waiting take in order, write the accepted tokens by CAS.
   */
  async function round(base: string, group: Waiting[]): Promise<boolean> {
    const { limit, windowMs } = group[0]!;
    const t = now();
    const index = Math.floor(t / windowMs);
    const elapsed = (t - index * windowMs) / windowMs;
    const known = remembered.get(base);
    const [cur, prev] = known?.index === index ? [known.cur, known.prev] : await Promise.all([read(`${base}.${index}`), read(`${base}.${index - 1}`)]);
    const weightedPrev = prev.count * (1 - elapsed);
    let accepted = 0;
    const decisions = group.map((w) => {
      const estimate = weightedPrev + cur.count + accepted;
      const asked = Math.max(1, w.tokens); // a take of 0 asks whether one more would pass, taking nothing
      if (estimate + asked > limit) {
        return { allowed: false, retryAfterSec: retryAfter(limit, asked, prev.count, cur.count + accepted, elapsed, windowMs), remaining: Math.max(0, Math.floor(limit - estimate)) };
      }
      accepted += w.tokens;
      return { allowed: true, retryAfterSec: 0, remaining: Math.max(0, Math.floor(limit - estimate - w.tokens)) };
    });
    if (accepted > 0) {
      const value = encoder.encode(String(cur.count + accepted));
      try {
        const subject = `$KV.${RATE_LIMIT_BUCKET}.${base}.${index}`;
        const expected = cur.revision ?? 0;
        const ack = await js.publish(subject, value, { msgID: commitSlotId(subject, expected), expect: { lastSubjectSequence: expected } });
        if (ack.duplicate) {
          remembered.delete(base);
          return false;
        }
        remember(base, { index, cur: { count: cur.count + accepted, revision: ack.seq }, prev });
      } catch (err) {
        remembered.delete(base);
        // Another process moved the counter first: decide again. Anything else (no answer while the bucket
        // elects a leader) is the limiter being unavailable, handled by drain's policy.
        if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) return false;
        throw err;
      }
    } else if (known?.index !== index) {
      remember(base, { index, cur, prev });
    }
    group.forEach((w, i) => w.resolve(decisions[i]!));
    return true;
  }

  async function drain(base: string): Promise<void> {
    const queue = queues.get(base)!;
    while (queue.length > 0) {
      const group = queue.splice(0, queue.length);
      try {
        let done = false;
        for (let attempt = 0; !done && attempt < MAX_ROUNDS; attempt++) {
          done = await round(base, group);
          if (!done) await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 2 ** attempt)));
        }
        if (!done) throw new Error(`rate-limit counter ${base} kept changing`);
      } catch (err) {
        opts.onError?.(err);
        for (const w of group) w.resolve(w.failClosed ? { allowed: false, retryAfterSec: 5, remaining: 0 } : { allowed: true, retryAfterSec: 0, remaining: w.limit });
      }
    }
    queues.delete(base);
  }

  return {
    take(key, limit, windowMs, tokens = 1, takeOpts = {}) {
      const base = safeKey(key);
      return new Promise<RateDecision>((resolve) => {
        const queue = queues.get(base);
        const waiting = { tokens, limit, windowMs, failClosed: takeOpts.failClosed ?? false, resolve };
        if (queue) {
          queue.push(waiting);
          return;
        }
        queues.set(base, [waiting]);
        void drain(base);
      });
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
