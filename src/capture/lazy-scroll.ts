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
const SCROLL_THROUGH = `(async (budgetMs, maxFrameWaitMs, maxSteps) => {
  const startedAt = performance.now();
  const scroller = document.scrollingElement || document.documentElement;
  const bottom = () => Math.max(0, scroller.scrollHeight - window.innerHeight);
  if (bottom() === 0) return { reachedY: 0, reachedBottom: true, steps: 0 };
  const twoFrames = () => new Promise((resolve) => {
    requestAnimationFrame(() => requestAnimationFrame(resolve));
    setTimeout(resolve, maxFrameWaitMs);
  });
  const step = Math.max(window.innerHeight, Math.ceil(bottom() / maxSteps));
  let y = 0;
  let steps = 0;
  while (performance.now() - startedAt < budgetMs && y < bottom()) {
    y = Math.min(y + step, bottom());
    window.scrollTo({ top: y, left: 0, behavior: 'instant' });
    steps++;
    await twoFrames();
  }
  const reachedBottom = y >= bottom();
  window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
  return { reachedY: y, reachedBottom, steps };
})`;

export async function scrollThroughPage(
  session: CDPSession,
  options: { mainFrameId: string; budgetMs: number; maxFrameWaitMs?: number },
): Promise<ScrollOutcome> {
  const { executionContextId } = await session.send('Page.createIsolatedWorld', {
    frameId: options.mainFrameId,
    worldName: 'capture-ledger-scroll',
  });
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
    contextId: executionContextId,
    expression: `${SCROLL_THROUGH}(${options.budgetMs}, ${options.maxFrameWaitMs ?? 100}, ${MAX_STEPS})`,
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`scrolling failed: ${exceptionDetails.text}`);
  return result.value as ScrollOutcome;
}
