/**
 * Scrolls through the page before the screenshot so lazy images and infinite-scroll sections load, within
 * a time budget, then returns to the top. Runs in an isolated world so the page's own scripts cannot
 * replace scrollTo or setTimeout under it.
 */
import type { CDPSession } from 'puppeteer-core';

export interface ScrollOutcome {
  /** Lowest scroll position reached, in CSS px. */
  reachedY: number;
  reachedBottom: boolean;
}

const MAX_STEPS = 20;

// Page-side code as plain text: a serialised TS function would carry whatever helpers the compiler or
// tsx injects (e.g. esbuild's __name), which do not exist in the page.
const SCROLL_THROUGH = `(async (budgetMs, pauseMs, maxSteps) => {
  const startedAt = performance.now();
  const scroller = document.scrollingElement || document.documentElement;
  const bottom = () => Math.max(0, scroller.scrollHeight - window.innerHeight);
  const step = Math.max(window.innerHeight, Math.ceil(bottom() / maxSteps));
  let y = 0;
  while (performance.now() - startedAt < budgetMs && y < bottom()) {
    y = Math.min(y + step, bottom());
    window.scrollTo({ top: y, left: 0, behavior: 'instant' });
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  const reachedBottom = y >= bottom();
  window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
  return { reachedY: y, reachedBottom };
})`;

export async function scrollThroughPage(
  session: CDPSession,
  options: { mainFrameId: string; budgetMs: number; pauseMs?: number },
): Promise<ScrollOutcome> {
  const { executionContextId } = await session.send('Page.createIsolatedWorld', {
    frameId: options.mainFrameId,
    worldName: 'capture-ledger-scroll',
  });
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
    contextId: executionContextId,
    expression: `${SCROLL_THROUGH}(${options.budgetMs}, ${options.pauseMs ?? 60}, ${MAX_STEPS})`,
    awaitPromise: true,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(`scrolling failed: ${exceptionDetails.text}`);
  return result.value as ScrollOutcome;
}
