/**
 * When a scripted page's settle phase may end before its full quiet window (settle.ts, `early`). The 500 ms
 * window is there for work the service cannot see coming: a script that starts something after a pause. The
 * pauses a script can take are watched (pending-timers.ts: its timers, intervals, animation frames and idle
 * callbacks, and when any of them last ran; the recorder: its requests), so a page on which none is pending,
 * none has run for EARLY_QUIET_WINDOW_MS, no request has been in flight for as long, and nothing else can
 * wake it — no frame, worker, web socket, media element, self-refresh or running animation — is settled
 * then. Any of those, or a page that cannot be asked, keeps the full window.
 *
 * Asked in the behaviors' isolated world (the page's own globals cannot answer for it) over the main frame's DOM.
 */
import type { Page } from 'puppeteer-core';
import type { PageWorld } from './behaviors/page-world.js';
import type { PendingTimers } from './pending-timers.js';
import type { EarlyQuiet } from './settle.js';

export const EARLY_QUIET_WINDOW_MS = 200;
/**
 * The page is asked in a task of its renderer's main thread, after the tasks queued before it: an answer slower
 * than this says the renderer was busy (a script running, or a host that starved it), and it is asked again.
 */
const BUSY_ANSWER_MS = 50;

/** What settle.ts asks, and the reason of the latest answer that kept the full window. */
export interface EarlyQuietCheck extends EarlyQuiet {
  /** Why the page was not quiet when last asked; undefined when it was (or never asked). */
  because(): string | undefined;
}

// Page-side code as plain text (see behaviors/auto-scroll.ts). Returns why the page may still change by itself, or null.
const WHY_NOT_QUIET = `(() => {
  const d = document;
  if (d.querySelector('iframe, frame, object, embed')) return 'it has frames or embedded objects';
  if (d.querySelector('video, audio')) return 'it has media';
  if (d.querySelector('meta[http-equiv="refresh" i]')) return 'it refreshes itself';
  if (typeof d.getAnimations === 'function' && d.getAnimations().some((a) => a.playState === 'running'))
    return 'it has running animations';
  const svg = 'http://www.w3.org/2000/svg';
  for (const name of ['animate', 'animateMotion', 'animateTransform', 'set'])
    if (d.getElementsByTagNameNS(svg, name).length > 0) return 'it has SVG animations';
  return null;
})()`;

export function earlyQuietCheck(input: {
  page: Page;
  timers: PendingTimers;
  /** Web sockets the page opened (Network.webSocketCreated). */
  webSockets: () => number;
  world: PageWorld;
}): EarlyQuietCheck {
  const { page, timers, world } = input;
  let because: string | undefined;
  const notQuiet = (reason: string, askAgainInMs?: number) => {
    because = reason;
    return askAgainInMs === undefined ? { quiet: false as const } : { quiet: false as const, askAgainInMs };
  };
  return {
    windowMs: EARLY_QUIET_WINDOW_MS,
    because: () => because,
    async check() {
      if (timers.intervals() > 0) return notQuiet('it has intervals set');
      const sinceScript = performance.now() - timers.lastScriptAt();
      if (sinceScript < EARLY_QUIET_WINDOW_MS)
        return notQuiet('its scripts kept running', EARLY_QUIET_WINDOW_MS - sinceScript);
      if (page.frames().length > 1) return notQuiet('it has frames');
      if (page.workers().length > 0) return notQuiet('it has workers');
      if (input.webSockets() > 0) return notQuiet('it has web sockets');
      const asked = performance.now();
      const found = await world<string | null>(WHY_NOT_QUIET);
      if (found !== null) return notQuiet(found);
      if (performance.now() - asked > BUSY_ANSWER_MS) return notQuiet('its renderer was busy', 1);
      // A callback that ran while the page was asked.
      if (performance.now() - timers.lastScriptAt() < EARLY_QUIET_WINDOW_MS)
        return notQuiet('its scripts kept running', 1);
      because = undefined;
      return { quiet: true };
    },
  };
}
