/**
 * Consent detection beside the settle phase: autoconsent looks at the load event (its rules, then its
 * heuristics, consent-handler.ts), and looks again — a fresh run in a fresh world — whenever the page has been
 * active (a request, a short timer) since the latest look began and has then been quiet for RELOOK_QUIET_MS:
 * a CMP that fetched its configuration draws its banner right after the answer, and the look after that sees
 * it (at most MAX_LOOKS_BESIDE looks so). So while the settle phase waits for its quiet window, detection
 * keeps up with the page; when the page has settled, the verdict is already there unless the page was active
 * since the latest look began (settle ended at its cap, or the last request ended too late for a look inside
 * the window): then one more look.
 * Each further look is taken only when the page changed something since the latest look began that could be or
 * show a banner (banner-changes.ts: a script, a frame, a dialog, a fixed element, consent words …); a page that only
 * rendered its content (a single-page app's list) is not looked at again: `lookedNotAgain` counts those checks.
 * A page without a banner pays no wait of its own, and a banner drawn seconds after load is still found.
 */
import type { BannerChanges } from './banner-changes.js';
import type { ConsentRun } from './consent-handler.js';
import { type PageClock, wallClock } from './host-load.js';
import type { InflightSource, NetworkActivity } from './settle.js';
import { pageTimer } from './step-timeout.js';

/** How long the page must have been quiet, after being active since the latest look began, before another look. */
export const RELOOK_QUIET_MS = 200;
/** Looks begin at least this far apart. */
export const RELOOK_INTERVAL_MS = 300;
/**
 * Looks taken beside the page's loading at most (each compiles autoconsent anew in the renderer): a page that
 * loads in bursts for seconds (media a behavior plays) is not looked at every half second.
 */
export const MAX_LOOKS_BESIDE = 4;

export interface ConsentLooksInput {
  /** Starts one look (an autoconsent run in the page); null when it could not be started. */
  start(): Promise<ConsentRun | null>;
  /** The page's requests and short timers, and when they were last active. */
  pending: InflightSource;
  activity: NetworkActivity;
  /** Look again when the page was active since the latest look (false: a page that cannot change by itself). */
  relook: boolean;
  /**
   * What the page changed since the latest look began (banner-changes.ts): asked before each further look, which is
   * not taken when nothing that could be a banner changed. Absent: every further look is taken.
   */
  changes?: BannerChanges | undefined;
  /** Each look's time for its verdict (page time, from its start). */
  detectMs: number;
  clock?: PageClock | undefined;
  signal: AbortSignal;
}

export type ConsentVerdict =
  | { found: true; cmp: string; run: ConsentRun }
  | { found: false; failed: boolean; run?: undefined };

/** captureSettings.consentDetection: how many looks detection took, and how long the capture waited for its verdict once the page had settled. */
export interface ConsentDetection {
  looks: number;
  /** Further looks not taken: the page was active since the latest look, but changed nothing that could be a banner. */
  lookedNotAgain: number;
  /** What the page changed that made the latest further look worth taking (banner-changes.ts); absent: none was. */
  lookedAgainFor?: string;
  /** From the end of the page's settling (and behaviors) to the verdict: 0 when it was already in. */
  waitedMs: number;
  /** From the first look's start to the verdict (to the latest look's verdict when none found a banner). */
  verdictMs: number;
}

export interface ConsentLooks {
  /**
   * The verdict, asked once the page has settled: waits for a look under way, and takes one more when the page
   * was active since the latest look began. A run with a banner is the caller's to answer and dispose.
   */
  verdict(): Promise<{ verdict: ConsentVerdict; detection: ConsentDetection }>;
  /** Ends what is still running (the looks' runs, the watch); safe to call more than once. */
  dispose(): Promise<void>;
}

interface Look {
  startedAt: number;
  /** The run's verdict: the CMP, null for none, 'failed' when it could not start. */
  outcome: Promise<{ run: ConsentRun | null; cmp: string | null }>;
  endedAt?: number;
}

export function startConsentLooks(input: ConsentLooksInput): ConsentLooks {
  const { pending, activity, signal } = input;
  const clock = input.clock ?? wallClock;
  const firstStart = performance.now();
  const runs: ConsentRun[] = [];
  let looks = 0;
  let lookedNotAgain = 0;
  let lookedAgainFor: string | undefined;
  /** When the page was last found to have changed nothing that could be a banner since the latest look began. */
  let checkedAt = Number.NEGATIVE_INFINITY;
  /** A check and the look it may start, under way. */
  let relooking: Promise<void> | undefined;
  let latest: Look;
  let banner: { cmp: string; run: ConsentRun } | undefined;
  let failed = false;
  let watching = input.relook;
  let cancelRelook: (() => void) | undefined;

  const look = (): Look => {
    looks++;
    const startedAt = performance.now();
    const lookStartClock = clock.now();
    void input.changes?.mark(); // sent before the look starts: what the page changes from here on counts
    const current: Look = {
      startedAt,
      outcome: input.start().then(async (run) => {
        if (run === null) return { run: null, cmp: null };
        runs.push(run);
        const left = Math.max(0, input.detectMs - (clock.now() - lookStartClock));
        return { run, cmp: await run.waitForBanner(left) };
      }),
    };
    current.outcome.then(
      ({ run, cmp }) => {
        current.endedAt = performance.now();
        if (run === null) failed = true;
        else if (cmp !== null) banner ??= { cmp, run };
        if (banner || failed) stopWatching();
        else armRelook();
      },
      () => stopWatching(), // the capture's abort: verdict() sees it
    );
    return current;
  };

  /** The page was active since the latest look began and since it was last found to have changed nothing banner-like. */
  const activeSinceLatest = () => activity.lastActiveAt() > Math.max(latest.startedAt, checkedAt);

  /** Whether another look could find what the latest did not: the page changed something that could be a banner. */
  const worthLooking = async (): Promise<boolean> => {
    if (!input.changes) return true;
    const at = performance.now();
    const found = await input.changes.since();
    if (found === null) {
      lookedNotAgain++;
      checkedAt = at;
      return false;
    }
    if (found !== undefined) lookedAgainFor = found;
    return true;
  };

  /** Another look once the page, active since the latest look began, has been quiet for RELOOK_QUIET_MS. */
  const armRelook = () => {
    cancelRelook?.();
    cancelRelook = undefined;
    if (!watching || signal.aborted || relooking || latest.endedAt === undefined || looks >= MAX_LOOKS_BESIDE) return;
    if (pending.inflight() > 0 || !activeSinceLatest()) return;
    const wait = Math.max(RELOOK_QUIET_MS, latest.startedAt + RELOOK_INTERVAL_MS - performance.now());
    cancelRelook = pageTimer(
      wait,
      () => {
        cancelRelook = undefined;
        if (!watching || pending.inflight() > 0) return;
        relooking = (async () => {
          if (!(await worthLooking()) || signal.aborted) return;
          void disposeRuns(); // the earlier looks found nothing: their worlds' bindings go
          latest = look();
        })().finally(() => {
          relooking = undefined;
          armRelook(); // the page may have been active meanwhile
        });
      },
      clock,
    );
  };
  const unsubscribe = input.relook ? pending.onInflightChange(armRelook) : () => {};
  function stopWatching() {
    watching = false;
    cancelRelook?.();
    cancelRelook = undefined;
    unsubscribe();
  }
  const disposeRuns = async () => {
    const done = runs.splice(0).filter((run) => run !== banner?.run);
    await Promise.all(done.map((run) => run.dispose()));
  };

  latest = look();

  return {
    async verdict() {
      const settledAt = performance.now();
      stopWatching();
      await relooking;
      let outcome = await latest.outcome;
      if (outcome.run !== null && outcome.cmp === null && !banner && input.relook) {
        // The page was active since this look began: what it drew meanwhile gets one more look, if it could be a banner.
        if (activeSinceLatest() && (await worthLooking())) {
          await disposeRuns();
          latest = look();
          outcome = await latest.outcome;
        }
      }
      const detection: ConsentDetection = {
        looks,
        lookedNotAgain,
        ...(lookedAgainFor !== undefined ? { lookedAgainFor } : {}),
        waitedMs: Math.round(performance.now() - settledAt),
        verdictMs: Math.round((latest.endedAt ?? performance.now()) - firstStart),
      };
      if (banner) return { verdict: { found: true, ...banner }, detection };
      return { verdict: { found: false, failed: outcome.run === null }, detection };
    },
    async dispose() {
      stopWatching();
      await disposeRuns();
      await banner?.run.dispose();
    },
  };
}
