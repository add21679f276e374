import type { Step } from '../capture-steps.js';
import { type ElementBoxes, measureElementBoxes } from '../element-boxes.js';
import { captureFullPage, DEFAULT_MAX_SCREENSHOT_HEIGHT_PX } from '../full-page-screenshot.js';
import { captureViewport } from '../viewport-screenshot.js';
import { type CaptureGiven, STEP_TIMEOUT_MS } from './capture-given.js';

const SCREENSHOT_SLICE_TIMEOUT_MS = 15_000;

/** The picture of the page as captured: the PNG, the boxes on it and the print. */
export interface Picture {
  /** When the (final) screenshot was taken: the end of render.durationMs. */
  captureMoment: number;
  elementBoxes?: ElementBoxes;
  screenshot?: Buffer;
  pdf?: Buffer;
}

export const picture = (): Picture => ({ captureMoment: 0 });

type Picturing = { given: CaptureGiven; picture: Picture };

/** Where recordBoxes' elements and recordTextBoxes' text are, right before the screenshot; a page that does not answer loses only the boxes. */
export const elementBoxesStep: Step<Picturing> = {
  name: 'element-boxes',
  when: (s) => s.given.settings.recordBoxes.length > 0 || s.given.settings.recordTextBoxes.length > 0,
  async run({ given, picture }) {
    const { settings, signal } = given;
    const measured = await given.bounds
      .page(
        measureElementBoxes(
          given.session,
          given.mainFrameId,
          settings.recordBoxes,
          settings.deviceScaleFactor,
          settings.recordTextBoxes,
        ),
        STEP_TIMEOUT_MS,
      )
      .catch((error: unknown) => {
        if (signal.aborted) throw error;
        given.notes.push('the boxes of recordBoxes and recordTextBoxes could not be measured');
        return undefined;
      });
    if (measured) picture.elementBoxes = measured;
  },
};

/** The evidence itself: the full-page (or viewport) PNG. */
export const screenshotStep: Step<Picturing> = {
  name: 'screenshot',
  async run({ given, picture }) {
    picture.captureMoment = performance.now();
    const shot = await shoot(given);
    picture.screenshot = shot.png;
    if (shot.height < shot.pageHeight) {
      const maxHeight = given.options.maxScreenshotHeightPx ?? DEFAULT_MAX_SCREENSHOT_HEIGHT_PX;
      given.notes.push(`screenshot cut at ${maxHeight} px of a ${shot.pageHeight} px page`);
    }
  },
};

/** The `pdf` artifact: Chromium's print of the page as it is now (print media, backgrounds kept). */
export const pdfStep: Step<Picturing> = {
  name: 'pdf',
  when: (s) => s.given.settings.pdf,
  async run({ given, picture }) {
    // Chromium's own print timeout is off: the page-clock bound decides.
    const bytes = await given.bounds.page(
      given.page.pdf({ printBackground: true, timeout: 0 }),
      STEP_TIMEOUT_MS + 2000,
    );
    picture.pdf = Buffer.from(bytes);
  },
};

/** The PNG as the tenant asked for it: the full page (in slices past Chromium's limit) or the viewport. */
export function shoot(given: CaptureGiven) {
  const { settings, options, signal } = given;
  return settings.fullPage === false
    ? captureViewport(given.session, {
        timeoutMs: SCREENSHOT_SLICE_TIMEOUT_MS,
        signal,
        scale: settings.deviceScaleFactor,
        clock: options.clock,
      })
    : captureFullPage(given.session, {
        maxHeightPx: options.maxScreenshotHeightPx,
        sliceTimeoutMs: SCREENSHOT_SLICE_TIMEOUT_MS,
        signal,
        scale: settings.deviceScaleFactor,
        clock: options.clock,
      });
}
