import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { watchPendingTimers } from '../../../src/capture/pending-timers.js';
import { type PageServer, servePages } from '../../support/page-server.js';

/**
 * pending-timers.ts wraps functions of the page's own world (timers, animation frames, idle callbacks,
 * addEventListener): a page's script that reads their name, length or source sees what it sees without the watch.
 */
const T = { timeout: 60_000 };

const WRAPPED = [
  'window.setTimeout',
  'window.clearTimeout',
  'window.setInterval',
  'window.clearInterval',
  'window.requestAnimationFrame',
  'window.requestIdleCallback',
  'EventTarget.prototype.addEventListener',
];

describe('the page watch’s wrappers look like the native functions (real Chromium)', () => {
  let site: PageServer;
  let chromium: LaunchedChromium;

  before(async () => {
    site = await servePages({ '/': '<!doctype html><p>x</p>' });
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await site?.close();
  });

  /** Name, length and source of each wrapped function in a fresh context, with or without the watch. */
  async function described(watched: boolean): Promise<unknown> {
    const context = await chromium.browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const session = await page.createCDPSession();
      await session.send('Page.enable'); // the script for new documents runs with the Page domain on (as a capture has it)
      const timers = watched ? await watchPendingTimers(session, { maxDelayMs: 3000 }) : undefined;
      await page.goto(site.url('/'), { waitUntil: 'load' });
      const seen = await page.evaluate(
        `[${WRAPPED.join(',')}].map((f) => ({ name: f.name, length: f.length, source: String(f) }))`,
      );
      if (timers) {
        // The watch is in place: it counts a timer the page sets.
        await page.evaluate('setTimeout(() => {}, 2000)');
        const deadline = Date.now() + 30_000;
        while (timers.inflight() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.equal(timers.inflight(), 1, 'the watch counted the page’s timer');
        await timers.dispose();
      }
      return seen;
    } finally {
      await context.close();
    }
  }

  it('the same name, length and source as without the watch', T, async () => {
    const native = (await described(false)) as Array<{ name: string; length: number }>;
    assert.equal(native.find((f) => f.name === 'addEventListener')?.length, 2);
    assert.deepEqual(await described(true), native);
  });
});
