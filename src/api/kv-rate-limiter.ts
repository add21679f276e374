import { jetstream, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { openKvBucket } from '../infra/nats-buckets.js';
import { commitSlotId } from '../ledger/event-store.js';
import { countingFor, EXACT_LOG_MAX, type RateDecision, type RateLimiter } from './rate-limiter.js';
import { BUCKETS } from '../infra/topology.js';
import { decodeLog, encodeLog, takeFromLog } from './rolling-log.js';
import { decideOnCounts } from './sliding-counter.js';

export { retryAfter } from './sliding-counter.js';

/**
 * Rolling-window limits shared by every API process (docs/architecture.md, Tenancy), kept in a NATS KV bucket and
 * updated with compare-and-set so concurrent processes never lose a token. Two ways to count, by the limit:
 * - up to EXACT_LOG_MAX tokens per window (the operator key limit of 5, and the default tenant and IP limits),
 *   the exact log of token timestamps (rolling-log.ts) under one key `<key>.log`: a client that keeps to the
 *   limit in every trailing window is never refused, and the next token inside any window always is;
 * - above it, a sliding-window counter per key (count of the current fixed window + the previous window's count
 *   weighted by how much of it still overlaps the rolling window): constant size, approximate (docs/api.md, Rate limits).
 * Within a process, takes for one key are group-committed: while one read-decide-CAS round is
 * in flight, later takes queue and are decided together in the next round, so a hot tenant costs one CAS
 * per round instead of a storm of conflicting ones. The CAS is a publish to the key's subject with the expected
 * revision and one msgID per (key, revision), like a ledger append: a clustered NATS 2.9 may accept two
 * publishes with the same expected revision (nats-server #4320), its msgID dedupe does not.
 * A process remembers the state it last read or wrote for a key, and its next round
 * decides on that and writes by CAS without reading first: when nobody else took from the key meanwhile
 * (a client polling one API process) a take costs one round trip instead of two or three; when someone did, the
 * CAS fails and the round reads again. The remembered tokens are never more than the stored ones (a log or a
 * counter only grows, but for what leaves the window by time), so a refusal decided on them is one the stored
 * state would give too. Timestamps come from each API process's clock (keep them in NTP sync).
 * Counters are not events (DESIGN decision 1). If NATS
 * cannot be reached the request is let through (fail open) rather than failing the API, except for takes
 * marked failClosed (the operator key endpoints), which are refused.
 */

export const RATE_LIMIT_BUCKET = BUCKETS.rateLimits.name;
export const RATE_LIMIT_KV_OPTIONS = BUCKETS.rateLimits.options;
export { EXACT_LOG_MAX };
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAX_ROUNDS = 50;
/** Keys whose state a process remembers; the oldest are forgotten first (they are only a shortcut). */
const MAX_REMEMBERED_KEYS = 10_000;
/** A counter read or write without an answer (its stream is electing a leader) must not hold the request long. */
const KV_TIMEOUT_MS = 1500;

const safeKey = (key: string) => key.replace(/[^-/_=.a-zA-Z0-9]/g, '_');

interface Entry {
  text: string;
  revision: number | null;
}

interface Waiting {
  tokens: number;
  failClosed: boolean;
  limit: number;
  windowMs: number;
  resolve(d: RateDecision): void;
}

/** What a round knows of a key: the KV key it writes, that key's revision, and the counting's own state. */
interface KeyState {
  kvKey: string;
  revision: number | null;
  log?: number[];
  counts?: { cur: number; prev: number };
}

/** One way of counting: which KV key a round at time t writes, how to read its state, and how to decide on it. */
interface Counting {
  kvKey(base: string, t: number, windowMs: number): string;
  load(base: string, t: number, windowMs: number, get: (key: string) => Promise<Entry>): Promise<KeyState>;
  decide(
    state: KeyState,
    t: number,
    group: Waiting[],
  ): { decisions: RateDecision[]; next: KeyState; value: string | null };
}

const exactLog: Counting = {
  kvKey: (base) => `${base}.log`,
  async load(base, _t, _w, get) {
    const e = await get(`${base}.log`);
    return { kvKey: `${base}.log`, revision: e.revision, log: decodeLog(e.text) };
  },
  decide(state, t, group) {
    const { limit, windowMs } = group[0]!;
    const { stamps, decisions, took } = takeFromLog(
      state.log ?? [],
      t,
      limit,
      windowMs,
      group.map((w) => w.tokens),
    );
    return { decisions, next: { ...state, log: stamps }, value: took > 0 ? encodeLog(stamps) : null };
  },
};

const slidingCounter: Counting = {
  kvKey: (base, t, windowMs) => `${base}.${Math.floor(t / windowMs)}`,
  async load(base, t, windowMs, get) {
    const index = Math.floor(t / windowMs);
    const [cur, prev] = await Promise.all([get(`${base}.${index}`), get(`${base}.${index - 1}`)]);
    const count = (e: Entry) => Number(e.text) || 0;
    return { kvKey: `${base}.${index}`, revision: cur.revision, counts: { cur: count(cur), prev: count(prev) } };
  },
  decide(state, t, group) {
    const { limit, windowMs } = group[0]!;
    const counts = state.counts ?? { cur: 0, prev: 0 };
    const { decisions, accepted } = decideOnCounts(
      counts,
      t,
      limit,
      windowMs,
      group.map((w) => w.tokens),
    );
    return {
      decisions,
      next: { ...state, counts: { cur: counts.cur + accepted, prev: counts.prev } },
      value: accepted > 0 ? String(counts.cur + accepted) : null,
    };
  },
};

export { countingFor };

export async function createKvRateLimiter(
  nc: NatsConnection,
  opts: { now?: () => number; onError?: (err: unknown) => void; replicas?: number } = {},
): Promise<RateLimiter> {
  const kv: KV = await openKvBucket(nc, RATE_LIMIT_BUCKET, RATE_LIMIT_KV_OPTIONS, opts.replicas ?? 1, KV_TIMEOUT_MS);
  const js = jetstream(nc, { timeout: KV_TIMEOUT_MS });
  const now = opts.now ?? Date.now;
  const queues = new Map<string, Waiting[]>();
  const remembered = new Map<string, KeyState>();
  const remember = (base: string, state: KeyState) => {
    remembered.delete(base); // re-inserted last: the map's order is the order of use
    remembered.set(base, state);
    if (remembered.size > MAX_REMEMBERED_KEYS) remembered.delete(remembered.keys().next().value!);
  };

  async function get(key: string): Promise<Entry> {
    const e = await kv.get(key);
    if (e?.operation !== 'PUT') return { text: '', revision: e?.revision ?? null };
    return { text: decoder.decode(e.value), revision: e.revision };
  }

  /**
   * One round: read the key's state (unless this process knows it from its last round on the same KV key),
   * decide every waiting take in order, write the accepted tokens by CAS.
   */
  async function round(base: string, group: Waiting[]): Promise<boolean> {
    const { limit, windowMs } = group[0]!;
    const counting = countingFor(limit) === 'exact-log' ? exactLog : slidingCounter;
    const t = now();
    const known = remembered.get(base);
    const state =
      known?.kvKey === counting.kvKey(base, t, windowMs) ? known : await counting.load(base, t, windowMs, get);
    const { decisions, next, value } = counting.decide(state, t, group);
    if (value !== null) {
      try {
        const subject = `$KV.${RATE_LIMIT_BUCKET}.${state.kvKey}`;
        const expected = state.revision ?? 0;
        const ack = await js.publish(subject, encoder.encode(value), {
          msgID: commitSlotId(subject, expected),
          expect: { lastSubjectSequence: expected },
        });
        if (ack.duplicate) {
          remembered.delete(base);
          return false;
        }
        remember(base, { ...next, revision: ack.seq });
      } catch (err) {
        remembered.delete(base);
        // Another process moved the counter first: decide again. Anything else (no answer while the bucket
        // elects a leader) is the limiter being unavailable, handled by drain's policy.
        if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) return false;
        throw err;
      }
    } else if (known !== state) {
      remember(base, state);
    }
    for (const [i, w] of group.entries()) w.resolve(decisions[i]!);
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
        for (const w of group)
          w.resolve(
            w.failClosed
              ? { allowed: false, retryAfterSec: 5, remaining: 0 }
              : { allowed: true, retryAfterSec: 0, remaining: w.limit },
          );
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
