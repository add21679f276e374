/**
 * The adaptive settle phase after `load` (spec 2.3 render.settleMs / settleReason, spec 8.3 "hard cap 3 s"):
 * wait until no request has been in flight for a quiet window, but never longer than the cap.
 */

/** Something that knows how many requests are in flight and says when that number changes. */
export interface InflightSource {
  inflight(): number;
  /** Registers a listener; returns a function that removes it. */
  onInflightChange(listener: () => void): () => void;
}

export interface SettleOptions {
  quietWindowMs: number;
  capMs: number;
  signal?: AbortSignal | undefined;
}

export interface SettleResult {
  reason: 'idle' | 'cap';
  elapsedMs: number;
}

export function waitForNetworkQuiet(source: InflightSource, options: SettleOptions): Promise<SettleResult> {
  const { quietWindowMs, capMs, signal } = options;
  const startedAt = performance.now();
  return new Promise<SettleResult>((resolve) => {
    let quietTimer: NodeJS.Timeout | undefined;
    let done = false;

    const finish = (reason: SettleResult['reason']) => {
      if (done) return;
      done = true;
      clearTimeout(quietTimer);
      clearTimeout(capTimer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      resolve({ reason, elapsedMs: Math.round(performance.now() - startedAt) });
    };
    // An aborted capture ends the wait at once; the caller notices the abort itself.
    const onAbort = () => finish('cap');

    const update = () => {
      if (source.inflight() > 0) {
        clearTimeout(quietTimer);
        quietTimer = undefined;
      } else if (quietTimer === undefined) {
        quietTimer = setTimeout(() => finish('idle'), quietWindowMs);
      }
    };

    const capTimer = setTimeout(() => finish('cap'), capMs);
    const unsubscribe = source.onInflightChange(update);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) return onAbort();
    update();
  });
}
