import type { CDPSession, Page } from 'puppeteer-core';
import { CaptureError } from '../capture-error.js';
import type { PreparedContext } from '../capture-context.js';
import type { PageClock } from '../host-load.js';
import type { NetworkRecorder } from '../network-recorder.js';
import type { PageCaptureOptions } from '../page-capture.js';
import { withTimeout } from '../step-timeout.js';
import type { CaptureSettings } from '../../domain/capture-options.js';

/** The default bound of a step of the page's. */
export const STEP_TIMEOUT_MS = 10_000;
/** Opening the page and its protocol session: the service's own steps, bounded only against a hung browser. */
const SERVICE_STEP_TIMEOUT_MS = 60_000;

/**
 * What every step of one capture is given and none replaces: the request, the context it runs in and the
 * capture's bounds. The network recorder and the notes are the two shared tools every step may add to.
 */
export interface CaptureGiven {
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
  readonly recorder: NetworkRecorder;
  /** Things an operator may want to know, added by any step. */
  readonly notes: string[];
}

/** The bounds of one capture's steps, all counted on its page clock and all ended by its abort. */
export interface StepBounds {
  /** A step of the page's, from navigation on: too slow means the page stopped responding. */
  page<T>(work: Promise<T>, ms?: number): Promise<T>;
  /** A step of the service's own (opening the page, its protocol session): too slow is retried later, not the page's failure. */
  service<T>(work: Promise<T>): Promise<T>;
}

export function stepBounds(signal: AbortSignal, clock: PageClock): StepBounds {
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

export function since(start: number): number {
  return Math.round(performance.now() - start);
}
