import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'puppeteer-core';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { startFidelitySite, type FidelitySite } from '../support/fidelity-site.js';
import { captureUntilComplete } from '../support/fixture-site.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Media a capture archives replays. A progressive MP4 the server sends in Range parts, an HLS
 * stream played by hls.js and an audio element (test/support/fidelity-site.ts, media made by ffmpeg) are
 * captured through the
 * service with its default behaviors, then replayed from the signed WACZ by ReplayWeb.page on the verification
 * page in Chromium: each element reaches readyState >= 2 (HAVE_CURRENT_DATA) and its currentTime advances.
 */
describe('archived media replays (ReplayWeb.page, headless Chromium)', () => {
  let s: TestServer;
  let site: FidelitySite;
  let chromium: LaunchedChromium;
  const ids = new Map<string, string>();
  const PAGES = ['/f/video-mp4', '/f/video-hls', '/f/audio'];

  before(async () => {
    site = await startFidelitySite();
    s = await startTestServer({
      ROLES: 'api,projector,worker,signer',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32,127.0.0.3/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      WORKER_CONCURRENCY: '1',
    });
    const admin = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'media', scopes: ['capture'], name: 'media replay' },
    });
    assert.equal(admin.status, 201, admin.text);
    for (const path of PAGES) ids.set(path, await captureUntilComplete(s.call, admin.body.key, site.url(path)));
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await s?.stop();
    await site?.close();
  });

  /** The replay frame of `url` on the capture's verification page, once its media element is there. */
  async function replayFrame(page: Page, url: string): Promise<Frame> {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      for (const frame of page.frames()) {
        if (!frame.url().includes(`mp_/${url}`)) continue;
        // Ready once the page's player gave the element its source (hls.js attaches a blob: URL from its script).
        const ready = frame.evaluate(() => {
          const media = document.querySelector('video, audio') as HTMLMediaElement | null;
          return media !== null && media.src !== '';
        });
        if (await ready.catch(() => false)) return frame;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(
      `the replay of ${url} never showed: ${page
        .frames()
        .map((f) => f.url())
        .join(', ')}`,
    );
  }

  for (const path of PAGES) {
    it(`${path}: the archived media plays in the replay`, { timeout: 300_000 }, async () => {
      const page = await chromium.browser.newPage();
      try {
        await page.goto(`${s.baseUrl}/v1/verify/${ids.get(path)}`, { waitUntil: 'load' });
        const frame = await replayFrame(page, site.url(path));
        // Played muted, as a visitor's click would; then watched until it has data and time moves on.
        const played = await frame.evaluate(async () => {
          const media = document.querySelector('video, audio') as HTMLMediaElement;
          media.muted = true;
          const start = performance.now();
          let error = '';
          // play() settles only once playback starts: not awaited past the watch below.
          media.play().catch((e: unknown) => void (error = String(e)));
          let first = -1;
          while (performance.now() - start < 60_000) {
            if (media.readyState >= 2 && first < 0) first = media.currentTime;
            if (first >= 0 && media.currentTime > first + 0.3) break;
            if (media.error || error) break;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          return {
            readyState: media.readyState,
            currentTime: media.currentTime,
            first,
            error: [error, media.error ? `media error ${media.error.code} ${media.error.message}` : '']
              .filter(Boolean)
              .join('; '),
          };
        });
        assert.equal(played.error, '', JSON.stringify(played));
        assert.ok(played.readyState >= 2, JSON.stringify(played));
        assert.ok(played.first >= 0 && played.currentTime > played.first + 0.3, JSON.stringify(played));
      } finally {
        await page.close().catch(() => {});
      }
    });
  }
});
