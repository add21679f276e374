/**
 * How many captures a worker runs at once, adapted to what the host gives it (DESIGN decision 13: a worker
 * takes only the work its measured capacity can finish). Additive increase while the host has room and the
 * limit is in use; multiplicative decrease when the capture processes wait for a CPU, the event loop lags or
 * memory runs short — in the style of TCP's AIMD and Netflix's concurrency-limits. Pure: the caller samples
 * the host and applies the limit (capacity-governor.ts).
 */

export interface CapacitySample {
  /** Fraction of recent time the busiest capture process waited for a CPU (host-load.ts). */
  starvation: number;
  /** The event loop's delay, p99 over the last interval (ms). */
  eventLoopDelayMs: number;
  /** Memory the kernel could give without swapping. */
  availableMemoryBytes: number;
  /** Captures running now. */
  running: number;
}

export interface AdaptiveLimitOptions {
  /** The most captures at once (WORKER_CONCURRENCY). */
  max: number;
  /**
   * The fewest captures at once while memory lasts (default 1; the worker gives its core count). On a host
   * short of CPU the page clock keeps every bound fair, so a starved or lagging host makes captures slower,
   * and on two cores two renders still finish more per second than one (docs/performance.md). Only memory
   * running short takes the limit below this.
   */
  min?: number;
  /** Where to start; default half of max, at least `min`. */
  initial?: number;
}

export const ADAPTIVE_LIMITS = {
  /** Above this starvation the host is overloaded: halve. */
  overloadedStarvation: 0.5,
  /** Below this the host has room: add one. */
  roomStarvation: 0.25,
  overloadedEventLoopMs: 1000,
  roomEventLoopMs: 200,
  /** A renderer and its page hold about 250 MB: keep that much free for each more capture. */
  memoryPerCaptureBytes: 250 * 1024 ** 2,
  /** After a decrease, wait for its effect on the (10 s) starvation average before the next. */
  decreaseCooldownMs: 10_000,
  increaseCooldownMs: 5000,
} as const;

export type LimitChange = 'increase' | 'decrease' | 'hold';

export function createAdaptiveLimit(options: AdaptiveLimitOptions) {
  const max = Math.max(1, Math.floor(options.max));
  const min = Math.min(max, Math.max(1, Math.floor(options.min ?? 1)));
  let limit = Math.min(max, Math.max(min, Math.floor(options.initial ?? Math.ceil(max / 2))));
  let lastChangeAt = -Infinity;
  let lastChange: LimitChange = 'hold';

  return {
    limit: () => limit,
    /** Folds one sample taken at `at` (ms) into the limit; says what it did. */
    update(sample: CapacitySample, at: number): LimitChange {
      const L = ADAPTIVE_LIMITS;
      const memoryShort = sample.availableMemoryBytes < L.memoryPerCaptureBytes;
      const overloaded =
        sample.starvation > L.overloadedStarvation || sample.eventLoopDelayMs > L.overloadedEventLoopMs || memoryShort;
      const cooldown = lastChange === 'decrease' ? L.decreaseCooldownMs : L.increaseCooldownMs;
      if (at - lastChangeAt < cooldown) return 'hold';
      const floor = memoryShort ? 1 : min;
      if (overloaded && limit > floor) {
        limit = Math.max(floor, Math.floor(limit / 2));
        return record('decrease');
      }
      const room =
        sample.starvation < L.roomStarvation &&
        sample.eventLoopDelayMs < L.roomEventLoopMs &&
        sample.availableMemoryBytes > 2 * L.memoryPerCaptureBytes;
      // Only a limit that is in use is raised: an idle worker learns nothing about its capacity.
      if (room && sample.running >= limit && limit < max) {
        limit++;
        return record('increase');
      }
      return 'hold';

      function record(change: LimitChange): LimitChange {
        lastChange = change;
        lastChangeAt = at;
        return change;
      }
    },
  };
}
