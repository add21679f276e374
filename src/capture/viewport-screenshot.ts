/**
 * The screenshot of `fullPage: false` (docs/capturing.md, Capture options): what the browser window shows at the top of the page —
 * the viewport only, as screenshot APIs do when asked not to capture the full page.
 */
import type { CDPSession } from 'puppeteer-core';
import { CaptureError } from './capture-error.js';
import type { FullPageScreenshot } from './full-page-screenshot.js';
import type { PageClock } from './host-load.js';
import { withTimeout } from './step-timeout.js';

export async function captureViewport(
  session: CDPSession,
  options: { timeoutMs: number; signal?: AbortSignal | undefined; scale?: number; clock?: PageClock | undefined },
): Promise<FullPageScreenshot> {
  const bounded = <T>(work: Promise<T>) =>
    withTimeout(
      work,
      options.timeoutMs,
      () => new CaptureError('timeout', 'The page did not render a screenshot in time', true),
      options.signal,
      options.clock,
    );
  // The lazy-content scroll may have left the page scrolled down; the viewport shot shows its top.
  await bounded(session.send('Runtime.evaluate', { expression: 'window.scrollTo(0, 0)' }));
  const metrics = await bounded(session.send('Page.getLayoutMetrics'));
  const { clientWidth, clientHeight } = metrics.cssLayoutViewport;
  const height = Math.max(1, Math.round(clientHeight));
  const width = Math.max(1, Math.round(clientWidth));
  // An explicit clip: Chromium then renders at `scale` device pixels per CSS pixel.
  const { data } = await bounded(
    session.send('Page.captureScreenshot', {
      format: 'png',
      clip: { x: 0, y: 0, width, height, scale: options.scale ?? 1 },
    }),
  );
  return { png: Buffer.from(data, 'base64'), width, height, pageHeight: height, slices: 1 };
}
