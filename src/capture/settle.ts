/**
 * The adaptive settle phase after `load` (spec 2.3 render.settleMs / settleReason, spec 8.3 "hard cap 3 s"):
 * wait until no request has been in flight for a quiet window, but never longer than the cap. Both are
 * counted from the load event itself (`startedAt`), not from the moment the caller got round to waiting:
 * a page that has been quiet since it loaded is idle one quiet window after its load event.
 */

/** Something that knows how many requests are in flight and says when that number changes. */
export interface InflightSource {
  inflight(): number;
  /** Registers a listener; returns a function that removes it. */
  onInflightChange(listener: () => void): () => void;
}

/** Several sources as one: in flight is the sum (e.g. the page's requests and its pending short timers). */
export function combinedInflight(...sources: InflightSource[]): InflightSource {
  return {
    inflight: () => sources.reduce((sum, source) => sum + source.inflight(), 0),
    onInflightChange(listener) {
      const removers = sources.map((source) => source.onInflightChange(listener));
      return () => {
        for (const remove of removers) remove();
      };
    },
  };
}

/**
 * Asked once nothing has been in flight for `windowMs` (shorter than the quiet window): whether the page is
 * quiet now in every other way too. `quiet: false` with `askAgainInMs` asks again then (while still quiet);
 * without it, the phase waits for the full quiet window as it would have without this.
 */
export interface EarlyQuiet {
  windowMs: number;
  check(): Promise<{ quiet: true } | { quiet: false; askAgainInMs?: number }>;
}

export interface SettleOptions {
  quietWindowMs: number;
  capMs: number;
  /** When the phase began (performance.now() of the load event); default: now. */
  startedAt?: number | undefined;
  /** When the network last went quiet (see watchNetworkActivity); counts towards the window from startedAt on. */
  quietSince?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Ends the phase before the full quiet window when the page says it is quiet (EarlyQuiet). */
  early?: EarlyQuiet | undefined;
}

export interface SettleResult {
  reason: 'idle' | 'cap';
  /** From startedAt to the end of the phase. */
  elapsedMs: number;
  /** The phase ended after the early window, the page being quiet (EarlyQuiet). */
  early?: true;
}

export function waitForNetworkQuiet(source: InflightSource, options: SettleOptions): Promise<SettleResult> {
  const { quietWindowMs, capMs, signal, early } = options;
  const now = performance.now();
  const startedAt = Math.min(options.startedAt ?? now, now);
  // Quiet time before startedAt does not count: the window is a post-load window.
  let quietAlready = options.quietSince === undefined ? 0 : now - Math.max(startedAt, options.quietSince);
  return new Promise<SettleResult>((resolve) => {
    let quietTimer: NodeJS.Timeout | undefined;
    let earlyTimer: NodeJS.Timeout | undefined;
    /** Counts the quiet stretches: an early check's answer about an earlier one is dropped. */
    let stretch = 0;
    let done = false;

    const finish = (reason: SettleResult['reason'], endedEarly = false) => {
      if (done) return;
      done = true;
      clearTimeout(quietTimer);
      clearTimeout(earlyTimer);
      clearTimeout(capTimer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      resolve({
        reason,
        elapsedMs: Math.round(performance.now() - startedAt),
        ...(endedEarly ? { early: true as const } : {}),
      });
    };
    // An aborted capture ends the wait at once; the caller notices the abort itself.
    const onAbort = () => finish('cap');

    // The event loop's timers may fire up to a millisecond before performance.now() says the delay is over;
    // the window is a lower bound, so a timer that fired early waits out the rest.
    const idleWhenWindowPassed = (quietFrom: number) => {
      const left = quietWindowMs - (performance.now() - quietFrom);
      if (left <= 0) finish('idle');
      else quietTimer = setTimeout(() => idleWhenWindowPassed(quietFrom), Math.ceil(left));
    };
    // The early window, then the page's own answer.
    const askWhenEarlyPassed = (mine: number, quietFrom: number) => {
      if (!early || mine !== stretch || done) return;
      const left = early.windowMs - (performance.now() - quietFrom);
      if (left > 0) {
        earlyTimer = setTimeout(() => askWhenEarlyPassed(mine, quietFrom), Math.ceil(left));
        return;
      }
      early.check().then(
        (answer) => {
          if (mine !== stretch || done) return;
          if (answer.quiet) finish('idle', true);
          else if (answer.askAgainInMs !== undefined)
            earlyTimer = setTimeout(
              () => askWhenEarlyPassed(mine, quietFrom),
              Math.max(1, Math.ceil(answer.askAgainInMs)),
            );
        },
        () => {}, // a page that cannot answer gets the full window
      );
    };
    const update = () => {
      if (source.inflight() > 0) {
        clearTimeout(quietTimer);
        clearTimeout(earlyTimer);
        quietTimer = undefined;
        quietAlready = 0;
        stretch++;
      } else if (quietTimer === undefined) {
        const quietFrom = performance.now() - quietAlready;
        quietTimer = setTimeout(
          () => idleWhenWindowPassed(quietFrom),
          Math.max(0, Math.ceil(quietWindowMs - quietAlready)),
        );
        if (early && early.windowMs < quietWindowMs) askWhenEarlyPassed(++stretch, quietFrom);
        quietAlready = 0;
      }
    };

    const capTimer = setTimeout(() => finish('cap'), Math.max(0, capMs - (now - startedAt)));
    const unsubscribe = source.onInflightChange(update);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) return onAbort();
    update();
  });
}

/** Remembers when requests were last in flight, so a later wait can count the quiet time already passed. */
export interface NetworkActivity {
  /** performance.now() since which nothing has been in flight; undefined while something is. */
  quietSince(): number | undefined;
  /** performance.now() of the last moment something was in flight (the start of watching if never). */
  lastActiveAt(): number;
  stop(): void;
}

export function watchNetworkActivity(source: InflightSource): NetworkActivity {
  let lastActive = performance.now();
  const stop = source.onInflightChange(() => {
    lastActive = performance.now();
  });
  return {
    quietSince: () => (source.inflight() > 0 ? undefined : lastActive),
    lastActiveAt: () => (source.inflight() > 0 ? performance.now() : lastActive),
    stop,
  };
}
