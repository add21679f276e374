/**
 * The one poller of an open page (at most one request per 2 s per open page, in total). Watchers take
 * turns, round-robin, one request per tick; a watcher says whether it wants another turn. Stopped when the page
 * changes; it waits while the tab is hidden.
 */
export const POLL_INTERVAL_MS = 2000;

export type Watcher = () => Promise<'again' | 'done'>;

export interface Poller {
  watch(key: string, watcher: Watcher): void;
  stop(): void;
}

export function createPoller(intervalMs = POLL_INTERVAL_MS): Poller {
  const watchers = new Map<string, Watcher>();
  let queue: string[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  const schedule = () => {
    if (stopped || timer || watchers.size === 0) return;
    timer = setTimeout(tick, intervalMs);
  };

  async function tick(): Promise<void> {
    timer = null;
    if (stopped) return;
    if (document.hidden) return schedule();
    if (queue.length === 0) queue = [...watchers.keys()];
    const key = queue.shift();
    const watcher = key === undefined ? undefined : watchers.get(key);
    if (key !== undefined && watcher) {
      let outcome: 'again' | 'done' = 'again';
      try {
        outcome = await watcher();
      } catch {
        // A failed request is tried again on the watcher's next turn.
      }
      if (outcome === 'done' && watchers.get(key) === watcher) watchers.delete(key);
    }
    schedule();
  }

  return {
    watch(key, watcher) {
      if (stopped) return;
      watchers.set(key, watcher);
      schedule();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      watchers.clear();
    },
  };
}
