/** Small helpers shared by the benchmarks: env counts, percentiles, rounding, the capture API client. */
import { httpCall } from '../../test/support/test-server.js';

/** A positive whole number from `BENCH_*`, else `def`; a bad value stops the bench with its name. */
export function envCount(name: string, def: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got '${raw}'`);
  return n;
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export const round = (value: number, digits = 1): number => Number(value.toFixed(digits));
export const mb = (bytes: number): number => round(bytes / 1024 / 1024, 1);
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Milliseconds `f` took. */
export async function timeMs(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

/** Runs `worker(i)` for i in [0, count) with at most `concurrency` at a time. */
export async function pool(count: number, concurrency: number, worker: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, concurrency) }, async () => {
      while (next < count) await worker(next++);
    }),
  );
}

/** The public API as a tenant sees it: create a key, lift the quota, submit, wait for the outcome. */
export interface CaptureClient {
  /** `options`: the request's capture options (spec 2.1), e.g. `{ profile }`. */
  submit(url: string, options?: Record<string, unknown>): Promise<string>;
  /** Any call of the public API with the tenant's key; throws on an answer ≥ 300. */
  call(method: string, path: string, body?: unknown): Promise<any>;
  /** Polls status every `pollMs` until complete/failed; throws on failed or after `timeoutMs`. */
  waitDone(id: string, opts?: { timeoutMs?: number; pollMs?: number; onPoll?: () => void }): Promise<void>;
  /** 429 answers the client waited out and retried; status polls answered 429 (the one-address client polls on). */
  stats: { retried429: number; polls429: number };
}

/**
 * `oneAddress`: every status poll from one address (127.0.0.2), as one black-box client polls, and a 429 on a poll
 * is "not yet" (polled again after `pollMs`); by default each poll loop takes its own loopback address.
 */
export async function captureClient(
  baseUrl: string,
  adminKey: string,
  tenantId: string,
  opts: { oneAddress?: boolean } = {},
): Promise<CaptureClient> {
  const call = async (method: string, path: string, body: unknown, token: string): Promise<any> => {
    const res = await httpCall(
      baseUrl + path,
      method,
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body === undefined ? undefined : JSON.stringify(body),
    );
    if (res.status === 429) {
      // A real client honours Retry-After; counted, so a run that needed it says so.
      stats.retried429++;
      await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
      return call(method, path, body, token);
    }
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
    return res.body;
  };
  // Status is limited per source address: each poll loop takes its own loopback address (127.0.0.2–251).
  let nextSource = 0;
  const stats = { retried429: 0, polls429: 0 };
  const quotas = { capturesPerMonth: 100_000_000, storageBytes: 1_000_000_000_000 };
  await call('PUT', `/v1/admin/tenants/${tenantId}/config`, { quotas }, adminKey);
  const { key } = await call('POST', '/v1/admin/keys', { tenantId, scopes: ['capture'], name: 'bench' }, adminKey);
  return {
    async submit(url, options) {
      return (await call('POST', '/v1/captures', options ? { url, options } : { url }, key)).id as string;
    },
    call: (method, path, body) => call(method, path, body, key),
    stats,
    async waitDone(id, { timeoutMs = 60_000, pollMs = 25, onPoll } = {}) {
      const deadline = Date.now() + timeoutMs;
      const from = opts.oneAddress ? '127.0.0.2' : `127.0.0.${2 + (nextSource++ % 250)}`;
      for (;;) {
        const res = await httpCall(`${baseUrl}/v1/captures/${id}/status`, 'GET', {}, undefined, from);
        onPoll?.();
        if (res.status === 429 && opts.oneAddress) {
          stats.polls429++;
          if (Date.now() > deadline) throw new Error(`capture ${id}: still 429 after ${timeoutMs} ms`);
          await sleep(pollMs);
          continue;
        }
        const status = res.body?.status;
        if (status === 'complete') return;
        if (status === 'failed' || res.status >= 400) throw new Error(`capture ${id}: ${res.status} ${res.text}`);
        if (Date.now() > deadline) throw new Error(`capture ${id} still ${status} after ${timeoutMs} ms`);
        await sleep(pollMs);
      }
    },
  };
}
