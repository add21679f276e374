/**
 * Scrolls through the page before the screenshot so lazy images and infinite-scroll sections load, within
 * a time budget, then returns to the top. Runs in an isolated world so the page's own scripts cannot
 * replace scrollTo or setTimeout under it.
 *
 * Each step waits for two rendered frames rather than a fixed pause: lazy loading (native `loading=lazy`
 * and IntersectionObserver alike) is decided in the frame's rendering step, so two frames are exactly what
 * a position needs, and a page that fits the viewport is not scrolled at all.
 */
import type { CDPSession } from 'puppeteer-core';
import { waitForNetworkQuiet, type InflightSource } from './settle.js';

export interface ScrollOutcome {
  /** Lowest scroll position reached, in CSS px. */
  reachedY: number;
  reachedBottom: boolean;
  /** Scroll positions visited; 0 when the page fits the viewport. */
  steps: number;
}

const MAX_STEPS = 20;

// Page-side code as plain text: a serialised TS function would carry whatever helpers the compiler or
// tsx injects (e.g. esbuild's __name), which do not exist in the page.
// The timer bounds a step when frames are not being produced (a hidden or stalled page).
const SCROLL_THROUGH = `(async (budgetMs, maxFrameWaitMs, maxSteps, fromY, backToTop) => {
  const startedAt = performance.now();
  const scroller = document.scrollingElement || document.documentElement;
  const bottom = () => Math.max(0, scroller.scrollHeight - window.innerHeight);
  if (bottom() === 0) {
    if (backToTop) window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
    return { reachedY: 0, reachedBottom: true, steps: 0 };
  }
  const twoFrames = () => new Promise((resolve) => {
    requestAnimationFrame(() => requestAnimationFrame(resolve));
    setTimeout(resolve, maxFrameWaitMs);
  });
  const step = Math.max(window.innerHeight, Math.ceil(bottom() / maxSteps));
  let y = Math.min(fromY, bottom());
  let steps = 0;
  while (performance.now() - startedAt < budgetMs && y < bottom()) {
    y = Math.min(y + step, bottom());
    window.scrollTo({ top: y, left: 0, behavior: 'instant' });
    steps++;
    await twoFrames();
  }
  const reachedBottom = y >= bottom();
  if (backToTop) window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
  return { reachedY: y, reachedBottom, steps };
})`;

/** How far down the page can be scrolled now (CSS px). */
const BOTTOM =
  '(() => { const s = document.scrollingElement || document.documentElement; return Math.max(0, s.scrollHeight - window.innerHeight); })()';

export async function scrollThroughPage(
  session: CDPSession,
  options: { mainFrameId: string; budgetMs: number; maxFrameWaitMs?: number; fromY?: number; backToTop?: boolean },
): Promise<ScrollOutcome> {
  const contextId = await scrollWorld(session, options.mainFrameId);
  const args = [
    options.budgetMs,
    options.maxFrameWaitMs ?? 100,
    MAX_STEPS,
    options.fromY ?? 0,
    options.backToTop ?? true,
  ];
  return (await evaluate(session, contextId, `${SCROLL_THROUGH}(${args.join(', ')})`)) as ScrollOutcome;
}

export interface GrowingScrollOutcome extends ScrollOutcome {
  /** Passes after the first one, each started because the page grew while the scroll waited at the bottom. */
  growthRounds: number;
  /** True when the page was still growing when the growth budget or the round limit ended the scroll. */
  stillGrowing: boolean;
}

/** An infinite-scroll page gets this many more passes at most (and SCROLL_GROWTH_BUDGET_MS in all). */
export const MAX_GROWTH_ROUNDS = 8;
export const SCROLL_GROWTH_BUDGET_MS = 6000;
const AT_BOTTOM_QUIET = { quietWindowMs: 300, capMs: 1500 };

/**
 * Scrolls through the page; then, at the bottom, waits for what reaching it started (an infinite-scroll
 * page fetches its next batch when its sentinel comes into view) and scrolls on through what was added,
 * again and again while the page grows, within SCROLL_GROWTH_BUDGET_MS and MAX_GROWTH_ROUNDS. A page that
 * does not grow costs one short quiet window at the bottom. Ends back at the top.
 */
export async function scrollWhileGrowing(
  session: CDPSession,
  options: { mainFrameId: string; budgetMs: number; pending: InflightSource; signal?: AbortSignal },
): Promise<GrowingScrollOutcome> {
  const contextId = await scrollWorld(session, options.mainFrameId);
  const pass = async (budgetMs: number, fromY: number) =>
    (await evaluate(
      session,
      contextId,
      `${SCROLL_THROUGH}(${budgetMs}, 100, ${MAX_STEPS}, ${fromY}, false)`,
    )) as ScrollOutcome;
  const bottom = async () => Number(await evaluate(session, contextId, BOTTOM));
  let outcome = await pass(options.budgetMs, 0);
  let steps = outcome.steps;
  let growthRounds = 0;
  let stillGrowing = false;
  const growthStart = performance.now();
  try {
    if (outcome.steps === 0) return { ...outcome, growthRounds, stillGrowing };
    while (outcome.reachedBottom && !options.signal?.aborted) {
      const left = SCROLL_GROWTH_BUDGET_MS - (performance.now() - growthStart);
      await waitForNetworkQuiet(options.pending, {
        quietWindowMs: AT_BOTTOM_QUIET.quietWindowMs,
        capMs: Math.max(AT_BOTTOM_QUIET.quietWindowMs, Math.min(AT_BOTTOM_QUIET.capMs, left)),
        signal: options.signal,
      });
      // Grown: the page now reaches below where the pass stopped at its bottom.
      if ((await bottom()) <= outcome.reachedY) break;
      const remaining = SCROLL_GROWTH_BUDGET_MS - (performance.now() - growthStart);
      if (growthRounds >= MAX_GROWTH_ROUNDS || remaining <= 0) {
        stillGrowing = true;
        break;
      }
      growthRounds++;
      outcome = await pass(remaining, outcome.reachedY);
      steps += outcome.steps;
    }
    return { ...outcome, steps, growthRounds, stillGrowing };
  } finally {
    await evaluate(session, contextId, "window.scrollTo({ top: 0, left: 0, behavior: 'instant' })").catch(() => {});
  }
}

async function scrollWorld(session: CDPSession, frameId: string): Promise<number> {
  const { executionContextId } = await session.send('Page.createIsolatedWorld', {
    frameId,
    worldName: 'capture-ledger-scroll',
  });
  return executionContextId;
}

async function evaluate(session: CDPSession, contextId: number, expression: string): Promise<unknown> {
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
    contextId,
    expression,
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`scrolling failed: ${exceptionDetails.text}`);
  return result.value;
}
