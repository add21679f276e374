import { type PageClock, wallClock } from './host-load.js';

/**
 * Every step of a capture talks to a renderer that may hang (an endless script blocks evaluate and screenshot alike),
 * so each step is bounded (withTimeout, counted on the page clock: time the host kept the capture off the CPU does not
 * count, so a busy host makes a step slower, never failed) and also ends when the capture is aborted.
 */
export { abortReason, withTimeout } from '../infra/deadline.js';

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
