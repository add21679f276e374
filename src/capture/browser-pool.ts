/**
 * A worker's browser: one Chromium shared by up to `concurrency` captures (each in its own context),
 * replaced after `maxCapturesPerBrowser` captures once it is idle, or as soon as it crashes. A capture that
 * overruns its time is stopped, so one stuck page cannot hold a slot forever. The browser keeps one spare
 * context with its blank page opened ahead, so a capture does not wait for a new page; each
 * spare serves exactly one capture and is closed with it, like any other capture context.
 */
import { CaptureError } from './capture-error.js';
import { launchChromium, type LaunchedChromium } from './browser-launch.js';
import { resolveChromiumPath } from './chromium-path.js';
import { type HostLoad, startHostLoad } from './host-load.js';
import { type ProxySink, startProxySink } from './proxy-sink.js';
import { openCaptureContext, type PreparedContext } from './capture-context.js';
import { capturePage, type PageCaptureOptions, type PageCaptureResult } from './page-capture.js';
import { withTimeout } from './step-timeout.js';

export interface BrowserPoolOptions {
  chromiumPath?: string | undefined;
  /**
   * Egress proxy URL: every capture's browser context is routed through it, loopback included (DESIGN
   * decision 6). The browser's own traffic goes to a sink that refuses it (proxy-sink.ts).
   */
  proxyServer?: string | undefined;
  /** Captures running at the same time: at most this many; `setConcurrency` moves the limit below it. */
  concurrency: number;
  /** Where the page clock comes from (bounds count page time, not the busy host's wall clock); default: one of the pool's own. */
  hostLoad?: HostLoad;
  /** The browser is replaced after this many captures (default 50), once its running captures end. */
  maxCapturesPerBrowser?: number;
  /**
   * Time a capture may run beyond its own `timeoutMs` (settle, consent, screenshots…) before it is stopped
   * and reported as a retryable timeout (default 30000).
   */
  hungPageKillMs?: number;
}

export interface BrowserPoolStats {
  running: number;
  /** Captures allowed at once now (setConcurrency). */
  limit: number;
  queued: number;
  /** Browsers started so far. */
  launches: number;
  /** Captures started on the current browser. */
  capturesOnBrowser: number;
  totalCaptures: number;
  /** Captures stopped for overrunning their time. */
  killed: number;
  /** Browsers that died or disconnected without being asked to. */
  crashes: number;
  browserPid: number | null;
}

export interface BrowserPool {
  capture(url: string, options: PageCaptureOptions): Promise<PageCaptureResult>;
  /** Captures allowed at once from now on (1 to the pool's `concurrency`); running ones finish. */
  setConcurrency(limit: number): void;
  /** Stops running captures, closes the browser; later captures are refused. */
  close(): Promise<void>;
  stats(): BrowserPoolStats;
}

export const DEFAULT_MAX_CAPTURES_PER_BROWSER = 50;
export const DEFAULT_HUNG_PAGE_KILL_MS = 30_000;
/** After a stop, how long a capture may take to unwind before its browser is killed. */
const UNWIND_MS = 5000;
/**
 * The page clock stands still while the host starves the capture; against a host that never lets it run,
 * a capture is stopped after this many times its page-time limit of wall time, as the service's failure.
 */
const WALL_SAFETY_FACTOR = 10;

interface Instance {
  launched: LaunchedChromium;
  captures: number;
  active: number;
  dead: boolean;
  idleWaiters: Array<() => void>;
  /** The next capture's context, opened while others run. */
  spare?: Promise<PreparedContext>;
}

export function createBrowserPool(options: BrowserPoolOptions): BrowserPool {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
    throw new RangeError('concurrency must be a positive integer');
  // Fail at start-up, not at the first capture, when the binary is missing.
  const chromiumPath = resolveChromiumPath({ explicitPath: options.chromiumPath });
  const maxCaptures = options.maxCapturesPerBrowser ?? DEFAULT_MAX_CAPTURES_PER_BROWSER;
  const hungMs = options.hungPageKillMs ?? DEFAULT_HUNG_PAGE_KILL_MS;
  const hostLoad = options.hostLoad ?? startHostLoad();
  const clock = hostLoad.clock;
  let limit = options.concurrency;

  let current: Instance | undefined;
  let switching: Promise<void> | undefined;
  let closed = false;
  let running = 0;
  const queue: Array<() => void> = [];
  const activeCaptures = new Set<AbortController>();
  const counters = { launches: 0, totalCaptures: 0, killed: 0, crashes: 0 };

  const acquireSlot = async () => {
    if (running < limit) {
      running++;
      return;
    }
    await new Promise<void>((resolve) => queue.push(resolve));
  };
  const releaseSlot = () => {
    const next = running <= limit ? queue.shift() : undefined;
    if (next)
      next(); // the slot passes straight to the next capture
    else running--;
  };

  const notifyIdle = (instance: Instance) => {
    if (instance.active > 0 && !instance.dead) return;
    for (const wake of instance.idleWaiters.splice(0)) wake();
  };

  let sink: Promise<ProxySink> | undefined;
  async function launch(): Promise<Instance> {
    sink ??= startProxySink();
    const launched = await launchChromium({
      chromiumPath,
      proxyServer: options.proxyServer ? (await sink).url : undefined,
    });
    counters.launches++;
    const instance: Instance = { launched, captures: 0, active: 0, dead: false, idleWaiters: [] };
    const unwatch = launched.pid !== null ? hostLoad.watch(launched.pid) : () => {};
    launched.browser.on('disconnected', () => {
      unwatch();
      if (!instance.dead) counters.crashes++;
      instance.dead = true;
      notifyIdle(instance);
      void launched.close();
    });
    return instance;
  }

  async function retire(instance: Instance): Promise<void> {
    if (current === instance) current = undefined;
    instance.dead = true; // closing on purpose: not a crash
    notifyIdle(instance);
    await instance.launched.close();
  }

  async function browserForCapture(): Promise<Instance> {
    for (;;) {
      if (closed) throw poolClosed();
      const instance = current;
      if (instance && !instance.dead && instance.captures < maxCaptures) return instance;
      if (instance && !instance.dead && instance.active > 0) {
        // Used up: let its running captures finish before replacing it (no second browser meanwhile).
        await new Promise<void>((resolve) => instance.idleWaiters.push(resolve));
        continue;
      }
      switching ??= (async () => {
        if (instance) await retire(instance);
        if (closed) return;
        current = await launch();
      })().finally(() => (switching = undefined));
      await switching;
    }
  }

  /** This capture's context (the spare if there is one) and, when more captures will come, the next spare. */
  function takeContext(instance: Instance, proxyServer: string | undefined): Promise<PreparedContext> {
    const browser = instance.launched.browser;
    // A capture from a vantage point has its own egress proxy: a fresh context behind it, the spare kept.
    if (proxyServer !== undefined && proxyServer !== options.proxyServer)
      return openCaptureContext(browser, proxyServer);
    const spare = instance.spare;
    instance.spare = undefined;
    // A spare that failed (its browser went away meanwhile) is replaced by a fresh attempt.
    const open = () => openCaptureContext(browser, options.proxyServer);
    const prepared = spare ? spare.catch(open) : open();
    if (!instance.dead && instance.captures < maxCaptures) {
      instance.spare = open();
      instance.spare.catch(() => {});
    }
    return prepared;
  }

  async function runCapture(
    instance: Instance,
    url: string,
    captureOptions: PageCaptureOptions,
  ): Promise<PageCaptureResult> {
    const controller = new AbortController();
    activeCaptures.add(controller);
    const callerSignal = captureOptions.signal;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    if (callerSignal?.aborted) onCallerAbort();

    // Both limits end in an abort, so the capture unwinds the same way whichever fires.
    // The tenant's behaviors budget (options.behaviorTimeout) is time the capture is allowed on top.
    const limitMs = captureOptions.timeoutMs + hungMs + (captureOptions.settings?.behaviorTimeoutMs ?? 0);
    let unwindTimer: NodeJS.Timeout | undefined;
    const finished = new AbortController();
    const overran = (reason: CaptureError) => () => {
      if (!controller.signal.aborted) {
        counters.killed++;
        controller.abort(reason);
      }
      return reason;
    };
    withTimeout(
      new Promise<never>(() => {}),
      limitMs,
      overran(
        new CaptureError(
          'timeout',
          `The page did not finish rendering within ${Math.round(limitMs / 1000)} s and was stopped`,
          true,
        ),
      ),
      finished.signal,
      clock,
    ).catch(() => {});
    withTimeout(
      new Promise<never>(() => {}),
      limitMs * WALL_SAFETY_FACTOR,
      overran(new CaptureError('service_busy', 'The host was too busy to finish the capture; it will try again', true)),
      finished.signal,
    ).catch(() => {});
    // Normally an aborted capture unwinds at once; if its browser does not answer any more, kill it.
    const unwound = new Promise<never>((_, reject) => {
      controller.signal.addEventListener(
        'abort',
        () => {
          unwindTimer = setTimeout(() => {
            instance.dead = true;
            void instance.launched.close();
            reject(controller.signal.reason);
          }, UNWIND_MS);
        },
        { once: true },
      );
    });
    unwound.catch(() => {});

    try {
      const prepared = takeContext(instance, captureOptions.proxyServer);
      prepared.catch(() => {}); // capturePage reports it
      return await Promise.race([
        capturePage(instance.launched.browser, url, { ...captureOptions, prepared, signal: controller.signal, clock }),
        unwound,
      ]);
    } catch (error) {
      if (error instanceof CaptureError && error.code === 'browser_crashed') instance.dead = true;
      throw error;
    } finally {
      finished.abort();
      clearTimeout(unwindTimer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
      activeCaptures.delete(controller);
    }
  }

  return {
    async capture(url, captureOptions) {
      if (closed) throw poolClosed();
      await acquireSlot();
      try {
        let instance: Instance;
        try {
          instance = await browserForCapture();
        } catch (error) {
          if (error instanceof CaptureError) throw error;
          // Chromium's own words (e.g. "FATAL: Socket path too long") are in the cause, which the worker logs.
          throw new CaptureError('browser_crashed', 'The browser could not be started', true, { cause: error });
        }
        instance.captures++;
        instance.active++;
        counters.totalCaptures++;
        try {
          return await runCapture(instance, url, captureOptions);
        } finally {
          instance.active--;
          notifyIdle(instance);
        }
      } finally {
        releaseSlot();
      }
    },
    setConcurrency(next) {
      limit = Math.max(1, Math.min(options.concurrency, Math.floor(next)));
      // A raised limit lets queued captures start now; a lowered one takes effect as captures finish.
      while (running < limit && queue.length > 0) {
        running++;
        queue.shift()!();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const controller of activeCaptures) controller.abort(poolClosed());
      for (const wake of queue.splice(0)) {
        running++; // each woken waiter releases its slot again when it sees the pool is closed
        wake();
      }
      await switching?.catch(() => {});
      if (current) await retire(current);
      await (await sink?.catch(() => undefined))?.close();
      if (!options.hostLoad) hostLoad.stop();
    },
    stats: () => ({
      running,
      limit,
      queued: queue.length,
      launches: counters.launches,
      capturesOnBrowser: current?.captures ?? 0,
      totalCaptures: counters.totalCaptures,
      killed: counters.killed,
      crashes: counters.crashes,
      browserPid: current && !current.dead ? current.launched.pid : null,
    }),
  };
}

function poolClosed(): CaptureError {
  return new CaptureError(
    'service_busy',
    'The capture service is shutting down; the capture will be tried again',
    true,
  );
}
