/**
 * Applies the adaptive concurrency limit (adaptive-concurrency.ts) to a worker: every couple of seconds it
 * samples the host (starvation of the capture processes, event-loop delay, free memory) and sets how many
 * captures the browser pool runs and how many jobs the worker takes from the queue.
 */
import { freemem } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { type CapacitySample, createAdaptiveLimit } from './adaptive-concurrency.js';
import type { HostLoad } from './host-load.js';
import { EVENT_LOOP_SAMPLE_MS, hostStarvation, workerConcurrencyLimit } from '../observability/metrics.js';

const SAMPLE_MS = 2000;

export interface CapacityGovernor {
  limit(): number;
  stop(): void;
}

export function startCapacityGovernor(deps: {
  hostLoad: HostLoad;
  /** WORKER_CONCURRENCY: the most captures at once. */
  max: number;
  /** The fewest while memory lasts (adaptive-concurrency.ts `min`): the worker gives its core count. */
  min?: number;
  running: () => number;
  apply: (limit: number) => void;
  log: Logger;
  sampleMs?: number;
}): CapacityGovernor {
  const adaptive = createAdaptiveLimit({ max: deps.max, ...(deps.min ? { min: deps.min } : {}) });
  // Its bounds (adaptive-concurrency.ts) are 200 ms and more: sampled as finely as the metrics' delay is.
  const loopDelay = monitorEventLoopDelay({ resolution: EVENT_LOOP_SAMPLE_MS });
  loopDelay.enable();
  deps.apply(adaptive.limit());
  workerConcurrencyLimit.set(adaptive.limit());

  const timer = setInterval(() => {
    const sample: CapacitySample = {
      starvation: deps.hostLoad.starvation(),
      eventLoopDelayMs: loopDelay.percentile(99) / 1e6,
      availableMemoryBytes: freemem(),
      running: deps.running(),
    };
    loopDelay.reset();
    const change = adaptive.update(sample, performance.now());
    hostStarvation.set(sample.starvation);
    if (change === 'hold') return;
    deps.apply(adaptive.limit());
    workerConcurrencyLimit.set(adaptive.limit());
    deps.log.info(
      { limit: adaptive.limit(), change, ...sample, starvation: Number(sample.starvation.toFixed(3)) },
      'capture concurrency adapted',
    );
  }, deps.sampleMs ?? SAMPLE_MS);
  timer.unref();

  return {
    limit: () => adaptive.limit(),
    stop() {
      clearInterval(timer);
      loopDelay.disable();
    },
  };
}
