import type { VerificationResult } from '../../packages/verifier/src/index.js';
import { createConcurrencyLimit } from './concurrency-limit.js';

/**
 * `GET /v1/verify/{id}` is public and a bundle can be 100 MiB: results are kept (a stored bundle never
 * changes, and the keys and TSA certificates it is checked against are only ever added), requests for the same
 * bundle share one verification, and at most `concurrency` verifications run at once. A failed verification is
 * kept briefly only, as a certificate published a moment later can still make it pass.
 */
export interface VerificationCache {
  get(key: string, verify: () => Promise<VerificationResult | null>): Promise<VerificationResult | null>;
}

export function createVerificationCache(
  opts: { maxEntries?: number; concurrency?: number; failureTtlMs?: number; now?: () => number } = {},
): VerificationCache {
  const maxEntries = opts.maxEntries ?? 1000;
  const concurrency = opts.concurrency ?? 2;
  const failureTtlMs = opts.failureTtlMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const done = new Map<string, { result: VerificationResult | null; until: number }>();
  const running = new Map<string, Promise<VerificationResult | null>>();
  const slot = createConcurrencyLimit(concurrency);

  return {
    get(key, verify) {
      const hit = done.get(key);
      if (hit && hit.until > now()) {
        done.delete(key); // refresh its place: the map's order is least recently used first
        done.set(key, hit);
        return Promise.resolve(hit.result);
      }
      const inFlight = running.get(key);
      if (inFlight) return inFlight;
      const p = slot(verify)
        .then((result) => {
          done.set(key, { result, until: result?.verified ? Number.POSITIVE_INFINITY : now() + failureTtlMs });
          while (done.size > maxEntries) done.delete(done.keys().next().value as string);
          return result;
        })
        .finally(() => running.delete(key));
      running.set(key, p);
      return p;
    },
  };
}
