import { blockedResponse, CaptureError, isCaptureError, navigationFailure } from '../capture-error.js';
import type { Step } from '../capture-steps.js';
import { type SelectorWaitResult, waitForSelectorStep } from '../selector-wait.js';
import type { CaptureGiven } from './capture-given.js';

/** How far the page got: navigate and wait-for-selector write it. */
export interface Navigation {
  start: number;
  ms: number;
  /** Navigation timed out after DOMContentLoaded: a partial capture. */
  timedOut: boolean;
  /** From when the settle phase counts: the load event, or the end of the selector wait. */
  settleFrom?: number;
  selectorWait?: SelectorWaitResult;
}

export const navigation = (): Navigation => ({ start: 0, ms: 0, timedOut: false });

type Navigating = { given: CaptureGiven; navigation: Navigation };

/** Spec 2.3: 'full' needs load; 'partial' needs at least DOMContentLoaded. An error status the egress proxy explains is its refusal. */
export const navigateStep: Step<Navigating> = { name: 'navigate', run: navigateToLoad };

/**
 * The tenant's selector, after load and before the settle phase (docs/capturing.md, Capture options), within what
 * navigation left of CAPTURE_TIMEOUT_MS so the whole capture stays inside the pool's limit; settle counts from here.
 */
export const selectorStep: Step<Navigating> = {
  name: 'wait-for-selector',
  when: (s) => s.given.settings.waitForSelector !== null && !s.navigation.timedOut,
  async run({ given, navigation }) {
    navigation.selectorWait = await waitForSelectorStep(
      given.page,
      given.settings.waitForSelector!,
      Math.max(1000, given.options.timeoutMs - navigation.ms),
      given.signal,
    );
    if (navigation.selectorWait.reason) given.notes.push(navigation.selectorWait.reason);
    navigation.settleFrom = performance.now();
  },
};

async function navigateToLoad({ given, navigation }: Navigating): Promise<void> {
  const { page, recorder } = given;
  let domContentLoaded = false;
  let loadedAt: number | undefined;
  page.on('domcontentloaded', () => (domContentLoaded = true));
  page.on('load', () => (loadedAt = performance.now()));
  navigation.start = performance.now();
  navigation.timedOut = await navigate(given, () => domContentLoaded);
  navigation.ms = Math.round(
    (navigation.timedOut ? performance.now() : (loadedAt ?? performance.now())) - navigation.start,
  );
  navigation.settleFrom = loadedAt;

  const main = recorder.mainDocument();
  if (main && main.status >= 400) {
    const blocked = blockedResponse(main.url, given.options.explainNetworkError);
    if (blocked) throw blocked;
  }
}

/** Navigates to `url`; resolves true when it timed out after DOMContentLoaded (a partial capture). */
async function navigate(given: CaptureGiven, domContentLoaded: () => boolean): Promise<boolean> {
  const { page, url, options, recorder, bounds, signal } = given;
  try {
    // timeoutMs is the page's time to reach load, counted on the page clock (not puppeteer's wall clock).
    await bounds.page(page.goto(url, { waitUntil: 'load', timeout: 0 }), options.timeoutMs);
    return false;
  } catch (error) {
    if (signal.aborted) throw error;
    const failure = recorder.mainDocumentFailure();
    const failedUrl = failure?.url || recorder.mainDocumentUrls().at(-1) || url;
    // puppeteer's modules are loaded by now (the page is its); imported here, the worker starts without them.
    const { TimeoutError } = await import('puppeteer-core');
    if (error instanceof TimeoutError || (isCaptureError(error) && error.code === 'timeout')) {
      if (domContentLoaded()) return true;
      const explained = blockedResponse(failedUrl, options.explainNetworkError);
      if (explained) throw explained;
      throw new CaptureError(
        'timeout',
        `The page did not load within ${Math.round(options.timeoutMs / 1000)} s`,
        true,
        { cause: error },
      );
    }
    throw navigationFailure({
      errorText: failure?.errorText || (error instanceof Error ? error.message : String(error)),
      url: failedUrl,
      explain: options.explainNetworkError,
      cause: error,
    });
  }
}
