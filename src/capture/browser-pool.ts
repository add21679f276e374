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
import type { PageCaptureOptions, PageCaptureResult } from './page-capture.js';
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

/** What one pool holds while it runs: its settings, the current browser, the slots and the captures running. */
interface PoolState {
  readonly options: BrowserPoolOptions;
  readonly chromiumPath: string;
  readonly maxCaptures: number;
  readonly hungMs: number;
  readonly hostLoad: HostLoad;
  readonly clock: HostLoad['clock'];
  /** Captures allowed at once now (setConcurrency). */
  limit: number;
  current: Instance | undefined;
  switching: Promise<void> | undefined;
  closed: boolean;
  running: number;
  /** Captures waiting for a slot. */
  readonly queue: Array<() => void>;
  readonly activeCaptures: Set<AbortController>;
  readonly counters: { launches: number; totalCaptures: number; killed: number; crashes: number };
  sink: Promise<ProxySink> | undefined;
}

export function createBrowserPool(options: BrowserPoolOptions): BrowserPool {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
    throw new RangeError('concurrency must be a positive integer');
  const hostLoad = options.hostLoad ?? startHostLoad();
  const pool: PoolState = {
    options,
    // Fail at start-up, not at the first capture, when the binary is missing.
    chromiumPath: resolveChromiumPath({ explicitPath: options.chromiumPath }),
    maxCaptures: options.maxCapturesPerBrowser ?? DEFAULT_MAX_CAPTURES_PER_BROWSER,
    hungMs: options.hungPageKillMs ?? DEFAULT_HUNG_PAGE_KILL_MS,
    hostLoad,
    clock: hostLoad.clock,
    limit: options.concurrency,
    current: undefined,
    switching: undefined,
    closed: false,
    running: 0,
    queue: [],
    activeCaptures: new Set(),
    counters: { launches: 0, totalCaptures: 0, killed: 0, crashes: 0 },
    sink: undefined,
  };
  return {
    capture: (url, captureOptions) => capture(pool, url, captureOptions),
    setConcurrency: (next) => setConcurrency(pool, next),
    close: () => closePool(pool),
    stats: () => ({
      running: pool.running,
      limit: pool.limit,
      queued: pool.queue.length,
      launches: pool.counters.launches,
      capturesOnBrowser: pool.current?.captures ?? 0,
      totalCaptures: pool.counters.totalCaptures,
      killed: pool.counters.killed,
      crashes: pool.counters.crashes,
      browserPid: pool.current && !pool.current.dead ? pool.current.launched.pid : null,
    }),
  };
}

/**
 * One capture in a slot of the pool. It is answered as soon as the page is captured; its context closes after
 * that, beside the caller's bundling and storing, and the slot (and the browser's count of captures running) is
 * held until it has closed, so the browser work running at once stays within the limit.
 */
async function capture(pool: PoolState, url: string, captureOptions: PageCaptureOptions): Promise<PageCaptureResult> {
  if (pool.closed) throw poolClosed();
  await acquireSlot(pool);
  let closing: Promise<void> | undefined;
  const afterClosing = (release: () => void) => (closing ? void closing.then(release) : release());
  try {
    let instance: Instance;
    try {
      instance = await browserForCapture(pool);
    } catch (error) {
      if (error instanceof CaptureError) throw error;
      // Chromium's own words (e.g. "FATAL: Socket path too long") are in the cause, which the worker logs.
      throw new CaptureError('browser_crashed', 'The browser could not be started', true, { cause: error });
    }
    instance.captures++;
    instance.active++;
    pool.counters.totalCaptures++;
    // The page clock reads the browser's processes while a capture runs in it, until its context has closed.
    const pid = instance.launched.pid;
    const unwatch = pid !== null ? pool.hostLoad.watch(pid) : () => {};
    try {
      return await runCapture(pool, instance, url, { ...captureOptions, onClosing: (c) => (closing = c) });
    } finally {
      afterClosing(() => {
        unwatch();
        instance.active--;
        notifyIdle(instance);
      });
    }
  } finally {
    afterClosing(() => releaseSlot(pool));
  }
}

function setConcurrency(pool: PoolState, next: number): void {
  pool.limit = Math.max(1, Math.min(pool.options.concurrency, Math.floor(next)));
  // A raised limit lets queued captures start now; a lowered one takes effect as captures finish.
  while (pool.running < pool.limit && pool.queue.length > 0) {
    pool.running++;
    pool.queue.shift()!();
  }
}

async function closePool(pool: PoolState): Promise<void> {
  if (pool.closed) return;
  pool.closed = true;
  for (const controller of pool.activeCaptures) controller.abort(poolClosed());
  for (const wake of pool.queue.splice(0)) {
    pool.running++; // each woken waiter releases its slot again when it sees the pool is closed
    wake();
  }
  await pool.switching?.catch(() => {});
  if (pool.current) await retire(pool, pool.current);
  await (await pool.sink?.catch(() => undefined))?.close();
  if (!pool.options.hostLoad) pool.hostLoad.stop();
}

async function acquireSlot(pool: PoolState): Promise<void> {
  if (pool.running < pool.limit) {
    pool.running++;
    return;
  }
  await new Promise<void>((resolve) => pool.queue.push(resolve));
}

function releaseSlot(pool: PoolState): void {
  const next = pool.running <= pool.limit ? pool.queue.shift() : undefined;
  if (next)
    next(); // the slot passes straight to the next capture
  else pool.running--;
}

function notifyIdle(instance: Instance): void {
  if (instance.active > 0 && !instance.dead) return;
  for (const wake of instance.idleWaiters.splice(0)) wake();
}

/**
 * The capture's steps (and the libraries they use), imported with the first browser, while it starts: a worker
 * process does not compile them at start.
 */
let pageCaptureImport: Promise<typeof import('./page-capture.js')> | undefined;
const pageCaptureModule = () => (pageCaptureImport ??= import('./page-capture.js'));

async function launch(pool: PoolState): Promise<Instance> {
  pool.sink ??= startProxySink();
  const proxyServer = pool.options.proxyServer ? (await pool.sink).url : undefined;
  const [launched] = await Promise.all([
    launchChromium({ chromiumPath: pool.chromiumPath, proxyServer }),
    pageCaptureModule(),
  ]);
  pool.counters.launches++;
  const instance: Instance = { launched, captures: 0, active: 0, dead: false, idleWaiters: [] };
  launched.browser.on('disconnected', () => {
    if (!instance.dead) pool.counters.crashes++;
    instance.dead = true;
    notifyIdle(instance);
    void launched.close();
  });
  return instance;
}

async function retire(pool: PoolState, instance: Instance): Promise<void> {
  if (pool.current === instance) pool.current = undefined;
  instance.dead = true; // closing on purpose: not a crash
  notifyIdle(instance);
  await instance.launched.close();
}

async function browserForCapture(pool: PoolState): Promise<Instance> {
  for (;;) {
    if (pool.closed) throw poolClosed();
    const instance = pool.current;
    if (instance && !instance.dead && instance.captures < pool.maxCaptures) return instance;
    if (instance && !instance.dead && instance.active > 0) {
      // Used up: let its running captures finish before replacing it (no second browser meanwhile).
      await new Promise<void>((resolve) => instance.idleWaiters.push(resolve));
      continue;
    }
    pool.switching ??= (async () => {
      if (instance) await retire(pool, instance);
      if (pool.closed) return;
      pool.current = await launch(pool);
    })().finally(() => (pool.switching = undefined));
    await pool.switching;
  }
}

/** This capture's context (the spare if there is one) and, when more captures will come, the next spare. */
function takeContext(pool: PoolState, instance: Instance, proxyServer: string | undefined): Promise<PreparedContext> {
  const browser = instance.launched.browser;
  // A capture from a vantage point has its own egress proxy: a fresh context behind it, the spare kept.
  if (proxyServer !== undefined && proxyServer !== pool.options.proxyServer)
    return openCaptureContext(browser, proxyServer);
  const spare = instance.spare;
  instance.spare = undefined;
  // A spare that failed (its browser went away meanwhile) is replaced by a fresh attempt.
  const open = () => openCaptureContext(browser, pool.options.proxyServer);
  const prepared = spare ? spare.catch(open) : open();
  if (!instance.dead && instance.captures < pool.maxCaptures) {
    instance.spare = open();
    instance.spare.catch(() => {});
  }
  return prepared;
}

async function runCapture(
  pool: PoolState,
  instance: Instance,
  url: string,
  captureOptions: PageCaptureOptions,
): Promise<PageCaptureResult> {
  const controller = new AbortController();
  pool.activeCaptures.add(controller);
  const callerSignal = captureOptions.signal;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  if (callerSignal?.aborted) onCallerAbort();
  const finished = new AbortController();
  const overrun = watchOverrun(pool, instance, controller, captureOptions, finished.signal);
  try {
    const prepared = takeContext(pool, instance, captureOptions.proxyServer);
    prepared.catch(() => {}); // capturePage reports it
    const { capturePage } = await pageCaptureModule();
    return await Promise.race([
      capturePage(instance.launched.browser, url, {
        ...captureOptions,
        prepared,
        signal: controller.signal,
        clock: pool.clock,
      }),
      overrun.unwound,
    ]);
  } catch (error) {
    if (error instanceof CaptureError && error.code === 'browser_crashed') instance.dead = true;
    throw error;
  } finally {
    finished.abort();
    overrun.clear();
    callerSignal?.removeEventListener('abort', onCallerAbort);
    pool.activeCaptures.delete(controller);
  }
}

/**
 * The capture's two limits (its page time, and a wall-time safety net) abort it, so it unwinds the same way
 * whichever fires; a capture whose browser does not unwind within UNWIND_MS of its abort kills that browser
 * (`unwound` rejects then). Both limits stop once `finished` aborts; `clear` stops the unwind timer.
 */
function watchOverrun(
  pool: PoolState,
  instance: Instance,
  controller: AbortController,
  captureOptions: PageCaptureOptions,
  finished: AbortSignal,
): { unwound: Promise<never>; clear: () => void } {
  // The tenant's behaviors budget (options.behaviorTimeout) is time the capture is allowed on top.
  const limitMs = captureOptions.timeoutMs + pool.hungMs + (captureOptions.settings?.behaviorTimeoutMs ?? 0);
  let unwindTimer: NodeJS.Timeout | undefined;
  const overran = (reason: CaptureError) => () => {
    if (!controller.signal.aborted) {
      pool.counters.killed++;
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
    finished,
    pool.clock,
  ).catch(() => {});
  withTimeout(
    new Promise<never>(() => {}),
    limitMs * WALL_SAFETY_FACTOR,
    overran(new CaptureError('service_busy', 'The host was too busy to finish the capture; it will try again', true)),
    finished,
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
  return { unwound, clear: () => clearTimeout(unwindTimer) };
}

function poolClosed(): CaptureError {
  return new CaptureError(
    'service_busy',
    'The capture service is shutting down; the capture will be tried again',
    true,
  );
}
