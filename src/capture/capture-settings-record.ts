import type { PageCaptureResult } from './page-capture.js';
import type { CaptureSettings } from '../domain/events.js';
import { SESSION_VIDEO_MEDIA_TYPE } from './session-recorder.js';

/**
 * The record's `captureSettings` (spec 2.3: `version` and `consent`; the service adds how the page was captured, docs/capturing.md, Capture options):
 * viewport, deviceScaleFactor, fullPage, waitForSelector (with whether it was found), delayMs, pdf, the behaviors' report
 * and the quiet windows waited for (`quiet`: the page static or dynamic, static-document.ts), consent detection's looks and wait
 * (`consentDetection`, consent-looks.ts);
 * with `recordSession` (only when asked for, so other captures' settings are as they were) the recording's facts;
 * with `recordBoxes` or `recordTextBoxes` (likewise) the boxes of those elements and that text on the screenshot (element-boxes.ts).
 */
export function captureSettingsRecord(
  result: Pick<
    PageCaptureResult,
    | 'settings'
    | 'consent'
    | 'consentDetection'
    | 'selectorWait'
    | 'behaviors'
    | 'sessionRecording'
    | 'elementBoxes'
    | 'quiet'
  >,
): CaptureSettings {
  const { settings } = result;
  return {
    version: 1,
    ...(result.consent ? { consent: result.consent } : {}),
    // Beside spec 2.3's `consent`: how many looks detection took and how long the capture waited for its verdict
    // once the page had settled (consent-looks.ts), so "no banner, cost N ms" reads in the record.
    ...(result.consentDetection ? { consentDetection: result.consentDetection } : {}),
    viewport: settings.viewport,
    deviceScaleFactor: settings.deviceScaleFactor,
    fullPage: settings.fullPage,
    waitForSelector: settings.waitForSelector,
    ...(result.selectorWait ? { selectorWait: result.selectorWait } : {}),
    delayMs: settings.delayMs,
    pdf: settings.pdf,
    // Which behaviors ran, for how long, and what each did (behaviors/run-behaviors.ts).
    behaviors: result.behaviors ?? {
      requested: settings.behaviors,
      budgetMs: settings.behaviorTimeoutMs,
      ms: 0,
      ran: [],
      notMatched: [],
      outOfBudget: false,
      couldNotRun: true,
    },
    // Whether the page could change by itself, and so how long the quiet windows were (static-document.ts).
    ...(result.quiet ? { quiet: result.quiet } : {}),
    ...(settings.recordSession ? { recordSession: true, ...sessionRecordingFacts(result) } : {}),
    // Only when asked for: what the diff masks in pixels for a selector it ignores (docs/watch.md).
    ...(settings.recordBoxes.length > 0 || settings.recordTextBoxes.length > 0
      ? {
          ...(settings.recordBoxes.length > 0 ? { recordBoxes: settings.recordBoxes } : {}),
          ...(settings.recordTextBoxes.length > 0 ? { recordTextBoxes: settings.recordTextBoxes } : {}),
          elementBoxes: result.elementBoxes ?? null,
        }
      : {}),
  };
}

/** When the video's 0 was on the capture's clock, how long it runs and what it shows (session-recorder.ts). */
function sessionRecordingFacts(result: Pick<PageCaptureResult, 'sessionRecording'>) {
  const recording = result.sessionRecording;
  if (!recording) return {};
  return {
    sessionRecording: {
      mediaType: SESSION_VIDEO_MEDIA_TYPE,
      startedAt: recording.startedAt,
      durationMs: recording.durationMs,
      frames: recording.frames,
      ...(recording.framesDropped > 0 ? { framesDropped: recording.framesDropped } : {}),
    },
  };
}
