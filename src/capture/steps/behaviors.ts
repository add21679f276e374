import { BEHAVIOR_QUIET_WINDOW_MS, type BehaviorFindings } from '../behaviors/behavior.js';
import { type BehaviorsReport, runBehaviors } from '../behaviors/run-behaviors.js';
import type { Step } from '../capture-steps.js';
import { DEFAULT_MAX_SCREENSHOT_HEIGHT_PX } from '../full-page-screenshot.js';
import { waitForNetworkQuiet } from '../settle.js';
import { documentWaitsForScroll } from '../static-document.js';
import type { BehaviorName } from '../../domain/capture-options.js';
import { type CaptureGiven, STEP_TIMEOUT_MS } from './capture-given.js';
import { afterActionQuietMs, type DocumentQuiet } from './inspect-document.js';
import type { PageWatch } from './page-watch.js';
import type { Settling } from './settle-phase.js';

/** The behaviors' own budget is theirs to keep (run-behaviors.ts); this only bounds a renderer that stopped answering. */
const BEHAVIORS_OVERRUN_MS = 10_000;
const AFTER_SCROLL_QUIET = { quietWindowMs: 300, capMs: 800 };

/** The tenant's behaviors (scroll for lazy content, expand, play media …: behaviors/), run beside the settle phase. */
export interface Behaving {
  running?: Promise<BehaviorsReport | undefined>;
  report?: BehaviorsReport;
  /** The auto-scroll behavior's time (0 when it did not run). */
  scrollMs: number;
}

export const behaving = (): Behaving => ({ scrollMs: 0 });

type Reads = { given: CaptureGiven; watch: Readonly<PageWatch>; quiet: Readonly<DocumentQuiet> };

/** The behaviors run beside the settle phase, whose quiet window then covers what they load (awaited by after-behaviors). */
export const behaviorsStep: Step<Reads & { behaviors: Behaving }> = {
  name: 'behaviors',
  run(s) {
    const running = runCaptureBehaviors(s);
    running.catch(() => {});
    s.behaviors.running = running;
  },
};

/** What the behaviors started after the settle phase ended (a long page, a video) still gets its quiet window. */
export const afterBehaviorsStep: Step<Reads & { settle: Readonly<Settling>; behaviors: Behaving }> = {
  name: 'after-behaviors',
  async run({ given, watch, quiet, settle, behaviors }) {
    behaviors.report = await behaviors.running!;
    if (behaviors.report) await scrollAfterAll({ given, watch, quiet }, behaviors.report);
    behaviors.scrollMs = behaviors.report?.ran.find((r) => r.name === 'auto-scroll')?.ms ?? 0;
    if (watch.activity!.lastActiveAt() > settle.settledAt || watch.pending.inflight() > 0) {
      await waitForNetworkQuiet(watch.pending, {
        ...AFTER_SCROLL_QUIET,
        quietWindowMs: afterActionQuietMs(quiet, AFTER_SCROLL_QUIET.quietWindowMs),
        quietSince: watch.activity!.quietSince(),
        signal: given.signal,
      });
    }
  },
};

/**
 * What auto-scroll records instead of scrolling a page on which nothing waits to be scrolled to: a static one
 * (static-document.ts), or one with nothing lazy whose scripts have not watched scrolling so far (pending-timers.ts;
 * after-behaviors scrolls it after all if they start to before the page has settled).
 */
function skipScroll(quiet: Readonly<DocumentQuiet>, watch: Readonly<PageWatch>): BehaviorFindings | undefined {
  const dynamics = quiet.dynamics;
  if (dynamics?.static) return dynamics.waitsForScroll ? undefined : { staticPage: true };
  if (dynamics?.waitsForScroll === false && watch.timers && !watch.timers.watchesScroll())
    return { nothingWaitsForScroll: true };
  return undefined;
}

/**
 * A page auto-scroll left alone because nothing waited to be scrolled to, whose scripts have started to watch
 * scrolling (or that has drawn lazy content) since: it is scrolled through now, within what is left of the budget,
 * and its run records `late: true`.
 */
async function scrollAfterAll(reads: Reads, report: BehaviorsReport): Promise<void> {
  const index = report.ran.findIndex((r) => r.name === 'auto-scroll' && r.did.nothingWaitsForScroll === true);
  const world = reads.quiet.world;
  if (index < 0 || !world) return;
  const waits =
    reads.watch.timers?.watchesScroll() === true ||
    (await reads.given.bounds.page(documentWaitsForScroll(world), STEP_TIMEOUT_MS).catch((error: unknown) => {
      if (reads.given.signal.aborted) throw error;
      return true;
    }));
  if (!waits) return;
  const late = await runCaptureBehaviors(reads, {
    names: ['auto-scroll'],
    budgetMs: Math.max(0, reads.given.settings.behaviorTimeoutMs - report.ms),
  });
  const run = late?.ran[0];
  if (!late || !run) return;
  report.ran[index] = { ...run, did: { ...run.did, late: true } };
  report.ms += late.ms;
  if (late.outOfBudget) report.outOfBudget = true;
}

/** The tenant's behaviors within their budget (behaviors/); undefined, with a note, when they could not run. */
function runCaptureBehaviors(
  { given, watch, quiet }: Reads,
  only?: { names: BehaviorName[]; budgetMs: number },
): Promise<BehaviorsReport | undefined> {
  const { settings, signal, notes, recorder } = given;
  const running = runBehaviors({
    page: given.page,
    session: given.session,
    mainFrameId: given.mainFrameId,
    pending: watch.pending,
    signal,
    names: only?.names ?? settings.behaviors,
    budgetMs: only?.budgetMs ?? settings.behaviorTimeoutMs,
    requestedUrls: () => recorder.requestedUrls(),
    completeUrls: () => recorder.completeUrls(),
    maxPageHeightPx: given.options.maxScreenshotHeightPx ?? DEFAULT_MAX_SCREENSHOT_HEIGHT_PX,
    quietWindowMs: afterActionQuietMs(quiet, BEHAVIOR_QUIET_WINDOW_MS),
    skipScroll: only ? undefined : skipScroll(quiet, watch),
    world: quiet.world,
    notes,
  });
  return given.bounds.page(running, settings.behaviorTimeoutMs + BEHAVIORS_OVERRUN_MS).catch((error: unknown) => {
    if (signal.aborted) throw error;
    notes.push('the behaviors could not run on this page');
    return undefined;
  });
}
