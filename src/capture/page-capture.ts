/**
 * One capture of one URL in its own browser context (no cookies or cache shared with other captures):
 * navigate to `load` (or settle for a partial capture after DOMContentLoaded), settle, scroll for lazy
 * content, handle a consent banner, then take the full-page PNG, the rendered HTML, the main document's
 * headers and every network exchange. Spec 2.3 (renderQuality, render) and 2.4 (artifacts).
 */
import { TimeoutError, type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { blockedResponse, CaptureError, isCaptureError, navigationFailure, type ExplainNetworkError } from './capture-error.js';
import { startConsentRun, type ConsentInfo, type ConsentRun } from './consent-handler.js';
import { captureFullPage, DEFAULT_MAX_SCREENSHOT_HEIGHT_PX } from './full-page-screenshot.js';
import { headersArtifact, type HeadersArtifact } from './http-headers.js';
import { scrollThroughPage } from './lazy-scroll.js';
import type { NetworkExchange } from './network-exchange.js';
import { createNetworkRecorder, DEFAULT_MAX_RECORDED_BODY_BYTES, type NetworkRecorder } from './network-recorder.js';
import { waitForNetworkQuiet, type SettleResult } from './settle.js';
import { abortReason, withTimeout } from './step-timeout.js';

export interface PageCaptureOptions {
  /** Time allowed for navigation to reach `load`. */
  timeoutMs: number;
  /** Hard cap of the settle phase after load (spec 8.3: 3 s). */
  settleCapMs?: number;
  /** The settle phase ends once no request has been in flight for this long. */
  quietWindowMs?: number;
  viewport?: { width: number; height: number };
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
}

export interface RenderStages {
  navigationMs: number;
  settleMs?: number;
  scrollMs: number;
  /** Detection runs while scrolling, so it overlaps scrollMs. */
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
  /** Things an operator may want to know: screenshot cut, responses left out of `exchanges`, … */
  notes: string[];
}

export const DEFAULT_SETTLE_CAP_MS = 3000;
export const DEFAULT_QUIET_WINDOW_MS = 500;
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 } as const;

const SCROLL_BUDGET_MS = 1200;
const AFTER_SCROLL_QUIET = { quietWindowMs: 300, capMs: 800 };
const CONSENT_START_MS = 3000;
const CONSENT_DETECT_MS = 2000; // counted from injection; detection overlaps the scroll
const CONSENT_OPT_OUT_MS = 6000;
const AFTER_CONSENT_QUIET = { quietWindowMs: 300, capMs: 1000 };
const STEP_TIMEOUT_MS = 10_000;
const SCREENSHOT_SLICE_TIMEOUT_MS = 15_000;
const BODY_WAIT_MS = 5000;
const CONTEXT_CLOSE_TIMEOUT_MS = 5000;

export async function capturePage(browser: Browser, url: string, options: PageCaptureOptions): Promise<PageCaptureResult> {
  const external = options.signal;
  if (external?.aborted) throw stoppedError(external);
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
  try {
    if (!browser.connected) onDisconnect();
    // Downloads are refused: a capture never writes what a page offers to the worker's disk.
    const creating = browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } });
    creating.then(
      (created) => {
        context = created;
        if (signal.aborted) void closeContext(); // arrived after the capture was given up
      },
      () => {},
    );
    const created = await bounded(creating, signal);
    return await captureInContext(created, url, options, signal, internal);
  } catch (error) {
    throw toCaptureError(error, { browser, external, internal: internal.signal });
  } finally {
    external?.removeEventListener('abort', onExternalAbort);
    browser.off('disconnected', onDisconnect);
    await closeContext();
  }
}

async function captureInContext(
  context: BrowserContext,
  url: string,
  options: PageCaptureOptions,
  signal: AbortSignal,
  internal: AbortController,
): Promise<PageCaptureResult> {
  const settleCapMs = options.settleCapMs ?? DEFAULT_SETTLE_CAP_MS;
  const quietWindowMs = options.quietWindowMs ?? DEFAULT_QUIET_WINDOW_MS;
  const viewport = options.viewport ?? DEFAULT_VIEWPORT;
  const notes: string[] = [];

  const page = await bounded(context.newPage(), signal);
  page.on('error', () => internal.abort(new CaptureError('page_crashed', 'The page crashed the browser tab while rendering', true)));
  // An alert() left open blocks the page's scripts, its load event and the screenshot.
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
  await bounded(page.setViewport({ ...viewport, deviceScaleFactor: 1 }), signal);
  const session = await bounded(page.createCDPSession(), signal);
  const { frameTree } = await bounded(session.send('Page.getFrameTree'), signal);
  const mainFrameId = frameTree.frame.id;
  const recorder = createNetworkRecorder(session, {
    mainFrameId,
    maxBodyBytes: options.maxRecordedBodyBytes ?? DEFAULT_MAX_RECORDED_BODY_BYTES,
  });
  const shoot = () =>
    captureFullPage(session, { maxHeightPx: options.maxScreenshotHeightPx, sliceTimeoutMs: SCREENSHOT_SLICE_TIMEOUT_MS, signal });

  try {
    await bounded(recorder.start(), signal);
    return await run();
  } finally {
    recorder.dispose();
  }

  /** Waits for autoconsent's verdict; with a banner: screenshot it, opt out, let the page react. */
  async function answerConsentBanner(
    consentRun: ConsentRun | null,
    consentStart: number,
  ): Promise<{ consent: ConsentInfo; screenshotBefore?: Buffer; screenshotBeforeMs?: number }> {
    if (consentRun === null) return { consent: { attempted: true, cmp: null, result: 'failed', durationMs: since(consentStart) } };
    try {
      const cmp = await consentRun.waitForBanner(Math.max(0, CONSENT_DETECT_MS - since(consentStart)));
      if (!cmp) return { consent: { attempted: true, cmp: null, result: 'not-found', durationMs: since(consentStart) } };
      const beforeStart = performance.now();
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
      await consentRun.dispose();
    }
  }

  async function run(): Promise<PageCaptureResult> {
    // 1. Navigation (spec 2.3: 'full' needs load; 'partial' needs at least DOMContentLoaded).
    let domContentLoaded = false;
    page.on('domcontentloaded', () => (domContentLoaded = true));
    const navigationStart = performance.now();
    const timedOut = await navigate(page, url, options, recorder, signal, () => domContentLoaded);
    const navigationMs = since(navigationStart);

    const main = recorder.mainDocument();
    if (main && main.status >= 400) {
      const blocked = blockedResponse(main.url, options.explainNetworkError);
      if (blocked) throw blocked;
    }

    // 2. Adaptive settle, only after a real load.
    let settle: SettleResult | undefined;
    if (!timedOut) settle = await waitForNetworkQuiet(recorder, { quietWindowMs, capMs: settleCapMs, signal });

    // 3. Consent detection starts in the page and runs while we scroll for lazy content.
    const consentStart = performance.now();
    const consentRun =
      options.handleConsent === false
        ? undefined
        : await bounded(startConsentRun(session, { mainFrameId, url: page.url() }), signal, CONSENT_START_MS).catch((error: unknown) => {
            if (signal.aborted) throw error;
            return null; // could not inject: recorded as a failed attempt below
          });

    const scrollStart = performance.now();
    const scrolled = await bounded(scrollThroughPage(session, { mainFrameId, budgetMs: SCROLL_BUDGET_MS }), signal, SCROLL_BUDGET_MS + 2000).catch(
      (error: unknown) => {
        if (signal.aborted) throw error;
        notes.push('scrolling for lazy content failed');
        return undefined;
      },
    );
    if (scrolled && !scrolled.reachedBottom) notes.push(`scrolling for lazy content stopped at ${scrolled.reachedY} px (time budget)`);
    await waitForNetworkQuiet(recorder, { ...AFTER_SCROLL_QUIET, signal });
    const scrollMs = since(scrollStart);

    const { consent, screenshotBefore, screenshotBeforeMs } =
      consentRun === undefined ? {} : await answerConsentBanner(consentRun, consentStart);

    // 4. The evidence itself.
    const captureMoment = performance.now();
    const shot = await shoot();
    const screenshotMs = since(captureMoment);
    if (shot.height < shot.pageHeight) {
      const maxHeight = options.maxScreenshotHeightPx ?? DEFAULT_MAX_SCREENSHOT_HEIGHT_PX;
      notes.push(`screenshot cut at ${maxHeight} px of a ${shot.pageHeight} px page`);
    }

    const htmlStart = performance.now();
    const html = await readHtml(page, signal);
    const title = await bounded(page.title(), signal).catch(() => '');
    const finalUrl = page.url();
    const htmlMs = since(htmlStart);

    const networkStart = performance.now();
    const finalMain = recorder.mainDocument();
    const network = await recorder.finish(BODY_WAIT_MS);
    notes.push(...network.notes);
    const networkMs = since(networkStart);

    const stages: RenderStages = { navigationMs, scrollMs, screenshotMs, htmlMs, networkMs };
    if (settle) stages.settleMs = settle.elapsedMs;
    if (consent) stages.consentMs = consent.durationMs;
    if (screenshotBeforeMs !== undefined) stages.screenshotBeforeMs = screenshotBeforeMs;
    const render: RenderInfo = settle
      ? { waitUntilReached: 'load', timedOut: false, durationMs: Math.round(captureMoment - navigationStart), settleMs: settle.elapsedMs, settleReason: settle.reason, stages }
      : { waitUntilReached: 'domcontentloaded', timedOut: true, durationMs: Math.round(captureMoment - navigationStart), stages };

    const result: PageCaptureResult = {
      renderQuality: timedOut ? 'partial' : 'full',
      render,
      screenshot: shot.png,
      html,
      headers: finalMain ? headersArtifact(finalMain.headers) : null,
      finalUrl,
      mainStatus: finalMain?.status ?? 0,
      title,
      exchanges: network.exchanges,
      notes,
    };
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
  signal: AbortSignal,
  domContentLoaded: () => boolean,
): Promise<boolean> {
  try {
    // Puppeteer enforces timeoutMs; the outer bound only guards against a hung protocol.
    await bounded(page.goto(url, { waitUntil: 'load', timeout: options.timeoutMs }), signal, options.timeoutMs + 5000);
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
async function readHtml(page: Page, signal: AbortSignal): Promise<string> {
  try {
    return await bounded(page.content(), signal);
  } catch (error) {
    if (signal.aborted || isCaptureError(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 250));
    return bounded(page.content(), signal);
  }
}

function bounded<T>(work: Promise<T>, signal: AbortSignal, ms = STEP_TIMEOUT_MS): Promise<T> {
  return withTimeout(work, ms, () => new CaptureError('timeout', 'The page stopped responding while it was being captured', true), signal);
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

