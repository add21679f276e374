/**
 * auto-scroll: scrolls through the page so lazy images and infinite-scroll sections load, then returns to the
 * top. At the bottom it waits for what reaching it started (an infinite feed fetches its next batch when its
 * sentinel comes into view) and scrolls on through what was added, while the page grows, until the behaviors'
 * budget runs out or the page is taller than the screenshot can show; a page that never ends is captured then,
 * with a note. Runs in the behaviors' isolated world, so the page's own scripts cannot replace scrollTo or
 * setTimeout under it.
 *
 * Each step waits for two rendered frames rather than a fixed pause: lazy loading (native `loading=lazy`
 * and IntersectionObserver alike) is decided in the frame's rendering step, so two frames are exactly what
 * a position needs, and a page that fits the viewport is not scrolled at all (one evaluation), nor is a page
 * on which nothing waits to be scrolled to (static-document.ts: nothing lazy, and no script of the page watches
 * scrolling; steps/behaviors.ts scrolls it after all if one starts to before the page has settled). The wait for quiet at the bottom is only
 * for what the pass set off: a page on which scrolling started no request and no short timer is scrolled
 * through once and asked, two rendered frames after it reached the bottom, whether it grew (`loaded: false`,
 * `waitedMs: 0`).
 */
import { waitForNetworkQuiet } from '../settle.js';
import type { Behavior, BehaviorContext, BehaviorFindings } from './behavior.js';

interface ScrollOutcome {
  /** Lowest scroll position reached, in CSS px. */
  reachedY: number;
  reachedBottom: boolean;
  /** Scroll positions visited; 0 when the page fits the viewport. */
  steps: number;
}

const MAX_STEPS = 20;
/** One pass through the page as it is at load gets at most this long. */
const FIRST_PASS_MS = 1200;

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

/**
 * Two frames the page really rendered, then a task: whatever the last scroll position set off in its rendering
 * step (an IntersectionObserver's callback starting a feed's fetch) has run when it resolves. A pass's own frame
 * wait gives up after 100 ms, which on a busy host comes before the frames do. Capped for a page that renders no
 * frames.
 */
const RENDERED_AT_BOTTOM = `new Promise((resolve) => {
  setTimeout(resolve, 1000);
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)));
})`;

/** The cap of the wait for quiet (ctx.quietWindowMs) after it. */
const AT_BOTTOM_QUIET_CAP_MS = 1500;

export const autoScroll: Behavior = {
  name: 'auto-scroll',
  run: scrollWhileGrowing,
  // Scrolling is its means, not its find: it found work when the page loaded something or grew meanwhile.
  found: (did) => did.loaded === true || Number(did.growthRounds ?? 0) > 0,
};

/**
 * The first pass through the page; then, while the page grows past where the pass stopped, another pass
 * through what was added. Ends back at the top.
 */
async function scrollWhileGrowing(ctx: BehaviorContext): Promise<BehaviorFindings> {
  // A page on which nothing is lazy and no script watches scrolling loads nothing more when scrolled.
  if (ctx.skipScroll) return { steps: 0, reachedY: 0, ...ctx.skipScroll };
  const pass = (budgetMs: number, fromY: number) =>
    ctx.evaluate<ScrollOutcome>(`${SCROLL_THROUGH}(${Math.round(budgetMs)}, 100, ${MAX_STEPS}, ${fromY}, false)`);
  // Whether anything (a request, a short timer) was pending since the last wait at the bottom: what scrolling
  // set off starts within the two frames each position is given, so a pass that set off nothing loaded nothing.
  let startedSomething = ctx.pending.inflight() > 0;
  let loaded = false;
  const stopWatching = ctx.pending.onInflightChange(() => {
    if (ctx.pending.inflight() > 0) startedSomething = loaded = true;
  });
  let outcome: ScrollOutcome = { reachedY: 0, reachedBottom: false, steps: 0 };
  let steps = 0;
  let growthRounds = 0;
  let waitedMs = 0;
  let stillGrowing = false;
  let tallerThanScreenshot = false;
  try {
    outcome = await pass(Math.min(FIRST_PASS_MS, ctx.left()), 0);
    steps = outcome.steps;
    if (outcome.steps === 0) return { steps: 0, reachedY: 0 };
    while (!ctx.signal.aborted) {
      if (!outcome.reachedBottom) {
        // A long page the first pass could not get through: on through it while the budget lasts.
        if (ctx.left() <= 0) break;
        outcome = await pass(ctx.left(), outcome.reachedY);
        steps += outcome.steps;
        continue;
      }
      // At the bottom: the quiet window is for what the pass set off (a lazy image, a feed's next batch); a
      // pass that set off nothing has nothing to wait for, and the page is asked at once whether it grew. What
      // the page started before the evaluation answered has been reported by then: its events come first.
      if (!startedSomething && ctx.pending.inflight() === 0) await ctx.evaluate(RENDERED_AT_BOTTOM);
      if (startedSomething || ctx.pending.inflight() > 0) {
        const waitStart = performance.now();
        await waitForNetworkQuiet(ctx.pending, {
          quietWindowMs: ctx.quietWindowMs,
          capMs: Math.max(ctx.quietWindowMs, Math.min(AT_BOTTOM_QUIET_CAP_MS, ctx.left())),
          signal: ctx.signal,
        });
        waitedMs += performance.now() - waitStart;
      }
      startedSomething = ctx.pending.inflight() > 0;
      // Grown: the page now reaches below where the pass stopped at its bottom.
      if ((await ctx.evaluate<number>(BOTTOM)) <= outcome.reachedY) break;
      if (outcome.reachedY >= ctx.maxPageHeightPx) {
        tallerThanScreenshot = true;
        break;
      }
      if (ctx.left() <= 0) {
        stillGrowing = true;
        break;
      }
      growthRounds++;
      outcome = await pass(ctx.left(), outcome.reachedY);
      steps += outcome.steps;
    }
  } finally {
    stopWatching();
    await ctx.evaluate("window.scrollTo({ top: 0, left: 0, behavior: 'instant' })").catch(() => {});
  }
  if (!outcome.reachedBottom)
    ctx.notes.push(`scrolling for lazy content stopped at ${outcome.reachedY} px (behaviors' time budget)`);
  if (stillGrowing)
    ctx.notes.push(
      `the page was still growing after ${growthRounds} more scroll passes (infinite scroll): captured when the behaviors' time budget ran out`,
    );
  if (tallerThanScreenshot)
    ctx.notes.push(
      `scrolling stopped at ${outcome.reachedY} px, past the screenshot's ${ctx.maxPageHeightPx} px, while the page was still growing`,
    );
  return {
    steps,
    reachedY: outcome.reachedY,
    reachedBottom: outcome.reachedBottom,
    growthRounds,
    stillGrowing,
    loaded,
    waitedMs: Math.round(waitedMs),
  };
}
