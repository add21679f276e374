import type { PageCaptureResult } from './page-capture.js';
import type { CaptureSettings } from '../domain/events.js';

/**
 * The record's `captureSettings` (spec 2.3: `version` and `consent`; the service adds how the page was captured, README Capture options):
 * viewport, deviceScaleFactor, fullPage, waitForSelector (with whether it was found), delayMs, pdf and the behaviors' report.
 */
export function captureSettingsRecord(
  result: Pick<PageCaptureResult, 'settings' | 'consent' | 'selectorWait' | 'behaviors'>,
): CaptureSettings {
  const { settings } = result;
  return {
    version: 1,
    ...(result.consent ? { consent: result.consent } : {}),
    viewport: settings.viewport,
    deviceScaleFactor: settings.deviceScaleFactor,
    fullPage: settings.fullPage,
    waitForSelector: settings.waitForSelector,
    ...(result.selectorWait ? { selectorWait: result.selectorWait } : {}),
    delayMs: settings.delayMs,
    pdf: settings.pdf,
    // Issue 35 §1: which behaviors ran, for how long, and what each did (behaviors/run-behaviors.ts).
    behaviors: result.behaviors ?? {
      requested: settings.behaviors,
      budgetMs: settings.behaviorTimeoutMs,
      ms: 0,
      ran: [],
      notMatched: [],
      outOfBudget: false,
      couldNotRun: true,
    },
  };
}
