/**
 * Every step of a capture talks to a renderer that may hang (an endless script blocks evaluate and
 * screenshot alike), so each step is bounded and also ends when the capture is aborted.
 */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  signal?: AbortSignal,
): Promise<T> {
  work.catch(() => {}); // the loser of the race must not become an unhandled rejection
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => settle(() => reject(onTimeout())), ms);
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
