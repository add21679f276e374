import type { TenantActors } from '../actors/tenant-actors.js';
import { periodOf, type Clock } from '../domain/clock.js';

/**
 * Counts authenticated API calls (spec 2.11 apiCallCount) in memory and records them as one
 * `usage.api_calls_recorded` event per tenant and period every few seconds, so the count is rebuildable
 * from the log without an event per request.
 */
export interface UsageRecorder {
  count(tenantId: string): void;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** Appends in flight at once during a flush. */
const FLUSH_CONCURRENCY = 8;

export function createUsageRecorder(tenants: TenantActors, clock: Clock, intervalMs = 5000): UsageRecorder {
  let counts = new Map<string, number>();
  const record = async (key: string, count: number) => {
    const [tenantId, period] = key.split('|') as [string, string];
    try {
      await tenants.execute(
        tenantId,
        { type: 'RecordApiCalls', data: { period, count } },
        { correlationId: 'usage', causedBy: { kind: 'system', component: 'usage-recorder' } },
      );
    } catch {
      counts.set(key, (counts.get(key) ?? 0) + count); // try again next time
    }
  };
  const appendCounts = async () => {
    const batch = [...counts];
    counts = new Map();
    // A few appends at a time: with thousands of active tenants, one burst of an append per tenant every
    // interval queued in front of the requests' own appends (docs/performance.md, API).
    let next = 0;
    const lane = async () => {
      while (next < batch.length) {
        const [key, count] = batch[next++]!;
        await record(key, count);
      }
    };
    await Promise.all(Array.from({ length: Math.min(FLUSH_CONCURRENCY, batch.length) }, lane));
  };
  // One flush at a time, each after the one before: a flush (or stop) that finds the counts already taken by
  // the timer's flush returns only once those appends have landed (or were put back), never while they are in flight.
  let flushing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    flushing = flushing.then(appendCounts, appendCounts);
    return flushing;
  };
  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();
  return {
    count(tenantId) {
      const key = `${tenantId}|${periodOf(clock.now())}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
