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
 *
 * The same script says when the page's own scripts last ran from a timer, an interval, an animation frame or an
 * idle callback (`lastScriptAt`: reported at most every ACTIVITY_REPORT_MS while they keep running) and how many
 * intervals due within `maxDelayMs` are set (`intervals`): what the settle phase asks before it ends early on a
 * scripted page (settle.ts, `early`). And it says whether the page's scripts watch scrolling (`watchesScroll`: a
 * scroll, wheel or touchmove listener or handler, or an IntersectionObserver): on a page whose scripts do not, and
 * on which nothing is lazy (static-document.ts), scrolling through loads nothing.
 */
import type { CDPSession } from 'puppeteer-core';
import { reportFromEveryDocument } from './document-reports.js';
import type { InflightSource } from './settle.js';

const BINDING_NAME = '__captureLedgerTimers';
const MAX_GENERATION = 2;
/** While the page's callbacks keep running, the script says so at most this often. */
export const ACTIVITY_REPORT_MS = 50;

export interface PendingTimers extends InflightSource {
  /** performance.now() when a callback of the page's last ran (within ACTIVITY_REPORT_MS); -Infinity if none has. */
  lastScriptAt(): number;
  /** Intervals due within `maxDelayMs` that the page has set and not cleared. */
  intervals(): number;
  /** The page's scripts have listened for scrolling or made an IntersectionObserver. */
  watchesScroll(): boolean;
  dispose(): Promise<void>;
}

// Plain text for the page (see behaviors/auto-scroll.ts on serialised functions).
const TIMER_WATCH = `((bindingName, maxDelayMs, maxGeneration, activityReportMs) => {
  const report = window[bindingName];
  if (typeof report !== 'function') return;
  try { delete window[bindingName]; } catch {}
  const now = performance.now.bind(performance);
  const pending = new Map();
  const intervals = new Set();
  let generation = 0;
  let last = -1;
  let lastIntervals = 0;
  let lastActive = -Infinity;
  const send = () => {
    if (pending.size === last) return;
    last = pending.size;
    try { report(String(pending.size)); } catch {}
  };
  const sendIntervals = () => {
    if (intervals.size === lastIntervals) return;
    lastIntervals = intervals.size;
    try { report('i' + intervals.size); } catch {}
  };
  let scrollWatched = false;
  const watchesScroll = () => {
    if (scrollWatched) return;
    scrollWatched = true;
    try { report('s'); } catch {}
  };
  const active = () => {
    const at = now();
    if (at - lastActive < activityReportMs) return;
    lastActive = at;
    try { report('a'); } catch {}
  };
  const reporting = (handler) => function (...callArgs) {
    active();
    return handler.apply(this, callArgs);
  };
  const nativeSet = window.setTimeout;
  const nativeClear = window.clearTimeout;
  const nativeSetInterval = window.setInterval;
  const nativeClearInterval = window.clearInterval;
  const nativeFrame = window.requestAnimationFrame;
  const nativeIdle = window.requestIdleCallback;
  const cleared = (id) => {
    if (pending.delete(id)) send();
    if (intervals.delete(id)) sendIntervals();
  };
  const wrappedSet = function setTimeout(handler, delay, ...args) {
    const ms = Number(delay) || 0;
    if (typeof handler !== 'function') return nativeSet.call(this, handler, delay, ...args);
    if (ms > maxDelayMs || generation >= maxGeneration) {
      return nativeSet.call(this, reporting(handler), delay, ...args);
    }
    const mine = generation + 1;
    const id = nativeSet.call(this, function (...callArgs) {
      pending.delete(id);
      active();
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
    cleared(id);
    return nativeClear.call(this, id);
  };
  const wrappedSetInterval = function setInterval(handler, delay, ...args) {
    if (typeof handler !== 'function') return nativeSetInterval.call(this, handler, delay, ...args);
    const id = nativeSetInterval.call(this, reporting(handler), delay, ...args);
    if ((Number(delay) || 0) <= maxDelayMs) {
      intervals.add(id);
      sendIntervals();
    }
    return id;
  };
  const wrappedClearInterval = function clearInterval(id) {
    cleared(id);
    return nativeClearInterval.call(this, id);
  };
  const wrappedFrame = function requestAnimationFrame(callback) {
    if (typeof callback !== 'function') return nativeFrame.call(this, callback);
    active();
    return nativeFrame.call(this, reporting(callback));
  };
  const wrappedIdle = function requestIdleCallback(callback, ...args) {
    if (typeof callback !== 'function') return nativeIdle.call(this, callback, ...args);
    active();
    return nativeIdle.call(this, reporting(callback), ...args);
  };
  // A wrapper answers as the native function does: its source text, and its length (the parameters WebIDL
  // counts: addEventListener 2, setTimeout 1, clearTimeout 0), which its own parameter list does not give.
  const looksNative = (wrapped, native) => {
    Object.defineProperty(wrapped, 'toString', { value: () => Function.prototype.toString.call(native) });
    Object.defineProperty(wrapped, 'length', { value: native.length });
  };
  looksNative(wrappedSet, nativeSet);
  looksNative(wrappedClear, nativeClear);
  looksNative(wrappedSetInterval, nativeSetInterval);
  looksNative(wrappedClearInterval, nativeClearInterval);
  window.setTimeout = wrappedSet;
  window.clearTimeout = wrappedClear;
  window.setInterval = wrappedSetInterval;
  window.clearInterval = wrappedClearInterval;
  if (typeof nativeFrame === 'function') {
    looksNative(wrappedFrame, nativeFrame);
    window.requestAnimationFrame = wrappedFrame;
  }
  if (typeof nativeIdle === 'function') {
    looksNative(wrappedIdle, nativeIdle);
    window.requestIdleCallback = wrappedIdle;
  }
  const scrollEvents = new Set(['scroll', 'scrollend', 'wheel', 'mousewheel', 'touchmove']);
  const nativeAdd = EventTarget.prototype.addEventListener;
  const wrappedAdd = function addEventListener(type, ...rest) {
    if (scrollEvents.has(type)) watchesScroll();
    return nativeAdd.call(this, type, ...rest);
  };
  looksNative(wrappedAdd, nativeAdd);
  EventTarget.prototype.addEventListener = wrappedAdd;
  for (const owner of [window, Window.prototype, Document.prototype, HTMLElement.prototype, HTMLBodyElement.prototype, SVGElement.prototype]) {
    for (const name of ['onscroll', 'onscrollend', 'onwheel', 'onmousewheel', 'ontouchmove']) {
      const d = Object.getOwnPropertyDescriptor(owner, name);
      if (!d || typeof d.set !== 'function' || !d.configurable) continue;
      const nativeSetter = d.set;
      Object.defineProperty(owner, name, { ...d, set: function (value) {
        if (value) watchesScroll();
        return nativeSetter.call(this, value);
      } });
    }
  }
  const NativeObserver = window.IntersectionObserver;
  if (typeof NativeObserver === 'function') {
    window.IntersectionObserver = new Proxy(NativeObserver, {
      construct(target, args, newTarget) {
        watchesScroll();
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
})`;

/** Installs the watch for documents loaded from now on; call before navigating. */
export async function watchPendingTimers(session: CDPSession, options: { maxDelayMs: number }): Promise<PendingTimers> {
  // Per execution context (the main frame and same-process frames each have their own timers).
  const counts = new Map<number, number>();
  const intervalCounts = new Map<number, number>();
  const listeners = new Set<() => void>();
  let total = 0;
  let lastScriptAt = Number.NEGATIVE_INFINITY;
  let watchesScroll = false;
  const recount = () => {
    const next = [...counts.values()].reduce((a, b) => a + b, 0);
    if (next === total) return;
    total = next;
    for (const listener of listeners) listener();
  };
  const setCount = (map: Map<number, number>, contextId: number, count: number) => {
    if (count === 0) map.delete(contextId);
    else map.set(contextId, count);
  };
  const reports = await reportFromEveryDocument(session, {
    bindingName: BINDING_NAME,
    source: `${TIMER_WATCH}(${JSON.stringify(BINDING_NAME)}, ${Math.max(0, Math.floor(options.maxDelayMs))}, ${MAX_GENERATION}, ${ACTIVITY_REPORT_MS});`,
    onReport(contextId, payload) {
      if (payload === 'a') {
        lastScriptAt = performance.now();
        return;
      }
      if (payload === 's') {
        watchesScroll = true;
        return;
      }
      const isIntervals = payload.startsWith('i');
      const count = Number(isIntervals ? payload.slice(1) : payload);
      if (!Number.isInteger(count) || count < 0) return;
      if (isIntervals) return setCount(intervalCounts, contextId, count);
      setCount(counts, contextId, count);
      recount();
    },
    onContextGone(contextId) {
      if (contextId === null) intervalCounts.clear();
      else intervalCounts.delete(contextId);
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
    lastScriptAt: () => lastScriptAt,
    intervals: () => [...intervalCounts.values()].reduce((a, b) => a + b, 0),
    watchesScroll: () => watchesScroll,
    async dispose() {
      listeners.clear();
      await reports.dispose();
    },
  };
}
