/**
 * Counts the page's pending short timers, so the settle phase's quiet window also waits for work a page
 * scheduled shortly after load (`setTimeout(() => fetch(…), 1500)` in a load handler: no request is in
 * flight until the timer fires, and a network-only quiet window ends first). Still bounded by the settle cap.
 *
 * A script evaluated in every new document of the page's target wraps setTimeout / clearTimeout in the
 * page's own world (the timers to watch are the page's); it reports the number of pending timers through a
 * CDP binding that it removes from `window` before any page script runs. Only timers due within
 * `maxDelayMs` count, and a timer scheduled from a timer's callback counts for two generations only: a
 * polling chain (`setTimeout(poll, 100)` re-armed forever) must not hold every capture to the cap.
 */
import type { CDPSession } from 'puppeteer-core';
import { reportFromEveryDocument } from './document-reports.js';
import type { InflightSource } from './settle.js';

const BINDING_NAME = '__captureLedgerTimers';
const MAX_GENERATION = 2;

export interface PendingTimers extends InflightSource {
  dispose(): Promise<void>;
}

// Plain text for the page (see behaviors/auto-scroll.ts on serialised functions).
const TIMER_WATCH = `((bindingName, maxDelayMs, maxGeneration) => {
  const report = window[bindingName];
  if (typeof report !== 'function') return;
  try { delete window[bindingName]; } catch {}
  const pending = new Map();
  let generation = 0;
  let last = -1;
  const send = () => {
    if (pending.size === last) return;
    last = pending.size;
    try { report(String(pending.size)); } catch {}
  };
  const nativeSet = window.setTimeout;
  const nativeClear = window.clearTimeout;
  const wrappedSet = function setTimeout(handler, delay, ...args) {
    const ms = Number(delay) || 0;
    if (typeof handler !== 'function' || ms > maxDelayMs || generation >= maxGeneration) {
      return nativeSet.call(this, handler, delay, ...args);
    }
    const mine = generation + 1;
    const id = nativeSet.call(this, function (...callArgs) {
      pending.delete(id);
      const outer = generation;
      generation = mine;
      try {
        return handler.apply(this, callArgs);
      } finally {
        generation = outer;
        send();
      }
    }, delay, ...args);
    pending.set(id, mine);
    send();
    return id;
  };
  const wrappedClear = function clearTimeout(id) {
    if (pending.delete(id)) send();
    return nativeClear.call(this, id);
  };
  const nativeText = Function.prototype.toString.call(nativeSet);
  Object.defineProperty(wrappedSet, 'toString', { value: () => nativeText });
  Object.defineProperty(wrappedClear, 'toString', { value: () => Function.prototype.toString.call(nativeClear) });
  window.setTimeout = wrappedSet;
  window.clearTimeout = wrappedClear;
})`;

/** Installs the watch for documents loaded from now on; call before navigating. */
export async function watchPendingTimers(session: CDPSession, options: { maxDelayMs: number }): Promise<PendingTimers> {
  // Per execution context (the main frame and same-process frames each have their own timers).
  const counts = new Map<number, number>();
  const listeners = new Set<() => void>();
  let total = 0;
  const recount = () => {
    const next = [...counts.values()].reduce((a, b) => a + b, 0);
    if (next === total) return;
    total = next;
    for (const listener of listeners) listener();
  };
  const reports = await reportFromEveryDocument(session, {
    bindingName: BINDING_NAME,
    source: `${TIMER_WATCH}(${JSON.stringify(BINDING_NAME)}, ${Math.max(0, Math.floor(options.maxDelayMs))}, ${MAX_GENERATION});`,
    onReport(contextId, payload) {
      const count = Number(payload);
      if (!Number.isInteger(count) || count < 0) return;
      if (count === 0) counts.delete(contextId);
      else counts.set(contextId, count);
      recount();
    },
    onContextGone(contextId) {
      if (contextId === null) counts.clear();
      else if (!counts.delete(contextId)) return;
      recount();
    },
  });
  return {
    inflight: () => total,
    onInflightChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async dispose() {
      listeners.clear();
      await reports.dispose();
    },
  };
}
