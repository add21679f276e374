import { type PageClock, wallClock } from './host-load.js';

/**
 * Every step of a capture talks to a renderer that may hang (an endless script blocks evaluate and
 * screenshot alike), so each step is bounded and also ends when the capture is aborted. The bound is
 * counted on `clock`: on the page clock (host-load.ts) time the host kept the capture off the CPU does
 * not count, so a busy host makes a step slower, never failed.
 */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  signal?: AbortSignal,
  clock: PageClock = wallClock,
): Promise<T> {
  work.catch(() => {}); // the loser of the race must not become an unhandled rejection
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const startedAt = clock.now();
    let timer: NodeJS.Timeout | undefined;
    // Page time never runs faster than the wall clock, so waiting for what is left and checking again
    // fires exactly when the bound is reached.
    const check = () => {
      const left = ms - (clock.now() - startedAt);
      if (left <= 0) settle(() => reject(onTimeout()));
      else timer = setTimeout(check, Math.max(left, 10));
    };
    timer = setTimeout(check, ms);
    const onAbort = () => settle(() => reject(abortReason(signal!)));
    signal?.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    function settle(action: () => void) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      action();
    }
    work.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

/** Calls `fire` once `ms` have passed on `clock`; answers a function that cancels it. */
export function pageTimer(ms: number, fire: () => void, clock: PageClock = wallClock): () => void {
  const startedAt = clock.now();
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const left = ms - (clock.now() - startedAt);
    if (left <= 0) fire();
    else timer = setTimeout(check, Math.max(left, 10));
  };
  timer = setTimeout(check, ms);
  return () => clearTimeout(timer);
}

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
