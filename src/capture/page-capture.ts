/**
 * One capture of one URL in its own browser context (no cookies or cache shared with other captures):
 * navigate to `load` (or settle for a partial capture after DOMContentLoaded); then, side by side from the
 * load event, settle, run the behaviors (scroll for lazy content, expand, play media …: behaviors/) and detect
 * a consent banner; answer the banner; then take the
 * full-page PNG, the rendered HTML, the main document's headers and every network exchange.
 * Spec 2.3 (renderQuality, render) and 2.4 (artifacts).
 */
import type { Logger } from 'pino';
import type { Browser, BrowserContext } from 'puppeteer-core';
import { CaptureError, isCaptureError, type ExplainNetworkError } from './capture-error.js';
import { openCaptureContext, type PreparedContext } from './capture-context.js';
import { runSteps, type Step } from './capture-steps.js';
import { type PageClock, wallClock } from './host-load.js';
import { createNetworkRecorder, DEFAULT_MAX_RECORDED_BODY_BYTES } from './network-recorder.js';
import { abortReason, withTimeout } from './step-timeout.js';
import { afterBehaviorsStep, behaving, type Behaving, behaviorsStep } from './steps/behaviors.js';
import { type CaptureGiven, type StepBounds, stepBounds } from './steps/capture-given.js';
import { captureResult, type PageCaptureResult } from './steps/capture-result.js';
import { answerConsentStep, type Consent, consent, detectConsentStep } from './steps/consent.js';
import { type DocumentQuiet, documentQuiet, inspectDocumentStep } from './steps/inspect-document.js';
import { type Navigation, navigateStep, navigation, selectorStep } from './steps/navigation.js';
import { networkRecord, type NetworkRecord, networkStep } from './steps/network.js';
import { type PageWatch, pageWatch, prepareStep } from './steps/page-watch.js';
import { loadProfileStep, type ProfileLoading, profileLoadedStep, profileLoading } from './steps/profile.js';
import { releaseStep } from './steps/release.js';
import { challengeStep, htmlStep, renderedDocument, type RenderedDocument } from './steps/rendered-document.js';
import { elementBoxesStep, pdfStep, type Picture, picture, screenshotStep } from './steps/screenshot.js';
import {
  endRecordingStep,
  recordSessionStep,
  sessionRecording,
  type SessionRecordingSlice,
  sessionVideoStep,
} from './steps/session-recording.js';
import { delayStep, settleStep, settling, type Settling } from './steps/settle-phase.js';
import { DEFAULT_CAPTURE_SETTINGS, type CaptureSettings } from '../domain/capture-options.js';
import type { BrowserState } from '../profiles/browser-state.js';

export type { PageCaptureResult, QuietWindows, RenderInfo, RenderStages } from './steps/capture-result.js';

export interface PageCaptureOptions {
  /** Time allowed for navigation to reach `load`. */
  timeoutMs: number;
  /** Hard cap of the settle phase after load (spec 8.3: 3 s). */
  settleCapMs?: number;
  /** The settle phase ends once no request has been in flight for this long. */
  quietWindowMs?: number;
  viewport?: { width: number; height: number };
  /** The tenant's capture options with defaults filled in (docs/capturing.md, Capture options); absent: the defaults. Wins over `viewport`. */
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
  /** Each step of the capture, by name, with its time (debug level). */
  log?: Pick<Logger, 'debug'>;
  /**
   * A browser profile's contents, loaded into the fresh context before navigation (src/profiles/profile-step.ts).
   * A promise: the caller opens the profile while the context is being prepared; a rejection fails the capture.
   */
  profile?: Promise<{ state: BrowserState }>;
  /**
   * Given: capturePage settles as soon as the capture is taken (or has failed) and hands the closing of its context
   * here, for the caller to hold what it must until it ends; absent: the context is closed before capturePage settles.
   */
  onClosing?: (closing: Promise<void>) => void;
}

export const DEFAULT_SETTLE_CAP_MS = 3000;
export const DEFAULT_QUIET_WINDOW_MS = 500;
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 } as const;

const CONTEXT_CLOSE_TIMEOUT_MS = 5000;

export async function capturePage(
  browser: Browser,
  url: string,
  options: PageCaptureOptions,
): Promise<PageCaptureResult> {
  const external = options.signal;
  // A profile that fails to open before the load-profile step runs fails the capture there, not the process.
  options.profile?.catch(() => {});
  if (external?.aborted) {
    const unused = options.prepared?.then((prepared) => prepared.context.close());
    if (unused)
      await withTimeout(unused, CONTEXT_CLOSE_TIMEOUT_MS, () => new Error('context close timed out')).catch(() => {});
    throw stoppedError(external);
  }
  // Aborted by the caller, by a renderer crash, or by the browser going away: every step stops at once.
  const internal = new AbortController();
  const signal = external ? AbortSignal.any([external, internal.signal]) : internal.signal;
  const onDisconnect = () =>
    internal.abort(new CaptureError('browser_crashed', 'The browser stopped during the capture', true));
  browser.on('disconnected', onDisconnect);

  let context: BrowserContext | undefined;
  let closing: Promise<void> | undefined;
  const closeContext = (): Promise<void> => {
    if (!context) return Promise.resolve();
    closing ??= withTimeout(
      context.close(),
      CONTEXT_CLOSE_TIMEOUT_MS,
      () => new Error('context close timed out'),
    ).catch(() => {});
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
    const bounds = stepBounds(signal, options.clock ?? wallClock);
    return await captureInContext(await bounds.service(opening), url, options, bounds, signal, internal);
  } catch (error) {
    throw toCaptureError(error, { browser, external, internal: internal.signal });
  } finally {
    external?.removeEventListener('abort', onExternalAbort);
    browser.off('disconnected', onDisconnect);
    // A capture stopped while its context was still being opened closes that context too: when capturePage
    // settles (with onClosing, when the closing handed there ends), nothing it opened is left (bounded against a
    // hung browser).
    await withTimeout(opened, CONTEXT_CLOSE_TIMEOUT_MS, () => new Error('context open did not settle')).catch(() => {});
    const closed = closeContext();
    if (options.onClosing) options.onClosing(closed);
    else await closed;
  }
}

/**
 * What the steps of one capture share: what it was given, then one slice per group of steps (steps/). A step
 * writes only the slice of its own group and reads the others it names in its type; a step that only needs
 * the given (say, one that loads something into the fresh context before navigation) is one file in steps/
 * and one line in CAPTURE_STEPS.
 */
export interface CaptureState {
  readonly given: CaptureGiven;
  /** prepare */
  readonly watch: PageWatch;
  /** load-profile, profile-loaded */
  readonly profile: ProfileLoading;
  /** record-session, end-recording, session-video */
  readonly recording: SessionRecordingSlice;
  /** navigate, wait-for-selector */
  readonly navigation: Navigation;
  /** inspect-document */
  readonly quiet: DocumentQuiet;
  /** detect-consent, answer-consent */
  readonly consent: Consent;
  /** behaviors, after-behaviors */
  readonly behaviors: Behaving;
  /** settle */
  readonly settle: Settling;
  /** element-boxes, screenshot, pdf */
  readonly picture: Picture;
  /** html */
  readonly document: RenderedDocument;
  /** network */
  readonly network: NetworkRecord;
}

/**
 * One capture, in order. Navigation to `load` (or DOMContentLoaded for a partial capture); then, side by side
 * from the load event: consent detection starts in the page, the page is scrolled for lazy content, and the
 * settle phase waits for quiet; then the consent banner is answered and the evidence taken. Steps that start
 * something beside the next ones (load-profile, detect-consent, behaviors) leave a promise in their slice that a later step
 * awaits. Each step's name, condition and work are in its file under steps/.
 */
const CAPTURE_STEPS: ReadonlyArray<Step<CaptureState>> = [
  loadProfileStep,
  prepareStep,
  profileLoadedStep,
  recordSessionStep,
  navigateStep,
  selectorStep,
  inspectDocumentStep,
  detectConsentStep,
  behaviorsStep,
  settleStep,
  afterBehaviorsStep,
  delayStep,
  answerConsentStep,
  endRecordingStep,
  elementBoxesStep,
  screenshotStep,
  pdfStep,
  htmlStep,
  challengeStep,
  networkStep,
  sessionVideoStep,
  releaseStep,
];

async function captureInContext(
  prepared: PreparedContext,
  url: string,
  options: PageCaptureOptions,
  bounds: StepBounds,
  signal: AbortSignal,
  internal: AbortController,
): Promise<PageCaptureResult> {
  const { page, session, mainFrameId } = prepared;
  const recorder = createNetworkRecorder(session, {
    mainFrameId,
    maxBodyBytes: options.maxRecordedBodyBytes ?? DEFAULT_MAX_RECORDED_BODY_BYTES,
  });
  const given: CaptureGiven = {
    url,
    options,
    settings: options.settings ?? { ...DEFAULT_CAPTURE_SETTINGS, viewport: options.viewport ?? DEFAULT_VIEWPORT },
    prepared,
    page,
    session,
    mainFrameId,
    clock: options.clock ?? wallClock,
    bounds,
    signal,
    internal,
    settleCapMs: options.settleCapMs ?? DEFAULT_SETTLE_CAP_MS,
    recorder,
    notes: [],
  };
  const state: CaptureState = {
    given,
    watch: pageWatch(given),
    profile: profileLoading(),
    recording: sessionRecording(),
    navigation: navigation(),
    quiet: documentQuiet(options.quietWindowMs ?? DEFAULT_QUIET_WINDOW_MS),
    consent: consent(),
    behaviors: behaving(),
    settle: settling(),
    picture: picture(),
    document: renderedDocument(),
    network: networkRecord(),
  };
  const timings = await runSteps(CAPTURE_STEPS, state, options.log);
  return captureResult(state, timings);
}

function stoppedError(signal: AbortSignal): CaptureError {
  const reason: unknown = signal.reason;
  return isCaptureError(reason)
    ? reason
    : new CaptureError('timeout', 'The capture took too long and was stopped', true);
}

function toCaptureError(
  error: unknown,
  ctx: { browser: Browser; external: AbortSignal | undefined; internal: AbortSignal },
): CaptureError {
  if (ctx.external?.aborted) return stoppedError(ctx.external);
  if (ctx.internal.aborted) return abortReason(ctx.internal) as CaptureError;
  if (!ctx.browser.connected)
    return new CaptureError('browser_crashed', 'The browser stopped during the capture', true, { cause: error });
  if (isCaptureError(error)) return error;
  return new CaptureError('capture_failed', 'The page could not be captured', true, { cause: error });
}
