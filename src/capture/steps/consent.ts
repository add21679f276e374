import type { BannerChanges } from '../banner-changes.js';
import type { Step } from '../capture-steps.js';
import { type ConsentInfo, type ConsentRun, startConsentRun } from '../consent-handler.js';
import { type ConsentDetection, type ConsentLooks, startConsentLooks } from '../consent-looks.js';
import { waitForNetworkQuiet } from '../settle.js';
import { type CaptureGiven, since } from './capture-given.js';
import type { DocumentQuiet } from './inspect-document.js';
import type { PageWatch } from './page-watch.js';
import { shoot } from './screenshot.js';

const CONSENT_START_MS = 3000;
const CONSENT_DETECT_MS = 2000; // each look's, counted from its start; detection overlaps settle and scroll
const CONSENT_OPT_OUT_MS = 6000;
/**
 * How long the banner's frame may take to draw before screenshotBefore (page time). It is waited for only while
 * the frame has not drawn: on a busy host a cross-origin banner frame's renderer can take seconds to paint.
 */
const CONSENT_PAINT_MS = 5000;
const AFTER_CONSENT_QUIET = { quietWindowMs: 300, capMs: 1000 };

/** The consent banner: detection from the load event on, then its answer and the screenshot with it still shown. */
export interface Consent {
  start: number;
  looks?: ConsentLooks;
  detection?: ConsentDetection;
  info?: ConsentInfo;
  screenshotBefore?: Buffer;
  screenshotBeforeMs?: number;
}

export const consent = (): Consent => ({ start: 0 });

type Consenting = {
  given: CaptureGiven;
  watch: Readonly<PageWatch>;
  quiet: Readonly<DocumentQuiet>;
  consent: Consent;
};

/**
 * Consent detection starts in the page from the load event and looks again beside the settle phase while the
 * page keeps loading (consent-looks.ts); its verdict is taken by answer-consent.
 */
export const detectConsentStep: Step<Consenting> = {
  name: 'detect-consent',
  when: (s) => s.given.options.handleConsent !== false,
  run(s) {
    s.consent.start = performance.now();
    s.consent.looks = startConsentLooks({
      start: () => startConsent(s),
      pending: s.watch.pending,
      activity: s.watch.activity!,
      // A static page cannot draw a banner after load: what it still loads are images and fonts.
      relook: !s.quiet.dynamics?.static,
      changes: bannerChanges(s),
      detectMs: CONSENT_DETECT_MS,
      clock: s.given.clock,
      signal: s.given.signal,
    });
  },
};

/**
 * Takes autoconsent's verdict (consent-looks.ts: already in unless the page was active since the latest look
 * began); with a banner: screenshot it, opt out, let the page react.
 */
export const answerConsentStep: Step<{ given: CaptureGiven; consent: Consent }> = {
  name: 'answer-consent',
  when: (s) => s.consent.looks !== undefined,
  run: answerConsentBanner,
};

async function answerConsentBanner({ given, consent }: { given: CaptureGiven; consent: Consent }): Promise<void> {
  const looks = consent.looks!;
  try {
    const { verdict, detection } = await looks.verdict();
    consent.detection = detection;
    if (!verdict.found) {
      const result = verdict.failed ? 'failed' : 'not-found';
      consent.info = { attempted: true, cmp: null, result, durationMs: detection.verdictMs };
      return;
    }
    const { run: consentRun, cmp } = verdict;
    const beforeStart = performance.now();
    await consentRun.bannerPainted(CONSENT_PAINT_MS);
    const before = await shoot(given);
    consent.screenshotBeforeMs = since(beforeStart);
    const result = await consentRun.optOut(CONSENT_OPT_OUT_MS);
    const info: ConsentInfo = { attempted: true, cmp, result, durationMs: 0 };
    consent.info = info;
    if (result !== 'opted-out' && result !== 'dismissed') {
      info.durationMs = since(consent.start);
      return; // spec 2.4: screenshotBefore only when dismissed
    }
    // The banner may fade out, and the site may fetch or reload after the choice.
    await waitForNetworkQuiet(given.recorder, { ...AFTER_CONSENT_QUIET, signal: given.signal });
    info.durationMs = since(consent.start);
    consent.screenshotBefore = before.png;
  } finally {
    await looks.dispose();
  }
}

/**
 * What the page changed since the latest look began (banner-changes.ts, in the preloaded world of its main frame).
 * A page with child frames is looked at again whenever it was active: what its frames draw is not watched.
 */
function bannerChanges(s: Consenting): BannerChanges | undefined {
  const changes = s.watch.consentPreload?.changes;
  if (!changes) return undefined;
  const { page } = s.given;
  return {
    mark: () => changes.mark(),
    async since() {
      if (page.frames().some((frame) => frame !== page.mainFrame() && /^https?:/.test(frame.url())))
        return 'child frames';
      return changes.since();
    },
  };
}

/** Starts autoconsent in the page; null when it could not be injected (a failed attempt). */
function startConsent(s: Consenting): Promise<ConsentRun | null> {
  const { page, session, mainFrameId, clock, signal } = s.given;
  return s.given.bounds
    .page(
      startConsentRun(page, session, {
        mainFrameId,
        clock,
        preload: s.watch.consentPreload,
        heuristicLook: !s.quiet.dynamics?.static,
      }),
      CONSENT_START_MS,
    )
    .catch((error: unknown) => {
      if (signal.aborted) throw error;
      return null;
    });
}
