/**
 * How busy the host is, as the capture's own processes feel it (DESIGN decision 13: overload is slowness).
 *
 * Linux keeps, per task, the time it spent runnable but waiting for a CPU (`run_delay`, the second field of
 * /proc/<pid>/schedstat). Sampled for the worker process and every process under each browser it started,
 * the largest increase over an interval is how long the capture pipeline's bottleneck was kept off the CPU.
 * A browser is watched while a capture runs in it: then every SAMPLE_MS; with none watched only the worker
 * process is read, every IDLE_SAMPLE_MS (and whenever the page clock is read after a longer gap).
 * From that:
 *  - the page clock: wall time less that starvation. Bounds that judge a page ("did not load within 30 s",
 *    "stopped responding") count page-clock time, so a busy host makes captures slower, not failed;
 *  - `starvation()`: the recent fraction of time spent waiting, which the adaptive concurrency limit reads.
 * Where schedstat cannot be read, the page clock is the wall clock and starvation is 0.
 */
import { readFileSync } from 'node:fs';

/** Milliseconds on a clock that stands still while the capture's processes wait for a CPU. */
export interface PageClock {
  now(): number;
}

export interface HostLoad {
  readonly clock: PageClock;
  /** Fraction (0–1) of recent time the busiest watched process spent waiting for a CPU (about 10 s EWMA). */
  starvation(): number;
  /**
   * Watches `pid` and every process below it (a browser and its renderers) until the returned function is called;
   * watched twice, it is watched until both have returned.
   */
  watch(pid: number): () => void;
  stop(): void;
}

/** The wall clock: what every bound counted before, and what tests without a monitor use. */
export const wallClock: PageClock = { now: () => performance.now() };

/** A host treated as idle: bounds on the wall clock (tests that need a bound at an exact time, tools). */
export const wallClockHostLoad: HostLoad = {
  clock: wallClock,
  starvation: () => 0,
  watch: () => () => {},
  stop: () => {},
};

const SAMPLE_MS = 250;
const IDLE_SAMPLE_MS = 2000;
const EWMA_WINDOW_MS = 10_000;

/** Nanoseconds a task has waited for a CPU, or undefined when its schedstat cannot be read. */
export type RunDelayReader = (pid: number) => number | undefined;
/** The pids directly below `pid`. */
export type ChildrenReader = (pid: number) => number[];

export const readRunDelayNs: RunDelayReader = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/);
    const value = Number(fields[1]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

export const readChildren: ChildrenReader = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((s) => s.length > 0)
      .map(Number);
  } catch {
    return [];
  }
};

/**
 * Pure bookkeeping of the samples, apart from the timer and /proc, so it can be tested with made-up numbers.
 * `sample(at, delays)` takes the wall time (ms) and each watched pid's run_delay (ns).
 */
export function createStarvationMeter(startAt: number) {
  let lastAt = startAt;
  let pageTime = startAt;
  let starvation = 0;
  const previous = new Map<number, number>();
  return {
    sample(at: number, delays: Map<number, number>): void {
      const wall = Math.max(0, at - lastAt);
      let worst = 0;
      for (const [pid, ns] of delays) {
        const before = previous.get(pid);
        // A process first seen now started within the interval (or watching just began): count nothing for it.
        if (before !== undefined) worst = Math.max(worst, (ns - before) / 1e6);
      }
      previous.clear();
      for (const [pid, ns] of delays) previous.set(pid, ns);
      const waited = Math.min(wall, Math.max(0, worst));
      pageTime += wall - waited;
      if (wall > 0) {
        const weight = Math.min(1, wall / EWMA_WINDOW_MS);
        starvation += weight * (waited / wall - starvation);
      }
      lastAt = at;
    },
    /** Page time now: what the last sample established plus the wall time since (assumed unstarved). */
    pageTimeAt: (at: number) => pageTime + Math.max(0, at - lastAt),
    starvation: () => starvation,
  };
}

export function startHostLoad(
  options: {
    readRunDelay?: RunDelayReader;
    readChildren?: ChildrenReader;
    sampleMs?: number;
    /** How often this process alone is sampled while no browser is watched. */
    idleSampleMs?: number;
  } = {},
): HostLoad {
  const readDelay = options.readRunDelay ?? readRunDelayNs;
  const children = options.readChildren ?? readChildren;
  const roots = new Map<number, number>(); // pid → how many watchers
  const supported = readDelay(process.pid) !== undefined;
  const sampleMs = options.sampleMs ?? SAMPLE_MS;
  const idleSampleMs = options.idleSampleMs ?? IDLE_SAMPLE_MS;
  const meter = createStarvationMeter(performance.now());
  let lastReturned = -Infinity;
  let sampledAt = -Infinity;

  function treeOf(pid: number, into: Set<number>, depth = 0): void {
    if (into.has(pid) || depth > 8) return;
    into.add(pid);
    for (const child of children(pid)) treeOf(child, into, depth + 1);
  }

  const sample = () => {
    const pids = new Set<number>([process.pid]);
    for (const root of roots.keys()) treeOf(root, pids);
    const delays = new Map<number, number>();
    for (const pid of pids) {
      const ns = readDelay(pid);
      if (ns !== undefined) delays.set(pid, ns);
    }
    sampledAt = performance.now();
    meter.sample(sampledAt, delays);
  };
  let timer: NodeJS.Timeout | undefined;
  let stopped = !supported;
  const schedule = () => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(
      () => {
        sample();
        schedule();
      },
      roots.size > 0 ? sampleMs : idleSampleMs,
    );
    timer.unref();
  };
  if (supported) sample();
  schedule();

  return {
    clock: supported
      ? {
          now() {
            // A stale sample is taken now: when this process was itself kept off the CPU, its interval did not
            // fire either, and the gap would otherwise count at wall speed just when a bound is checked.
            if (performance.now() - sampledAt >= sampleMs) sample();
            // Monotonic: a sample may take back time that was handed out since the one before.
            lastReturned = Math.max(lastReturned, meter.pageTimeAt(performance.now()));
            return lastReturned;
          },
        }
      : wallClock,
    starvation: () => meter.starvation(),
    watch(pid) {
      const wasIdle = roots.size === 0;
      roots.set(pid, (roots.get(pid) ?? 0) + 1);
      if (wasIdle) schedule();
      return () => {
        const n = (roots.get(pid) ?? 1) - 1;
        if (n <= 0) roots.delete(pid);
        else roots.set(pid, n);
      };
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
