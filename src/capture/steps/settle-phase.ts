import type { Step } from '../capture-steps.js';
import { type EarlyQuietCheck, earlyQuietCheck } from '../early-quiet.js';
import { type SettleResult, waitForNetworkQuiet } from '../settle.js';
import { delay } from '../step-timeout.js';
import type { CaptureGiven } from './capture-given.js';
import type { DocumentQuiet } from './inspect-document.js';
import type { Navigation } from './navigation.js';
import type { PageWatch } from './page-watch.js';

/** The settle phase after load: its result (only after a real load) and when it ended. */
export interface Settling {
  result?: SettleResult;
  settledAt: number;
  /** On a page that is not static: whether it was quiet after the early window (early-quiet.ts). */
  early?: EarlyQuietCheck;
}

export const settling = (): Settling => ({ settledAt: 0 });

/**
 * The adaptive settle phase, only after a real load: until no request or short timer has been pending for the quiet
 * window — or, on a page that is not static, for the early window when nothing else can wake it (early-quiet.ts).
 */
export const settleStep: Step<{
  given: CaptureGiven;
  watch: Readonly<PageWatch>;
  navigation: Readonly<Navigation>;
  quiet: Readonly<DocumentQuiet>;
  settle: Settling;
}> = {
  name: 'settle',
  async run({ given, watch, navigation, quiet, settle }) {
    if (!navigation.timedOut) {
      if (!quiet.dynamics?.static && quiet.world && watch.timers)
        settle.early = earlyQuietCheck({
          page: given.page,
          timers: watch.timers,
          webSockets: () => watch.webSockets,
          world: quiet.world,
        });
      settle.result = await waitForNetworkQuiet(watch.pending, {
        quietWindowMs: quiet.quietWindowMs,
        capMs: given.settleCapMs,
        startedAt: navigation.settleFrom,
        quietSince: watch.activity!.quietSince(),
        signal: given.signal,
        early: settle.early,
      });
    }
    settle.settledAt = performance.now();
  },
};

/** The tenant's extra wait (docs/capturing.md, Capture options), after the page settled. */
export const delayStep: Step<{ given: CaptureGiven }> = {
  name: 'delay',
  when: (s) => s.given.settings.delayMs > 0,
  async run({ given }) {
    await given.bounds.page(delay(given.settings.delayMs, given.signal), given.settings.delayMs + 1000);
  },
};
