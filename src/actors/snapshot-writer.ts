import type { SnapshotStore } from './snapshot-store.js';

/**
 * Writes snapshots in the background with a few puts in flight: many actors passivated in the same sweep
 * (thousands of tenants after a busy minute) must not queue a burst of puts in front of the requests' own
 * NATS traffic. Per key only the newest value waits, and a key is never written twice at once, so an older
 * snapshot cannot land after a newer one from this process.
 */
export interface SnapshotWriter {
  write(key: string, value: Uint8Array): void;
  /** Resolves when nothing waits or is in flight. */
  idle(): Promise<void>;
}

export function createSnapshotWriter(
  store: SnapshotStore,
  opts: { concurrency?: number; onError?: (key: string, error: unknown) => void } = {},
): SnapshotWriter {
  const concurrency = opts.concurrency ?? 4;
  const waiting = new Map<string, Uint8Array>();
  const inFlight = new Set<string>();
  let idleWaiters: Array<() => void> = [];

  function pump(): void {
    for (const [key, value] of waiting) {
      if (inFlight.size >= concurrency) return;
      if (inFlight.has(key)) continue;
      waiting.delete(key);
      inFlight.add(key);
      store
        .put(key, value)
        .catch((error: unknown) => opts.onError?.(key, error))
        .finally(() => {
          inFlight.delete(key);
          pump();
        });
    }
    if (inFlight.size === 0 && waiting.size === 0) {
      const done = idleWaiters;
      idleWaiters = [];
      for (const resolve of done) resolve();
    }
  }

  return {
    write(key, value) {
      waiting.set(key, value);
      pump();
    },
    idle() {
      if (inFlight.size === 0 && waiting.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
