import type { ActorRuntime } from '../actors/actor-runtime.js';
import { periodOf, type Clock } from '../domain/clock.js';
import type { TenantEvent } from '../domain/events.js';
import { decideRecordApiCalls, type TenantState } from '../domain/tenant/index.js';

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

export function createUsageRecorder(tenants: ActorRuntime<TenantState, TenantEvent>, clock: Clock, intervalMs = 5000): UsageRecorder {
  let counts = new Map<string, number>();
  const flush = async () => {
    const batch = counts;
    counts = new Map();
    await Promise.all(
      [...batch].map(async ([key, count]) => {
        const [tenantId, period] = key.split('|') as [string, string];
        try {
          await tenants.execute(tenantId, { correlationId: 'usage', causedBy: { kind: 'system', component: 'usage-recorder' } }, () =>
            decideRecordApiCalls({ period, count }),
          );
        } catch {
          counts.set(key, (counts.get(key) ?? 0) + count); // try again next time
        }
      }),
    );
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
