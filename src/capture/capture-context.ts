import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';
import { presentAsChrome } from './user-agent.js';
import { DEFAULT_CAPTURE_SETTINGS } from '../domain/capture-options.js';

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

export function sameViewport(a: PreparedContext['viewport'], b: PreparedContext['viewport']): boolean {
  return a.width === b.width && a.height === b.height && a.deviceScaleFactor === b.deviceScaleFactor;
}
