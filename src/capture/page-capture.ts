/**
 * One capture of one URL in its own browser context (no cookies or cache shared with other captures):
 * navigate to `load` (or settle for a partial capture after DOMContentLoaded); then, side by side from the
 * load event, settle, scroll for lazy content and detect a consent banner; answer the banner; then take the
 * full-page PNG, the rendered HTML, the main document's headers and every network exchange.
 * Spec 2.3 (renderQuality, render) and 2.4 (artifacts).
 */
import { TimeoutError, type Browser, type BrowserContext, type CDPSession, type Page } from 'puppeteer-core';
import { blockedResponse, CaptureError, isCaptureError, navigationFailure, type ExplainNetworkError } from './capture-error.js';
import { preloadConsent, startConsentRun, type ConsentInfo, type ConsentPreload, type ConsentRun } from './consent-handler.js';
import { captureFullPage, DEFAULT_MAX_SCREENSHOT_HEIGHT_PX } from './full-page-screenshot.js';
import { headersArtifact, type HeadersArtifact } from './http-headers.js';
import { scrollWhileGrowing, SCROLL_GROWTH_BUDGET_MS } from './lazy-scroll.js';
import type { NetworkExchange } from '../domain/network-exchange.js';
import { createNetworkRecorder, DEFAULT_MAX_RECORDED_BODY_BYTES, type NetworkRecorder } from './network-recorder.js';
import { combinedInflight, waitForNetworkQuiet, watchNetworkActivity, type InflightSource, type NetworkActivity, type SettleResult } from './settle.js';
import { watchPendingTimers, type PendingTimers } from './pending-timers.js';
import { renderedHtml } from './rendered-html.js';
import { challengeMessage, detectChallenge } from './challenge-page.js';
import { presentAsChrome } from './user-agent.js';
import { recordOutOfProcessFrames } from './frame-sessions.js';
import { loadDocumentBytes, viewerWrappedPdf } from './pdf-document-body.js';
import { waitForSelectorStep, type SelectorWaitResult } from './selector-wait.js';
import { abortReason, withTimeout } from './step-timeout.js';
import { type PageClock, wallClock } from './host-load.js';
import { captureViewport } from './viewport-screenshot.js';
import { DEFAULT_CAPTURE_SETTINGS, type CaptureSettings } from '../domain/capture-options.js';

export interface PageCaptureOptions {
  /** Time allowed for navigation to reach `load`. */
  timeoutMs: number;
  /** Hard cap of the settle phase after load (spec 8.3: 3 s). */
  settleCapMs?: number;
  /** The settle phase ends once no request has been in flight for this long. */
  quietWindowMs?: number;
  viewport?: { width: number; height: number };
  /** The tenant's capture options with defaults filled in (README, Capture options); absent: the defaults. Wins over `viewport`. */
  settings?: CaptureSettings;
  /** Detect a consent banner and opt out (default true). */
  handleConsent?: boolean;
  /**
   * Asked when the main document fails (or answers with an error status): the egress proxy says whether
   * it refused or failed that connection, and why. Return undefined when it has nothing to say.
   */
  explainNetworkError?: ExplainNetworkError;
  /** Bound on the response bodies kept in `exchanges` (default 50 MB). */
  maxRecordedBodyBytes?: number;
  /** Screenshots of taller pages are cut at this height (default 30000 px). */
  maxScreenshotHeightPx?: number;
  /** Aborting closes the capture's browser context; the capture then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The egress proxy of a context opened here (the pool passes contexts it opened itself, as `prepared`). */
  proxyServer?: string;
  /** A fresh context opened ahead by openCaptureContext (the pool's spare); default: opened now. */
  prepared?: Promise<PreparedContext>;
  /** The clock every bound of the capture is counted on (host-load.ts: the page clock); default the wall clock. */
  clock?: PageClock;
}

/**
 * A new browser context with its one blank page, made for exactly one capture and closed after it, already
 * set up as a capture starts: the default viewport, the user agent it presents, a protocol session and the
 * main frame's id.
 */
export interface PreparedContext {
  context: BrowserContext;
  page: Page;
  session: CDPSession;
  mainFrameId: string;
  /** The user agent the page sends (user-agent.ts). */
  userAgent: string;
  /** The viewport set on the page; a capture asking for another sets its own. */
  viewport: { width: number; height: number; deviceScaleFactor: number };
}

const PREPARED_VIEWPORT = { ...DEFAULT_CAPTURE_SETTINGS.viewport, deviceScaleFactor: DEFAULT_CAPTURE_SETTINGS.deviceScaleFactor };

/**
 * Opens the context a capture runs in. Opening and setting up a page is slow, more so on a busy host
 * (docs/performance.md), so the pool prepares the next one while a capture runs; it is still a context no
 * other capture has touched.
 */
export async function openCaptureContext(browser: Browser, proxyServer?: string): Promise<PreparedContext> {
  // Downloads are refused: a capture never writes what a page offers to the worker's disk. The context's
  // own proxy is the egress proxy, loopback included ("<-loopback>" removes Chromium's implicit bypass).
  const context = await browser.createBrowserContext({
    downloadBehavior: { policy: 'deny' },
    ...(proxyServer ? { proxyServer, proxyBypassList: ['<-loopback>'] } : {}),
  });
  try {
    const page = await context.newPage();
    const [, userAgent, session] = await Promise.all([
      page.setViewport(PREPARED_VIEWPORT),
      browser.userAgent().then((ua) => presentAsChrome(page, ua)),
      page.createCDPSession(),
    ]);
    const { frameTree } = await session.send('Page.getFrameTree');
    return { context, page, session, mainFrameId: frameTree.frame.id, userAgent, viewport: PREPARED_VIEWPORT };
  } catch (error) {
    await context.close().catch(() => {});
    throw error;
  }
}

/**
 * Where the time went. From the load event on, settle, scroll and consent detection run side by side, so
 * settleMs, scrollMs and consentMs overlap (each is counted from the load event, or from its own start).
 */
export interface RenderStages {
  /** From navigation start to the load event (to the timeout for a partial capture). */
  navigationMs: number;
  settleMs?: number;
  scrollMs: number;
  /** From the start of detection (at load) to the verdict, or to the end of the opt-out. */
  consentMs?: number;
  screenshotBeforeMs?: number;
  screenshotMs: number;
  htmlMs: number;
  networkMs: number;
}

/** `render` of the capture record (spec 2.3). */
export interface RenderInfo {
  waitUntilReached: 'load' | 'domcontentloaded';
  timedOut: boolean;
  /** Wall-clock ms from navigation start to the moment the (final) screenshot was taken. */
  durationMs: number;
  settleMs?: number;
  settleReason?: 'idle' | 'cap';
  stages: RenderStages;
}

export interface PageCaptureResult {
  renderQuality: 'full' | 'partial';
  render: RenderInfo;
  /** Full-page PNG; after the consent banner was dismissed when there was one. */
  screenshot: Buffer;
  /** Full-page PNG with the consent banner still shown; only when it was then opted out or dismissed. */
  screenshotBefore?: Buffer;
  /** Rendered HTML after scripts ran. */
  html: string;
  /** Main document response headers; Set-Cookie values are "[redacted]". Null if they could not be read. */
  headers: HeadersArtifact | null;
  finalUrl: string;
  /** Status of the main document's final response (0 if unknown). */
  mainStatus: number;
  title: string;
  /** For captureSettings.consent; absent when consent handling was off. */
  consent?: ConsentInfo;
  exchanges: NetworkExchange[];
  /** What the capture used (README, Capture options), for captureSettings. */
  settings: CaptureSettings;
  /** Outcome of the waitForSelector step; absent when no selector was asked for. */
  selectorWait?: SelectorWaitResult;
  /** For the provenance record: the main document's URLs in order (requested, then each redirect target). */
  mainDocumentUrls: string[];
  /** For the provenance record: Chromium's product string (e.g. `Chrome/131.0.6778.139`) and user agent. */
  browser: { version: string; userAgent: string };
  /** The page printed to PDF; only with settings.pdf. */
  pdf?: Buffer;
  /** Things an operator may want to know: screenshot cut, responses left out of `exchanges`, … */
  notes: string[];
}

export const DEFAULT_SETTLE_CAP_MS = 3000;
export const DEFAULT_QUIET_WINDOW_MS = 500;
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 } as const;

const SCROLL_BUDGET_MS = 1200;
const AFTER_SCROLL_QUIET = { quietWindowMs: 300, capMs: 800 };
const CONSENT_START_MS = 3000;
const CONSENT_DETECT_MS = 2000; // counted from injection; detection overlaps settle and scroll
// autoconsent looks at once and again after 500 ms (detectRetries 1, with its heuristics the second time).
const CONSENT_LAST_LOOK_MS = 500;
const CONSENT_OPT_OUT_MS = 6000;
/** How long the banner's frame may take to draw before screenshotBefore (page time). */
const CONSENT_PAINT_MS = 2000;
const AFTER_CONSENT_QUIET = { quietWindowMs: 300, capMs: 1000 };
const STEP_TIMEOUT_MS = 10_000;
/** Opening the page and its protocol session: the service's own steps, bounded only against a hung browser. */
const SERVICE_STEP_TIMEOUT_MS = 60_000;
const SCREENSHOT_SLICE_TIMEOUT_MS = 15_000;
const BODY_WAIT_MS = 5000;
const CONTEXT_CLOSE_TIMEOUT_MS = 5000;

export async function capturePage(browser: Browser, url: string, options: PageCaptureOptions): Promise<PageCaptureResult> {
  const external = options.signal;
  if (external?.aborted) {
    const unused = options.prepared?.then((prepared) => prepared.context.close());
    if (unused) await withTimeout(unused, CONTEXT_CLOSE_TIMEOUT_MS, () => new Error('context close timed out')).catch(() => {});
    throw stoppedError(external);
  }
  // Aborted by the caller, by a renderer crash, or by the browser going away: every step stops at once.
  const internal = new AbortController();
  const signal = external ? AbortSignal.any([external, internal.signal]) : internal.signal;
  const onDisconnect = () => internal.abort(new CaptureError('browser_crashed', 'The browser stopped during the capture', true));
  browser.on('disconnected', onDisconnect);

  let context: BrowserContext | undefined;
  let closing: Promise<void> | undefined;
  const closeContext = (): Promise<void> => {
    if (!context) return Promise.resolve();
    closing ??= withTimeout(context.close(), CONTEXT_CLOSE_TIMEOUT_MS, () => new Error('context close timed out')).catch(() => {});
    return closing;
  };
  const onExternalAbort = () => void closeContext();
  external?.addEventListener('abort', onExternalAbort, { once: true });
  const opening = options.prepared ?? openCaptureContext(browser, options.proxyServer);
  // Known as soon as it is open, so that a capture given up meanwhile still closes it.
  const opened = opening.then(
    (prepared) => void (context = prepared.context),
    () => {},
  );
  try {
    if (!browser.connected) onDisconnect();
    const steps = stepBounds(signal, options.clock ?? wallClock);
    return await captureInContext(await steps.service(opening), url, options, steps, signal, internal);
  } catch (error) {
    throw toCaptureError(error, { browser, external, internal: internal.signal });
  } finally {
    external?.removeEventListener('abort', onExternalAbort);
    browser.off('disconnected', onDisconnect);
    // A capture stopped while its context was still being opened closes that context too before it
    // returns: when capturePage settles, nothing it opened is left (bounded against a hung browser).
    await withTimeout(opened, CONTEXT_CLOSE_TIMEOUT_MS, () => new Error('context open did not settle')).catch(() => {});
    await closeContext();
  }
}

async function captureInContext(
  prepared: PreparedContext,
  url: string,
  options: PageCaptureOptions,
  steps: StepBounds,
  signal: AbortSignal,
  internal: AbortController,
): Promise<PageCaptureResult> {
  const bounded = steps.page;
  const clock = options.clock ?? wallClock;
  let consentClockStart = clock.now();
  const settleCapMs = options.settleCapMs ?? DEFAULT_SETTLE_CAP_MS;
  const quietWindowMs = options.quietWindowMs ?? DEFAULT_QUIET_WINDOW_MS;
  const settings = options.settings ?? { ...DEFAULT_CAPTURE_SETTINGS, viewport: options.viewport ?? DEFAULT_VIEWPORT };
  const notes: string[] = [];
  const { page, session, mainFrameId, userAgent: sentUserAgent } = prepared;

  page.on('error', () => internal.abort(new CaptureError('page_crashed', 'The page crashed the browser tab while rendering', true)));
  // An alert() left open blocks the page's scripts, its load event and the screenshot.
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
  // Until navigation starts nothing is the page's doing: a slow step here is the service's (DESIGN decision 13).
  const viewport = { ...settings.viewport, deviceScaleFactor: settings.deviceScaleFactor };
  if (!sameViewport(viewport, prepared.viewport)) await steps.service(page.setViewport(viewport));
  const recorder = createNetworkRecorder(session, {
    mainFrameId,
    maxBodyBytes: options.maxRecordedBodyBytes ?? DEFAULT_MAX_RECORDED_BODY_BYTES,
  });
  const shoot = () =>
    settings.fullPage === false
      ? captureViewport(session, { timeoutMs: SCREENSHOT_SLICE_TIMEOUT_MS, signal, scale: settings.deviceScaleFactor, clock: options.clock })
      : captureFullPage(session, {
          maxHeightPx: options.maxScreenshotHeightPx,
          sliceTimeoutMs: SCREENSHOT_SLICE_TIMEOUT_MS,
          signal,
          scale: settings.deviceScaleFactor,
          clock: options.clock,
        });

  // What the settle phase waits for: the page's requests and its pending short timers (pending-timers.ts).
  let pending: InflightSource = recorder;
  let timers: PendingTimers | undefined;
  let consentPreload: ConsentPreload | undefined;
  let stopFollowingFrames: (() => void) | undefined;
  try {
    const watching = watchPendingTimers(session, { maxDelayMs: settleCapMs });
    watching.then((watch) => void (timers = watch)).catch(() => {}); // disposed in finally whichever way this goes
    // autoconsent's content script starts while the page loads (consent-handler.ts, preloadConsent).
    const preloading = options.handleConsent === false ? undefined : preloadConsent(session);
    preloading?.then((preload) => void (consentPreload = preload)).catch(() => {});
    const [, watch] = await steps.service(Promise.all([recorder.start(), watching, preloading]));
    stopFollowingFrames = recordOutOfProcessFrames(page, recorder);
    pending = combinedInflight(recorder, watch);
    return await run();
  } finally {
    stopFollowingFrames?.();
    recorder.dispose();
    void timers?.dispose();
    void consentPreload?.dispose();
  }

  /** Starts autoconsent in the page; null when it could not be injected (a failed attempt). */
  function startConsent(): Promise<ConsentRun | null> {
    return bounded(startConsentRun(page, session, { mainFrameId, clock, preload: consentPreload }), CONSENT_START_MS).catch((error: unknown) => {
      if (signal.aborted) throw error;
      return null;
    });
  }

  /**
   * Waits for autoconsent's verdict; with a banner: screenshot it, opt out, let the page react. Detection
   * started at load; when nothing was found but the page was still loading after autoconsent's last look
   * (a CMP script may have drawn its banner since), it is asked once more, now that the page has settled.
   */
  async function answerConsentBanner(
    firstRun: Promise<ConsentRun | null>,
    consentStart: number,
    activity: NetworkActivity,
  ): Promise<{ consent: ConsentInfo; screenshotBefore?: Buffer; screenshotBeforeMs?: number }> {
    let consentRun = await firstRun;
    if (consentRun === null) return { consent: { attempted: true, cmp: null, result: 'failed', durationMs: since(consentStart) } };
    try {
      // Detection's budget is page time: on a busy host autoconsent gets the same chance to look.
      let cmp = await consentRun.waitForBanner(Math.max(0, CONSENT_DETECT_MS - (clock.now() - consentClockStart)));
      if (!cmp && activity.lastActiveAt() > consentStart + CONSENT_LAST_LOOK_MS) {
        await consentRun.dispose();
        const secondStart = clock.now();
        consentRun = await startConsent();
        if (consentRun === null) return { consent: { attempted: true, cmp: null, result: 'failed', durationMs: since(consentStart) } };
        cmp = await consentRun.waitForBanner(Math.max(0, CONSENT_DETECT_MS - (clock.now() - secondStart)));
      }
      if (!cmp) return { consent: { attempted: true, cmp: null, result: 'not-found', durationMs: since(consentStart) } };
      const beforeStart = performance.now();
      await consentRun.bannerPainted(CONSENT_PAINT_MS);
      const before = await shoot();
      const screenshotBeforeMs = since(beforeStart);
      const result = await consentRun.optOut(CONSENT_OPT_OUT_MS);
      const consent: ConsentInfo = { attempted: true, cmp, result, durationMs: 0 };
      if (result !== 'opted-out' && result !== 'dismissed') {
        consent.durationMs = since(consentStart);
        return { consent, screenshotBeforeMs }; // spec 2.4: screenshotBefore only when dismissed
      }
      // The banner may fade out, and the site may fetch or reload after the choice.
      await waitForNetworkQuiet(recorder, { ...AFTER_CONSENT_QUIET, signal });
      consent.durationMs = since(consentStart);
      return { consent, screenshotBefore: before.png, screenshotBeforeMs };
    } finally {
      await consentRun?.dispose();
    }
  }

  /** Scrolls for lazy content; runs beside the settle phase, whose quiet window then covers what it loads. */
  async function scrollForLazyContent(): Promise<{ scrollMs: number; steps: number }> {
    const scrollStart = performance.now();
    const scrolling = scrollWhileGrowing(session, { mainFrameId, budgetMs: SCROLL_BUDGET_MS, pending, signal });
    const scrolled = await bounded(scrolling, SCROLL_BUDGET_MS + SCROLL_GROWTH_BUDGET_MS + 4000).catch(
      (error: unknown) => {
        if (signal.aborted) throw error;
        notes.push('scrolling for lazy content failed');
        return undefined;
      },
    );
    if (scrolled && !scrolled.reachedBottom) notes.push(`scrolling for lazy content stopped at ${scrolled.reachedY} px (time budget)`);
    if (scrolled?.stillGrowing) notes.push(`the page was still growing after ${scrolled.growthRounds} more scroll passes (infinite scroll; budget)`);
    return { scrollMs: since(scrollStart), steps: scrolled?.steps ?? 0 };
  }

  async function run(): Promise<PageCaptureResult> {
    const activity = watchNetworkActivity(pending);
    try {
      return await phases(activity);
    } finally {
      activity.stop();
    }
  }

  async function phases(activity: NetworkActivity): Promise<PageCaptureResult> {
    // 1. Navigation (spec 2.3: 'full' needs load; 'partial' needs at least DOMContentLoaded).
    let domContentLoaded = false;
    let loadedAt: number | undefined;
    page.on('domcontentloaded', () => (domContentLoaded = true));
    page.on('load', () => (loadedAt = performance.now()));
    const navigationStart = performance.now();
    const timedOut = await navigate(page, url, options, recorder, steps, signal, () => domContentLoaded);
    const navigationMs = Math.round((timedOut ? performance.now() : (loadedAt ?? performance.now())) - navigationStart);

    const main = recorder.mainDocument();
    if (main && main.status >= 400) {
      const blocked = blockedResponse(main.url, options.explainNetworkError);
      if (blocked) throw blocked;
    }

    // 1b. The tenant's selector, after load and before the settle phase (README, Capture options), within what navigation
    //     left of CAPTURE_TIMEOUT_MS so the whole capture stays inside the pool's limit; settle counts from here.
    let selectorWait: SelectorWaitResult | undefined;
    let settleFrom = loadedAt;
    if (settings.waitForSelector !== null && !timedOut) {
      selectorWait = await waitForSelectorStep(page, settings.waitForSelector, Math.max(1000, options.timeoutMs - navigationMs), signal);
      if (selectorWait.reason) notes.push(selectorWait.reason);
      settleFrom = performance.now();
    }

    // 2. From the load event on, at the same time: consent detection starts in the page, the page is
    //    scrolled for lazy content, and the adaptive settle phase (only after a real load) waits for quiet.
    const consentStart = performance.now();
    consentClockStart = clock.now();
    const consentRun = options.handleConsent === false ? undefined : startConsent();
    consentRun?.catch(() => {}); // awaited below; a rejection here is the capture's abort
    const scrolling = scrollForLazyContent();
    scrolling.catch(() => {});
    let settle: SettleResult | undefined;
    if (!timedOut) {
      settle = await waitForNetworkQuiet(pending, { quietWindowMs, capMs: settleCapMs, startedAt: settleFrom, quietSince: activity.quietSince(), signal });
    }
    const settledAt = performance.now();
    const { scrollMs } = await scrolling;
    // What the scroll started after the settle phase ended (a long page) still gets its quiet window.
    if (activity.lastActiveAt() > settledAt || pending.inflight() > 0) {
      await waitForNetworkQuiet(pending, { ...AFTER_SCROLL_QUIET, quietSince: activity.quietSince(), signal });
    }
    // The tenant's extra wait (README, Capture options), after the page settled.
    if (settings.delayMs > 0) await bounded(delay(settings.delayMs, signal), settings.delayMs + 1000);

    const { consent, screenshotBefore, screenshotBeforeMs } =
      consentRun === undefined ? {} : await answerConsentBanner(consentRun, consentStart, activity);

    // 3. The evidence itself.
    const captureMoment = performance.now();
    const shot = await shoot();
    const screenshotMs = since(captureMoment);
    if (shot.height < shot.pageHeight) {
      const maxHeight = options.maxScreenshotHeightPx ?? DEFAULT_MAX_SCREENSHOT_HEIGHT_PX;
      notes.push(`screenshot cut at ${maxHeight} px of a ${shot.pageHeight} px page`);
    }

    const pdf = settings.pdf ? await printPdf(page, steps) : undefined;

    const htmlStart = performance.now();
    // Open shadow roots and frame documents included (rendered-html.ts); page.content() if that fails.
    const rendered = await bounded(renderedHtml(page)).catch((error: unknown) => {
      if (signal.aborted) throw error;
      return undefined;
    });
    const html = rendered?.html ?? (await readHtml(page, steps, signal));
    if (rendered) notes.push(...rendered.notes);
    const title = await bounded(page.title()).catch(() => '');
    const finalUrl = page.url();
    const htmlMs = since(htmlStart);
    // A bot-protection answer is reported, not archived as the page (challenge-page.ts).
    const answered = recorder.mainDocument();
    // The main document only: a captcha or Turnstile widget in a frame of an ordinary page is not a challenge page.
    const mainHtml = rendered?.mainHtml ?? html;
    const protection = detectChallenge({ status: answered?.status ?? 0, headers: answered?.headers ?? [], title, html: mainHtml });
    if (protection) throw new CaptureError('challenge', challengeMessage(protection, answered?.status ?? 0), true);

    const networkStart = performance.now();
    const finalMain = recorder.mainDocument();
    const mainDocumentUrls = recorder.mainDocumentUrls();
    const browser = page.browser();
    const browserVersion = await bounded(browser.version());
    const userAgent = sentUserAgent;
    const network = await recorder.finish(BODY_WAIT_MS);
    notes.push(...network.notes);
    const wrappedPdf = viewerWrappedPdf(network.exchanges, finalUrl);
    if (wrappedPdf) {
      await bounded(loadDocumentBytes(session, mainFrameId, wrappedPdf.url)).then(
        (bytes) => void (wrappedPdf.body = bytes),
        (error: unknown) => {
          if (signal.aborted || isCaptureError(error)) throw error;
          // Never archive the viewer's wrapper as if it were the document.
          throw new CaptureError('capture_failed', 'The PDF document could not be archived', true, { cause: error });
        },
      );
    }
    const networkMs = since(networkStart);

    const stages: RenderStages = { navigationMs, scrollMs, screenshotMs, htmlMs, networkMs };
    if (settle) stages.settleMs = settle.elapsedMs;
    if (consent) stages.consentMs = consent.durationMs;
    if (screenshotBeforeMs !== undefined) stages.screenshotBeforeMs = screenshotBeforeMs;
    const render: RenderInfo = settle
      ? { waitUntilReached: 'load', timedOut: false, durationMs: Math.round(captureMoment - navigationStart), settleMs: settle.elapsedMs, settleReason: settle.reason, stages }
      : { waitUntilReached: 'domcontentloaded', timedOut: true, durationMs: Math.round(captureMoment - navigationStart), stages };

    const result: PageCaptureResult = {
      renderQuality: timedOut || selectorWait?.found === false ? 'partial' : 'full',
      render,
      screenshot: shot.png,
      html,
      headers: finalMain ? headersArtifact(finalMain.headers) : null,
      finalUrl,
      mainStatus: finalMain?.status ?? 0,
      title,
      exchanges: network.exchanges,
      settings,
      mainDocumentUrls,
      browser: { version: browserVersion, userAgent },
      notes,
    };
    if (selectorWait) result.selectorWait = selectorWait;
    if (pdf) result.pdf = pdf;
    if (screenshotBefore) result.screenshotBefore = screenshotBefore;
    if (consent) result.consent = consent;
    return result;
  }
}

/** Navigates to `url`; resolves true when it timed out after DOMContentLoaded (a partial capture). */
async function navigate(
  page: Page,
  url: string,
  options: PageCaptureOptions,
  recorder: NetworkRecorder,
  steps: StepBounds,
  signal: AbortSignal,
  domContentLoaded: () => boolean,
): Promise<boolean> {
  try {
    // timeoutMs is the page's time to reach load, counted on the page clock (not puppeteer's wall clock).
    await steps.page(page.goto(url, { waitUntil: 'load', timeout: 0 }), options.timeoutMs);
    return false;
  } catch (error) {
    if (signal.aborted) throw error;
    const failure = recorder.mainDocumentFailure();
    const failedUrl = failure?.url || recorder.mainDocumentUrls().at(-1) || url;
    if (error instanceof TimeoutError || (isCaptureError(error) && error.code === 'timeout')) {
      if (domContentLoaded()) return true;
      const explained = blockedResponse(failedUrl, options.explainNetworkError);
      if (explained) throw explained;
      throw new CaptureError('timeout', `The page did not load within ${Math.round(options.timeoutMs / 1000)} s`, true, { cause: error });
    }
    throw navigationFailure({
      errorText: failure?.errorText || (error instanceof Error ? error.message : String(error)),
      url: failedUrl,
      explain: options.explainNetworkError,
      cause: error,
    });
  }
}

/** page.content(), tried once more if the page replaced its document (script redirect) meanwhile. */
async function readHtml(page: Page, steps: StepBounds, signal: AbortSignal): Promise<string> {
  try {
    return await steps.page(page.content());
  } catch (error) {
    if (signal.aborted || isCaptureError(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 250));
    return steps.page(page.content());
  }
}

/** The bounds of one capture's steps, all counted on its page clock and all ended by its abort. */
interface StepBounds {
  /** A step of the page's, from navigation on: too slow means the page stopped responding. */
  page<T>(work: Promise<T>, ms?: number): Promise<T>;
  /** A step of the service's own (opening the page, its protocol session): too slow is retried later, not the page's failure. */
  service<T>(work: Promise<T>): Promise<T>;
}

function stepBounds(signal: AbortSignal, clock: PageClock): StepBounds {
  return {
    page: (work, ms = STEP_TIMEOUT_MS) =>
      withTimeout(work, ms, () => new CaptureError('timeout', 'The page stopped responding while it was being captured', true), signal, clock),
    service: (work) =>
      withTimeout(
        work,
        SERVICE_STEP_TIMEOUT_MS,
        () => new CaptureError('service_busy', 'The capture service could not open a browser page in time; it will try again', true),
        signal,
        clock,
      ),
  };
}

/** The `pdf` artifact: Chromium's print of the page as it is now (print media, backgrounds kept). */
async function printPdf(page: Page, steps: StepBounds): Promise<Buffer> {
  // Chromium's own print timeout is off: the page-clock bound decides.
  const bytes = await steps.page(page.pdf({ printBackground: true, timeout: 0 }), STEP_TIMEOUT_MS + 2000);
  return Buffer.from(bytes);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function since(start: number): number {
  return Math.round(performance.now() - start);
}

function stoppedError(signal: AbortSignal): CaptureError {
  const reason: unknown = signal.reason;
  return isCaptureError(reason) ? reason : new CaptureError('timeout', 'The capture took too long and was stopped', true);
}

function toCaptureError(
  error: unknown,
  ctx: { browser: Browser; external: AbortSignal | undefined; internal: AbortSignal },
): CaptureError {
  if (ctx.external?.aborted) return stoppedError(ctx.external);
  if (ctx.internal.aborted) return abortReason(ctx.internal) as CaptureError;
  if (!ctx.browser.connected) return new CaptureError('browser_crashed', 'The browser stopped during the capture', true, { cause: error });
  if (isCaptureError(error)) return error;
  return new CaptureError('capture_failed', 'The page could not be captured', true, { cause: error });
}

function sameViewport(a: PreparedContext['viewport'], b: PreparedContext['viewport']): boolean {
  return a.width === b.width && a.height === b.height && a.deviceScaleFactor === b.deviceScaleFactor;
}
