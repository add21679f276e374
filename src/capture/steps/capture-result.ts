import type { BehaviorsReport } from '../behaviors/run-behaviors.js';
import { BEHAVIOR_QUIET_WINDOW_MS } from '../behaviors/behavior.js';
import type { StepTimings } from '../capture-steps.js';
import type { ConsentInfo } from '../consent-handler.js';
import type { ConsentDetection } from '../consent-looks.js';
import type { EarlyQuietCheck } from '../early-quiet.js';
import type { ElementBoxes } from '../element-boxes.js';
import { headersArtifact, type HeadersArtifact } from '../http-headers.js';
import type { CaptureState } from '../page-capture.js';
import type { SelectorWaitResult } from '../selector-wait.js';
import type { SessionRecording } from '../session-recorder.js';
import type { SettleResult } from '../settle.js';
import type { CaptureSettings } from '../../domain/capture-options.js';
import type { NetworkExchange } from '../../domain/network-exchange.js';
import { afterActionQuietMs } from './inspect-document.js';

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
  /** What loading a browser profile added before navigation, after prepare (steps/profile.ts); only with a profile. */
  profileMs?: number;
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
  /**
   * A page that is not static: the early window, whether the settle phase ended after it (early-quiet.ts) and,
   * when it did not, why the page was not quiet when last asked (absent: it was never quiet that long).
   */
  earlySettle?: { windowMs: number; ended: boolean; because?: string };
}

function earlySettleRecord(early: EarlyQuietCheck, settle: SettleResult): QuietWindows['earlySettle'] {
  const because = settle.early ? undefined : early.because();
  return { windowMs: early.windowMs, ended: settle.early === true, ...(because ? { because } : {}) };
}

/** The record of what the steps found; the stages that are one step each are that step's time. */
export function captureResult(s: CaptureState, timings: StepTimings): PageCaptureResult {
  const { given, navigation, quiet, consent, behaviors, picture, document } = s;
  const network = s.network.collected!;
  const settle = s.settle.result;
  const stages: RenderStages = {
    navigationMs: navigation.ms,
    scrollMs: behaviors.scrollMs,
    screenshotMs: timings.screenshot!,
    htmlMs: timings.html!,
    networkMs: timings.network!,
  };
  if (settle) stages.settleMs = settle.elapsedMs;
  if (behaviors.report) stages.behaviorsMs = behaviors.report.ms;
  if (consent.info) stages.consentMs = consent.info.durationMs;
  if (consent.screenshotBeforeMs !== undefined) stages.screenshotBeforeMs = consent.screenshotBeforeMs;
  if (timings['profile-loaded'] !== undefined) stages.profileMs = timings['profile-loaded'];
  const durationMs = Math.round(picture.captureMoment - navigation.start);
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
    renderQuality: navigation.timedOut || navigation.selectorWait?.found === false ? 'partial' : 'full',
    render,
    screenshot: picture.screenshot!,
    html: document.html,
    headers: network.finalMain ? headersArtifact(network.finalMain.headers) : null,
    finalUrl: document.finalUrl,
    mainStatus: network.finalMain?.status ?? 0,
    title: document.title,
    exchanges: network.exchanges,
    settings: given.settings,
    mainDocumentUrls: network.mainDocumentUrls,
    browser: { version: network.browserVersion, userAgent: given.prepared.userAgent },
    notes: given.notes,
  };
  if (navigation.selectorWait) result.selectorWait = navigation.selectorWait;
  if (picture.pdf) result.pdf = picture.pdf;
  if (s.recording.recording) result.sessionRecording = s.recording.recording;
  if (consent.screenshotBefore) result.screenshotBefore = consent.screenshotBefore;
  if (consent.info) result.consent = consent.info;
  if (consent.detection) result.consentDetection = consent.detection;
  if (behaviors.report) result.behaviors = behaviors.report;
  if (quiet.dynamics)
    result.quiet = {
      document: quiet.dynamics.static ? 'static' : 'dynamic',
      ...(quiet.dynamics.static ? {} : { dynamicBecause: quiet.dynamics.because }),
      settleWindowMs: quiet.quietWindowMs,
      afterActionWindowMs: afterActionQuietMs(quiet, BEHAVIOR_QUIET_WINDOW_MS),
      ...(s.settle.early && settle ? { earlySettle: earlySettleRecord(s.settle.early, settle) } : {}),
    };
  if (picture.elementBoxes) result.elementBoxes = picture.elementBoxes;
  return result;
}
