/**
 * Full-page PNG (spec 2.4 `screenshot`). One capture beyond the viewport works up to Chromium's maximum
 * texture size (16384 px); a taller page is captured in slices and stitched (in a worker thread), and cut
 * at a sane height.
 */
import type { CDPSession } from 'puppeteer-core';
import { CaptureError } from './capture-error.js';
import { stitchOffThread } from './png-stitch-thread.js';
import type { PageClock } from './host-load.js';
import { withTimeout } from './step-timeout.js';

export const MAX_TEXTURE_PX = 16384;
const SLICE_PX = 8192;
export const DEFAULT_MAX_SCREENSHOT_HEIGHT_PX = 30000;
const MAX_SCREENSHOT_WIDTH_PX = 4096;

export interface FullPageScreenshot {
  png: Buffer;
  width: number;
  height: number;
  /** Height of the page's content; larger than `height` when the image was cut. */
  pageHeight: number;
  slices: number;
}

export async function captureFullPage(
  session: CDPSession,
  /** scale: device pixels per CSS pixel of the image (the capture's deviceScaleFactor; default 1). */
  options: {
    maxHeightPx?: number;
    sliceTimeoutMs: number;
    signal?: AbortSignal | undefined;
    scale?: number;
    clock?: PageClock | undefined;
  },
): Promise<FullPageScreenshot> {
  const maxHeight = options.maxHeightPx ?? DEFAULT_MAX_SCREENSHOT_HEIGHT_PX;
  const scale = options.scale ?? 1;
  // The texture limit is in device pixels; slices are measured in CSS pixels.
  const slicePx = Math.floor(SLICE_PX / scale);
  const bounded = <T>(work: Promise<T>) =>
    withTimeout(
      work,
      options.sliceTimeoutMs,
      () => new CaptureError('timeout', 'The page did not render a screenshot in time', true),
      options.signal,
      options.clock,
    );

  const metrics = await bounded(session.send('Page.getLayoutMetrics'));
  const content = metrics.cssContentSize;
  const width = clamp(Math.ceil(content.width), metrics.cssLayoutViewport.clientWidth || 1, MAX_SCREENSHOT_WIDTH_PX);
  const pageHeight = Math.max(1, Math.ceil(content.height));
  const height = Math.min(pageHeight, maxHeight);

  const shoot = async (y: number, h: number) => {
    const { data } = await bounded(
      session.send('Page.captureScreenshot', {
        format: 'png',
        captureBeyondViewport: true,
        clip: { x: 0, y, width, height: h, scale },
        optimizeForSpeed: true,
      }),
    );
    return Buffer.from(data, 'base64');
  };

  if (height * scale <= MAX_TEXTURE_PX) {
    return { png: await shoot(0, height), width, height, pageHeight, slices: 1 };
  }
  const slices: Buffer[] = [];
  for (let y = 0; y < height; y += slicePx) slices.push(await shoot(y, Math.min(slicePx, height - y)));
  return { png: await stitchOffThread(slices), width, height, pageHeight, slices: slices.length };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
