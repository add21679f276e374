/** Milliseconds on a monotonic clock. */
export interface ElapsedClock {
  now(): number;
}

export const wallClock: ElapsedClock = { now: () => performance.now() };

/**
 * `work`, or `onTimeout()`'s error once `ms` have passed on `clock`, or the abort reason once `signal` aborts: the one
 * bound on a promise in the service. `clock` defaults to the wall clock; a capture's steps count on its page clock
 * (capture/host-load.ts), which stands still while the host keeps the capture off the CPU.
 */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  signal?: AbortSignal,
  clock: ElapsedClock = wallClock,
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

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
