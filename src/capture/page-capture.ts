/**
 * One capture of one URL in its own browser context (no cookies or cache shared with other captures):
 * navigate to `load` (or settle for a partial capture after DOMContentLoaded); then, side by side from the
 * load event, settle, run the behaviors (scroll for lazy content, expand, play media …: behaviors/) and detect
 * a consent banner; answer the banner; then take the
 * full-page PNG, the rendered HTML, the main document's headers and every network exchange.
 * Spec 2.3 (renderQuality, render) and 2.4 (artifacts).
 */
import type { Logger } from 'pino';
import { TimeoutError, type Browser, type BrowserContext, type CDPSession, type Page } from 'puppeteer-core';
import {
  blockedResponse,
  CaptureError,
  isCaptureError,
  navigationFailure,
  type ExplainNetworkError,
} from './capture-error.js';
import {
  preloadConsent,
  startConsentRun,
  type ConsentInfo,
  type ConsentPreload,
  type ConsentRun,
} from './consent-handler.js';
import { type ConsentDetection, type ConsentLooks, startConsentLooks } from './consent-looks.js';
import { captureFullPage, DEFAULT_MAX_SCREENSHOT_HEIGHT_PX } from './full-page-screenshot.js';
import { type ElementBoxes, measureElementBoxes } from './element-boxes.js';
import { headersArtifact, type HeadersArtifact } from './http-headers.js';
import { runBehaviors, type BehaviorsReport } from './behaviors/run-behaviors.js';
import { BEHAVIOR_QUIET_WINDOW_MS } from './behaviors/behavior.js';
import { type PageWorld, pageWorld } from './behaviors/page-world.js';
import { type DocumentDynamics, documentDynamics, STATIC_QUIET_WINDOW_MS } from './static-document.js';
import type { NetworkExchange } from '../domain/network-exchange.js';
import {
  createNetworkRecorder,
  DEFAULT_MAX_RECORDED_BODY_BYTES,
  type MainDocument,
  type NetworkRecorder,
} from './network-recorder.js';
import {
  combinedInflight,
  waitForNetworkQuiet,
  watchNetworkActivity,
  type InflightSource,
  type NetworkActivity,
  type SettleResult,
} from './settle.js';
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
import { runSteps, type Step, type StepTimings } from './capture-steps.js';
import { startSessionRecorder, type SessionRecorder, type SessionRecording } from './session-recorder.js';
import { DEFAULT_CAPTURE_SETTINGS, type CaptureSettings } from '../domain/capture-options.js';
import type { BrowserState } from '../profiles/browser-state.js';
import { loadProfileIntoPage } from '../profiles/profile-step.js';

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
  /** A browser profile's contents, loaded into the fresh context before navigation (src/profiles/profile-step.ts). */
  profile?: BrowserState;
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

const PREPARED_VIEWPORT = {
  ...DEFAULT_CAPTURE_SETTINGS.viewport,
  deviceScaleFactor: DEFAULT_CAPTURE_SETTINGS.deviceScaleFactor,
};

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
  /** The auto-scroll behavior's time (0 when it did not run). */
  scrollMs: number;
  /** All behaviors together (behaviors/run-behaviors.ts), from the load event. */
  behaviorsMs?: number;
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
  /** For captureSettings.consentDetection (consent-looks.ts): the looks taken and the wait for the verdict after settling. */
  consentDetection?: ConsentDetection;
  exchanges: NetworkExchange[];
  /** What the capture used (docs/capturing.md, Capture options), for captureSettings. */
  settings: CaptureSettings;
  /** Outcome of the waitForSelector step; absent when no selector was asked for. */
  selectorWait?: SelectorWaitResult;
  /** For the provenance record: the main document's URLs in order (requested, then each redirect target). */
  mainDocumentUrls: string[];
  /** For the provenance record: Chromium's product string (e.g. `Chrome/131.0.6778.139`) and user agent. */
  browser: { version: string; userAgent: string };
  /** The page printed to PDF; only with settings.pdf. */
  pdf?: Buffer;
  /** What the browser showed from navigation to the screenshot (session-recorder.ts); only with settings.recordSession. */
  sessionRecording?: SessionRecording;
  /** Things an operator may want to know: screenshot cut, responses left out of `exchanges`, … */
  notes: string[];
  /** Which behaviors ran, for how long and what each did (captureSettings.behaviors); absent on a partial capture's failure to run them. */
  behaviors?: BehaviorsReport;
  /** Where settings.recordBoxes' elements were on the screenshot (element-boxes.ts); absent when none were asked for or they could not be measured. */
  elementBoxes?: ElementBoxes;
  /** Whether the page could change by itself and the quiet windows it got (static-document.ts); absent on a partial capture. */
  quiet?: QuietWindows;
}

/** captureSettings.quiet: the verdict of static-document.ts and the windows the capture waited for. */
export interface QuietWindows {
  document: 'static' | 'dynamic';
  dynamicBecause?: string;
  /** The settle phase's quiet window. */
  settleWindowMs: number;
  /** The behaviors' and the after-scroll wait's quiet window. */
  afterActionWindowMs: number;
}

export const DEFAULT_SETTLE_CAP_MS = 3000;
export const DEFAULT_QUIET_WINDOW_MS = 500;
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 } as const;

const AFTER_SCROLL_QUIET = { quietWindowMs: 300, capMs: 800 };
const CONSENT_START_MS = 3000;
const CONSENT_DETECT_MS = 2000; // each look's, counted from its start; detection overlaps settle and scroll
const CONSENT_OPT_OUT_MS = 6000;
/** How long the banner's frame may take to draw before screenshotBefore (page time). */
const CONSENT_PAINT_MS = 2000;
const AFTER_CONSENT_QUIET = { quietWindowMs: 300, capMs: 1000 };
const STEP_TIMEOUT_MS = 10_000;
/** The behaviors' own budget is theirs to keep (run-behaviors.ts); this only bounds a renderer that stopped answering. */
const BEHAVIORS_OVERRUN_MS = 10_000;
/** Opening the page and its protocol session: the service's own steps, bounded only against a hung browser. */
const SERVICE_STEP_TIMEOUT_MS = 60_000;
const SCREENSHOT_SLICE_TIMEOUT_MS = 15_000;
const BODY_WAIT_MS = 5000;
const CONTEXT_CLOSE_TIMEOUT_MS = 5000;

export async function capturePage(
  browser: Browser,
  url: string,
  options: PageCaptureOptions,
): Promise<PageCaptureResult> {
  const external = options.signal;
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
    // A capture stopped while its context was still being opened closes that context too before it
    // returns: when capturePage settles, nothing it opened is left (bounded against a hung browser).
    await withTimeout(opened, CONTEXT_CLOSE_TIMEOUT_MS, () => new Error('context open did not settle')).catch(() => {});
    await closeContext();
  }
}

/** What the steps of one capture share: what it was given, then what each step found. */
interface CaptureState {
  readonly url: string;
  readonly options: PageCaptureOptions;
  readonly settings: CaptureSettings;
  readonly prepared: PreparedContext;
  readonly page: Page;
  readonly session: CDPSession;
  readonly mainFrameId: string;
  readonly clock: PageClock;
  readonly bounds: StepBounds;
  readonly signal: AbortSignal;
  readonly internal: AbortController;
  readonly settleCapMs: number;
  /** The settle phase's quiet window: the option's (500 ms by default), STATIC_QUIET_WINDOW_MS on a static page. */
  quietWindowMs: number;
  readonly recorder: NetworkRecorder;
  /** Things an operator may want to know, added by any step. */
  readonly notes: string[];
  // prepare
  /** What the settle phase waits for: the page's requests and its pending short timers (pending-timers.ts). */
  pending: InflightSource;
  activity?: NetworkActivity;
  timers?: PendingTimers;
  consentPreload?: ConsentPreload;
  /** Whether the loaded page can change by itself (static-document.ts): a static one gets short quiet windows. */
  dynamics?: DocumentDynamics;
  /** The behaviors' isolated world of the main frame, made once for the inspection and the behaviors. */
  behaviorWorld?: PageWorld;
  stopFollowingFrames?: () => void;
  // navigate, wait-for-selector
  navigationStart: number;
  navigationMs: number;
  /** Navigation timed out after DOMContentLoaded: a partial capture. */
  timedOut: boolean;
  /** From when the settle phase counts: the load event, or the end of the selector wait. */
  settleFrom?: number;
  selectorWait?: SelectorWaitResult;
  // detect-consent, scroll, settle, after-scroll, answer-consent
  consentStart: number;
  consentLooks?: ConsentLooks;
  consentDetection?: ConsentDetection;
  behaving?: Promise<BehaviorsReport | undefined>;
  behaviors?: BehaviorsReport;
  scrollMs: number;
  settle?: SettleResult;
  settledAt: number;
  consent?: ConsentInfo;
  screenshotBefore?: Buffer;
  screenshotBeforeMs?: number;
  // screenshot, pdf, html, network
  /** When the (final) screenshot was taken: the end of render.durationMs. */
  captureMoment: number;
  elementBoxes?: ElementBoxes;
  screenshot?: Buffer;
  pdf?: Buffer;
  // record-session, end-recording, session-video
  sessionRecorder?: SessionRecorder;
  sessionEncoding?: Promise<SessionRecording>;
  sessionRecording?: SessionRecording;
  html: string;
  /** The main document's HTML without its frames', when rendered-html.ts could read it. */
  mainHtml?: string;
  title: string;
  finalUrl: string;
  network?: {
    finalMain: MainDocument | undefined;
    mainDocumentUrls: string[];
    browserVersion: string;
    exchanges: NetworkExchange[];
  };
}

/**
 * One capture, in order. Navigation to `load` (or DOMContentLoaded for a partial capture); then, side by side
 * from the load event: consent detection starts in the page, the page is scrolled for lazy content, and the
 * settle phase waits for quiet; then the consent banner is answered and the evidence taken. Steps that start
 * something beside the next ones (detect-consent, scroll) leave a promise in the state that a later step awaits.
 */
const CAPTURE_STEPS: ReadonlyArray<Step<CaptureState>> = [
  { name: 'prepare', run: prepare },
  {
    name: 'load-profile',
    when: (s) => s.options.profile !== undefined,
    run: (s) => s.bounds.service(loadProfileIntoPage(s.session, s.options.profile!)),
  },
  { name: 'record-session', when: (s) => s.settings.recordSession, run: startRecording },
  { name: 'navigate', run: navigateToLoad },
  {
    name: 'wait-for-selector',
    when: (s) => s.settings.waitForSelector !== null && !s.timedOut,
    run: waitForTenantSelector,
  },
  { name: 'inspect-document', when: (s) => !s.timedOut, run: inspectDocument },
  { name: 'detect-consent', when: (s) => s.options.handleConsent !== false, run: startConsentDetection },
  { name: 'behaviors', run: startBehaviors },
  { name: 'settle', run: settle },
  { name: 'after-behaviors', run: quietAfterBehaviors },
  { name: 'delay', when: (s) => s.settings.delayMs > 0, run: tenantDelay },
  { name: 'answer-consent', when: (s) => s.consentLooks !== undefined, run: answerConsentBanner },
  { name: 'end-recording', when: (s) => s.sessionRecorder !== undefined, run: endRecording },
  {
    name: 'element-boxes',
    when: (s) => s.settings.recordBoxes.length > 0 || s.settings.recordTextBoxes.length > 0,
    run: measureBoxes,
  },
  { name: 'screenshot', run: takeScreenshot },
  { name: 'pdf', when: (s) => s.settings.pdf, run: printPdf },
  { name: 'html', run: readRenderedHtml },
  { name: 'challenge', run: refuseChallengePage },
  { name: 'network', run: collectNetwork },
  { name: 'session-video', when: (s) => s.sessionEncoding !== undefined, run: awaitSessionVideo },
  { name: 'release', alwaysRun: true, run: release },
];

async function captureInContext(
  prepared: PreparedContext,
  url: string,
  options: PageCaptureOptions,
  bounds: StepBounds,
  signal: AbortSignal,
  internal: AbortController,
): Promise<PageCaptureResult> {
  const clock = options.clock ?? wallClock;
  const { page, session, mainFrameId } = prepared;
  const recorder = createNetworkRecorder(session, {
    mainFrameId,
    maxBodyBytes: options.maxRecordedBodyBytes ?? DEFAULT_MAX_RECORDED_BODY_BYTES,
  });
  const state: CaptureState = {
    url,
    options,
    settings: options.settings ?? { ...DEFAULT_CAPTURE_SETTINGS, viewport: options.viewport ?? DEFAULT_VIEWPORT },
    prepared,
    page,
    session,
    mainFrameId,
    clock,
    bounds,
    signal,
    internal,
    settleCapMs: options.settleCapMs ?? DEFAULT_SETTLE_CAP_MS,
    quietWindowMs: options.quietWindowMs ?? DEFAULT_QUIET_WINDOW_MS,
    recorder,
    notes: [],
    pending: recorder,
    navigationStart: 0,
    navigationMs: 0,
    timedOut: false,
    consentStart: 0,
    scrollMs: 0,
    settledAt: 0,
    captureMoment: 0,
    html: '',
    title: '',
    finalUrl: '',
  };
  const timings = await runSteps(CAPTURE_STEPS, state, options.log);
  return captureResult(state, timings);
}

// ---- the steps, in order ------------------------------------------------------------------------------------

/**
 * Until navigation starts nothing is the page's doing: a slow step here is the service's (DESIGN decision 13).
 * The recorder, the timer watch and autoconsent's preloaded content script start before the page loads.
 */
async function prepare(s: CaptureState): Promise<void> {
  const { page, session, recorder, settings, bounds } = s;
  page.on('error', () =>
    s.internal.abort(new CaptureError('page_crashed', 'The page crashed the browser tab while rendering', true)),
  );
  // An alert() left open blocks the page's scripts, its load event and the screenshot.
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
  const viewport = { ...settings.viewport, deviceScaleFactor: settings.deviceScaleFactor };
  if (!sameViewport(viewport, s.prepared.viewport)) await bounds.service(page.setViewport(viewport));
  const watching = watchPendingTimers(session, { maxDelayMs: s.settleCapMs });
  watching.then((watch) => void (s.timers = watch)).catch(() => {}); // released by `release` whichever way this goes
  // autoconsent's content script starts while the page loads (consent-handler.ts, preloadConsent).
  const preloading = s.options.handleConsent === false ? undefined : preloadConsent(session);
  preloading?.then((preload) => void (s.consentPreload = preload)).catch(() => {});
  const [, watch] = await bounds.service(Promise.all([recorder.start(), watching, preloading]));
  s.stopFollowingFrames = recordOutOfProcessFrames(page, recorder);
  s.pending = combinedInflight(recorder, watch);
  s.activity = watchNetworkActivity(s.pending);
}

/** The session recording starts before navigation, so its first frame is the screen navigation started from. */
async function startRecording(s: CaptureState): Promise<void> {
  s.sessionRecorder = await s.bounds.service(startSessionRecorder(s.session, s.settings.viewport));
}

/** The recording ends where the screenshot begins; it is encoded while the HTML and the network are read. */
function endRecording(s: CaptureState): void {
  // Frames carry the wall clock: the span is anchored to it now, its length is render.durationMs's clock.
  const endEpochMs = Date.now();
  const startEpochMs = endEpochMs - (performance.now() - s.navigationStart);
  s.sessionEncoding = s.sessionRecorder!.finish({ startEpochMs, endEpochMs }, s.signal);
  s.sessionEncoding.catch(() => {}); // awaited by session-video
}

async function awaitSessionVideo(s: CaptureState): Promise<void> {
  s.sessionRecording = await s.sessionEncoding!;
}

/** Spec 2.3: 'full' needs load; 'partial' needs at least DOMContentLoaded. An error status the egress proxy explains is its refusal. */
async function navigateToLoad(s: CaptureState): Promise<void> {
  const { page, recorder } = s;
  let domContentLoaded = false;
  let loadedAt: number | undefined;
  page.on('domcontentloaded', () => (domContentLoaded = true));
  page.on('load', () => (loadedAt = performance.now()));
  s.navigationStart = performance.now();
  s.timedOut = await navigate(page, s.url, s.options, recorder, s.bounds, s.signal, () => domContentLoaded);
  s.navigationMs = Math.round((s.timedOut ? performance.now() : (loadedAt ?? performance.now())) - s.navigationStart);
  s.settleFrom = loadedAt;

  const main = recorder.mainDocument();
  if (main && main.status >= 400) {
    const blocked = blockedResponse(main.url, s.options.explainNetworkError);
    if (blocked) throw blocked;
  }
}

/**
 * The tenant's selector, after load and before the settle phase (docs/capturing.md, Capture options), within what
 * navigation left of CAPTURE_TIMEOUT_MS so the whole capture stays inside the pool's limit; settle counts from here.
 */
async function waitForTenantSelector(s: CaptureState): Promise<void> {
  s.selectorWait = await waitForSelectorStep(
    s.page,
    s.settings.waitForSelector!,
    Math.max(1000, s.options.timeoutMs - s.navigationMs),
    s.signal,
  );
  if (s.selectorWait.reason) s.notes.push(s.selectorWait.reason);
  s.settleFrom = performance.now();
}

/**
 * Whether the loaded page can still change by itself (static-document.ts). A static page's quiet windows are
 * STATIC_QUIET_WINDOW_MS; a page that cannot be asked counts as dynamic (the full windows).
 */
async function inspectDocument(s: CaptureState): Promise<void> {
  const inspecting = (async () => {
    s.behaviorWorld = await pageWorld(s.session, s.mainFrameId);
    return documentDynamics(s.behaviorWorld, s.page.frames().length - 1);
  })();
  s.dynamics = await s.bounds.page(inspecting, STEP_TIMEOUT_MS).catch((error: unknown): DocumentDynamics => {
    if (s.signal.aborted) throw error;
    return { static: false, because: 'it could not be inspected' };
  });
  if (s.dynamics.static) s.quietWindowMs = Math.min(s.quietWindowMs, STATIC_QUIET_WINDOW_MS);
}

/** The quiet window after what a behavior or the consent answer started: shorter on a static page. */
const afterActionQuietMs = (s: CaptureState, dynamicMs: number): number =>
  s.dynamics?.static ? Math.min(dynamicMs, STATIC_QUIET_WINDOW_MS) : dynamicMs;

/**
 * Consent detection starts in the page from the load event and looks again beside the settle phase while the
 * page keeps loading (consent-looks.ts); its verdict is taken by answer-consent.
 */
function startConsentDetection(s: CaptureState): void {
  s.consentStart = performance.now();
  s.consentLooks = startConsentLooks({
    start: () => startConsent(s),
    pending: s.pending,
    activity: s.activity!,
    // A static page cannot draw a banner after load: what it still loads are images and fonts.
    relook: !s.dynamics?.static,
    detectMs: CONSENT_DETECT_MS,
    clock: s.clock,
    signal: s.signal,
  });
}

/** The behaviors run beside the settle phase, whose quiet window then covers what they load (awaited by after-behaviors). */
function startBehaviors(s: CaptureState): void {
  s.behaving = runCaptureBehaviors(s);
  s.behaving.catch(() => {});
}

/** The adaptive settle phase, only after a real load: until no request or short timer has been pending for the quiet window. */
async function settle(s: CaptureState): Promise<void> {
  if (!s.timedOut) {
    s.settle = await waitForNetworkQuiet(s.pending, {
      quietWindowMs: s.quietWindowMs,
      capMs: s.settleCapMs,
      startedAt: s.settleFrom,
      quietSince: s.activity!.quietSince(),
      signal: s.signal,
    });
  }
  s.settledAt = performance.now();
}

/** What the behaviors started after the settle phase ended (a long page, a video) still gets its quiet window. */
async function quietAfterBehaviors(s: CaptureState): Promise<void> {
  s.behaviors = await s.behaving!;
  s.scrollMs = s.behaviors?.ran.find((r) => r.name === 'auto-scroll')?.ms ?? 0;
  if (s.activity!.lastActiveAt() > s.settledAt || s.pending.inflight() > 0) {
    await waitForNetworkQuiet(s.pending, {
      ...AFTER_SCROLL_QUIET,
      quietWindowMs: afterActionQuietMs(s, AFTER_SCROLL_QUIET.quietWindowMs),
      quietSince: s.activity!.quietSince(),
      signal: s.signal,
    });
  }
}

/** The tenant's extra wait (docs/capturing.md, Capture options), after the page settled. */
async function tenantDelay(s: CaptureState): Promise<void> {
  await s.bounds.page(delay(s.settings.delayMs, s.signal), s.settings.delayMs + 1000);
}

/**
 * Takes autoconsent's verdict (consent-looks.ts: already in unless the page was active since the latest look
 * began); with a banner: screenshot it, opt out, let the page react.
 */
async function answerConsentBanner(s: CaptureState): Promise<void> {
  const { consentStart } = s;
  const looks = s.consentLooks!;
  try {
    const { verdict, detection } = await looks.verdict();
    s.consentDetection = detection;
    if (!verdict.found) {
      const result = verdict.failed ? 'failed' : 'not-found';
      s.consent = { attempted: true, cmp: null, result, durationMs: detection.verdictMs };
      return;
    }
    const { run: consentRun, cmp } = verdict;
    const beforeStart = performance.now();
    await consentRun.bannerPainted(CONSENT_PAINT_MS);
    const before = await shoot(s);
    s.screenshotBeforeMs = since(beforeStart);
    const result = await consentRun.optOut(CONSENT_OPT_OUT_MS);
    s.consent = { attempted: true, cmp, result, durationMs: 0 };
    if (result !== 'opted-out' && result !== 'dismissed') {
      s.consent.durationMs = since(consentStart);
      return; // spec 2.4: screenshotBefore only when dismissed
    }
    // The banner may fade out, and the site may fetch or reload after the choice.
    await waitForNetworkQuiet(s.recorder, { ...AFTER_CONSENT_QUIET, signal: s.signal });
    s.consent.durationMs = since(consentStart);
    s.screenshotBefore = before.png;
  } finally {
    await looks.dispose();
  }
}

/** Where recordBoxes' elements and recordTextBoxes' text are, right before the screenshot; a page that does not answer loses only the boxes. */
async function measureBoxes(s: CaptureState): Promise<void> {
  const { settings, signal } = s;
  const measured = await s.bounds
    .page(
      measureElementBoxes(
        s.session,
        s.mainFrameId,
        settings.recordBoxes,
        settings.deviceScaleFactor,
        settings.recordTextBoxes,
      ),
      STEP_TIMEOUT_MS,
    )
    .catch((error: unknown) => {
      if (signal.aborted) throw error;
      s.notes.push('the boxes of recordBoxes and recordTextBoxes could not be measured');
      return undefined;
    });
  if (measured) s.elementBoxes = measured;
}

/** The evidence itself: the full-page (or viewport) PNG. */
async function takeScreenshot(s: CaptureState): Promise<void> {
  s.captureMoment = performance.now();
  const shot = await shoot(s);
  s.screenshot = shot.png;
  if (shot.height < shot.pageHeight) {
    const maxHeight = s.options.maxScreenshotHeightPx ?? DEFAULT_MAX_SCREENSHOT_HEIGHT_PX;
    s.notes.push(`screenshot cut at ${maxHeight} px of a ${shot.pageHeight} px page`);
  }
}

/** The `pdf` artifact: Chromium's print of the page as it is now (print media, backgrounds kept). */
async function printPdf(s: CaptureState): Promise<void> {
  // Chromium's own print timeout is off: the page-clock bound decides.
  const bytes = await s.bounds.page(s.page.pdf({ printBackground: true, timeout: 0 }), STEP_TIMEOUT_MS + 2000);
  s.pdf = Buffer.from(bytes);
}

/** Open shadow roots and frame documents included (rendered-html.ts); page.content() if that fails. */
async function readRenderedHtml(s: CaptureState): Promise<void> {
  const { page, bounds, signal } = s;
  const rendered = await bounds.page(renderedHtml(page)).catch((error: unknown) => {
    if (signal.aborted) throw error;
    return undefined;
  });
  s.html = rendered?.html ?? (await readHtml(page, bounds, signal));
  if (rendered) s.notes.push(...rendered.notes);
  // The main document only: a captcha or Turnstile widget in a frame of an ordinary page is not a challenge page.
  s.mainHtml = rendered?.mainHtml;
  s.title = await bounds.page(page.title()).catch(() => '');
  s.finalUrl = page.url();
}

/** A bot-protection answer is reported, not archived as the page (challenge-page.ts). */
function refuseChallengePage(s: CaptureState): void {
  const answered = s.recorder.mainDocument();
  const protection = detectChallenge({
    status: answered?.status ?? 0,
    headers: answered?.headers ?? [],
    title: s.title,
    html: s.mainHtml ?? s.html,
  });
  if (protection) throw new CaptureError('challenge', challengeMessage(protection, answered?.status ?? 0), true);
}

/** Every network exchange, with the bodies still loading given BODY_WAIT_MS; a PDF the viewer wrapped is loaded as itself. */
async function collectNetwork(s: CaptureState): Promise<void> {
  const { recorder, bounds, signal } = s;
  const finalMain = recorder.mainDocument();
  const mainDocumentUrls = recorder.mainDocumentUrls();
  const browserVersion = await bounds.page(s.page.browser().version());
  const network = await recorder.finish(BODY_WAIT_MS);
  s.notes.push(...network.notes);
  const wrappedPdf = viewerWrappedPdf(network.exchanges, s.finalUrl);
  if (wrappedPdf) {
    await bounds.page(loadDocumentBytes(s.session, s.mainFrameId, wrappedPdf.url)).then(
      (bytes) => void (wrappedPdf.body = bytes),
      (error: unknown) => {
        if (signal.aborted || isCaptureError(error)) throw error;
        // Never archive the viewer's wrapper as if it were the document.
        throw new CaptureError('capture_failed', 'The PDF document could not be archived', true, { cause: error });
      },
    );
  }
  s.network = { finalMain, mainDocumentUrls, browserVersion, exchanges: network.exchanges };
}

/** Whatever happened: stop the watchers the capture started in the page (the context itself is closed by capturePage). */
function release(s: CaptureState): void {
  s.activity?.stop();
  s.stopFollowingFrames?.();
  s.recorder.dispose();
  void s.timers?.dispose();
  void s.consentLooks?.dispose();
  void s.consentPreload?.dispose();
  void s.sessionRecorder?.dispose();
}

// ---- what the steps share -----------------------------------------------------------------------------------

/** The PNG as the tenant asked for it: the full page (in slices past Chromium's limit) or the viewport. */
function shoot(s: CaptureState) {
  const { settings, options, signal } = s;
  return settings.fullPage === false
    ? captureViewport(s.session, {
        timeoutMs: SCREENSHOT_SLICE_TIMEOUT_MS,
        signal,
        scale: settings.deviceScaleFactor,
        clock: options.clock,
      })
    : captureFullPage(s.session, {
        maxHeightPx: options.maxScreenshotHeightPx,
        sliceTimeoutMs: SCREENSHOT_SLICE_TIMEOUT_MS,
        signal,
        scale: settings.deviceScaleFactor,
        clock: options.clock,
      });
}

/** Starts autoconsent in the page; null when it could not be injected (a failed attempt). */
function startConsent(s: CaptureState): Promise<ConsentRun | null> {
  const { page, session, mainFrameId, clock, consentPreload, signal } = s;
  return s.bounds
    .page(
      startConsentRun(page, session, {
        mainFrameId,
        clock,
        preload: consentPreload,
        heuristicLook: !s.dynamics?.static,
      }),
      CONSENT_START_MS,
    )
    .catch((error: unknown) => {
      if (signal.aborted) throw error;
      return null;
    });
}

/** The tenant's behaviors within their budget (behaviors/); undefined, with a note, when they could not run. */
async function runCaptureBehaviors(s: CaptureState): Promise<BehaviorsReport | undefined> {
  const { settings, signal, notes } = s;
  const running = runBehaviors({
    page: s.page,
    session: s.session,
    mainFrameId: s.mainFrameId,
    pending: s.pending,
    signal,
    names: settings.behaviors,
    budgetMs: settings.behaviorTimeoutMs,
    requestedUrls: () => s.recorder.requestedUrls(),
    completeUrls: () => s.recorder.completeUrls(),
    maxPageHeightPx: s.options.maxScreenshotHeightPx ?? DEFAULT_MAX_SCREENSHOT_HEIGHT_PX,
    quietWindowMs: afterActionQuietMs(s, BEHAVIOR_QUIET_WINDOW_MS),
    nothingWaitsForScroll: s.dynamics?.static === true && !s.dynamics.waitsForScroll,
    world: s.behaviorWorld,
    notes,
  });
  return s.bounds.page(running, settings.behaviorTimeoutMs + BEHAVIORS_OVERRUN_MS).catch((error: unknown) => {
    if (signal.aborted) throw error;
    notes.push('the behaviors could not run on this page');
    return undefined;
  });
}

/** The record of what the steps found; the stages that are one step each are that step's time. */
function captureResult(s: CaptureState, timings: StepTimings): PageCaptureResult {
  const network = s.network!;
  const stages: RenderStages = {
    navigationMs: s.navigationMs,
    scrollMs: s.scrollMs,
    screenshotMs: timings.screenshot!,
    htmlMs: timings.html!,
    networkMs: timings.network!,
  };
  const { settle, consent } = s;
  if (settle) stages.settleMs = settle.elapsedMs;
  if (s.behaviors) stages.behaviorsMs = s.behaviors.ms;
  if (consent) stages.consentMs = consent.durationMs;
  if (s.screenshotBeforeMs !== undefined) stages.screenshotBeforeMs = s.screenshotBeforeMs;
  const durationMs = Math.round(s.captureMoment - s.navigationStart);
  const render: RenderInfo = settle
    ? {
        waitUntilReached: 'load',
        timedOut: false,
        durationMs,
        settleMs: settle.elapsedMs,
        settleReason: settle.reason,
        stages,
      }
    : { waitUntilReached: 'domcontentloaded', timedOut: true, durationMs, stages };

  const result: PageCaptureResult = {
    renderQuality: s.timedOut || s.selectorWait?.found === false ? 'partial' : 'full',
    render,
    screenshot: s.screenshot!,
    html: s.html,
    headers: network.finalMain ? headersArtifact(network.finalMain.headers) : null,
    finalUrl: s.finalUrl,
    mainStatus: network.finalMain?.status ?? 0,
    title: s.title,
    exchanges: network.exchanges,
    settings: s.settings,
    mainDocumentUrls: network.mainDocumentUrls,
    browser: { version: network.browserVersion, userAgent: s.prepared.userAgent },
    notes: s.notes,
  };
  if (s.selectorWait) result.selectorWait = s.selectorWait;
  if (s.pdf) result.pdf = s.pdf;
  if (s.sessionRecording) result.sessionRecording = s.sessionRecording;
  if (s.screenshotBefore) result.screenshotBefore = s.screenshotBefore;
  if (consent) result.consent = consent;
  if (s.consentDetection) result.consentDetection = s.consentDetection;
  if (s.behaviors) result.behaviors = s.behaviors;
  if (s.dynamics)
    result.quiet = {
      document: s.dynamics.static ? 'static' : 'dynamic',
      ...(s.dynamics.static ? {} : { dynamicBecause: s.dynamics.because }),
      settleWindowMs: s.quietWindowMs,
      afterActionWindowMs: afterActionQuietMs(s, BEHAVIOR_QUIET_WINDOW_MS),
    };
  if (s.elementBoxes) result.elementBoxes = s.elementBoxes;
  return result;
}

/** Navigates to `url`; resolves true when it timed out after DOMContentLoaded (a partial capture). */
async function navigate(
  page: Page,
  url: string,
  options: PageCaptureOptions,
  recorder: NetworkRecorder,
  bounds: StepBounds,
  signal: AbortSignal,
  domContentLoaded: () => boolean,
): Promise<boolean> {
  try {
    // timeoutMs is the page's time to reach load, counted on the page clock (not puppeteer's wall clock).
    await bounds.page(page.goto(url, { waitUntil: 'load', timeout: 0 }), options.timeoutMs);
    return false;
  } catch (error) {
    if (signal.aborted) throw error;
    const failure = recorder.mainDocumentFailure();
    const failedUrl = failure?.url || recorder.mainDocumentUrls().at(-1) || url;
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

/** page.content(), tried once more if the page replaced its document (script redirect) meanwhile. */
async function readHtml(page: Page, bounds: StepBounds, signal: AbortSignal): Promise<string> {
  try {
    return await bounds.page(page.content());
  } catch (error) {
    if (signal.aborted || isCaptureError(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 250));
    return bounds.page(page.content());
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
      withTimeout(
        work,
        ms,
        () => new CaptureError('timeout', 'The page stopped responding while it was being captured', true),
        signal,
        clock,
      ),
    service: (work) =>
      withTimeout(
        work,
        SERVICE_STEP_TIMEOUT_MS,
        () =>
          new CaptureError(
            'service_busy',
            'The capture service could not open a browser page in time; it will try again',
            true,
          ),
        signal,
        clock,
      ),
  };
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

function sameViewport(a: PreparedContext['viewport'], b: PreparedContext['viewport']): boolean {
  return a.width === b.width && a.height === b.height && a.deviceScaleFactor === b.deviceScaleFactor;
}
