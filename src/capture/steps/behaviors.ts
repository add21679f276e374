import { BEHAVIOR_QUIET_WINDOW_MS } from '../behaviors/behavior.js';
import { type BehaviorsReport, runBehaviors } from '../behaviors/run-behaviors.js';
import type { Step } from '../capture-steps.js';
import { DEFAULT_MAX_SCREENSHOT_HEIGHT_PX } from '../full-page-screenshot.js';
import { waitForNetworkQuiet } from '../settle.js';
import type { CaptureGiven } from './capture-given.js';
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

/** The tenant's behaviors within their budget (behaviors/); undefined, with a note, when they could not run. */
function runCaptureBehaviors({ given, watch, quiet }: Reads): Promise<BehaviorsReport | undefined> {
  const { settings, signal, notes, recorder } = given;
  const running = runBehaviors({
    page: given.page,
    session: given.session,
    mainFrameId: given.mainFrameId,
    pending: watch.pending,
    signal,
    names: settings.behaviors,
    budgetMs: settings.behaviorTimeoutMs,
    requestedUrls: () => recorder.requestedUrls(),
    completeUrls: () => recorder.completeUrls(),
    maxPageHeightPx: given.options.maxScreenshotHeightPx ?? DEFAULT_MAX_SCREENSHOT_HEIGHT_PX,
    quietWindowMs: afterActionQuietMs(quiet, BEHAVIOR_QUIET_WINDOW_MS),
    nothingWaitsForScroll: quiet.dynamics?.static === true && !quiet.dynamics.waitsForScroll,
    world: quiet.world,
    notes,
  });
  return given.bounds.page(running, settings.behaviorTimeoutMs + BEHAVIORS_OVERRUN_MS).catch((error: unknown) => {
    if (signal.aborted) throw error;
    notes.push('the behaviors could not run on this page');
    return undefined;
  });
}
