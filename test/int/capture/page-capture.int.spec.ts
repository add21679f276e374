import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { capturePage } from '../../../src/capture/page-capture.js';
import { EARLY_QUIET_WINDOW_MS } from '../../../src/capture/early-quiet.js';
import { CaptureError } from '../../../src/capture/capture-error.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { startFixtureSite, type FixtureSite } from '../../support/fixture-site.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const T = { timeout: 20_000 };

describe('capturePage (real Chromium)', () => {
  let site: FixtureSite;
  let chromium: LaunchedChromium;

  before(async () => {
    site = await startFixtureSite();
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await site?.close();
  });

  it('captures a page that loads: full render, settle, screenshot, html, redacted headers, exchanges', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/simple'), { timeoutMs: 10_000 });

    assert.equal(result.renderQuality, 'full');
    assert.equal(result.render.waitUntilReached, 'load');
    assert.equal(result.render.timedOut, false);
    assert.equal(result.render.settleReason, 'idle');
    // A scripted page on which nothing is pending after load settles after the early window (early-quiet.ts).
    assert.ok(
      result.render.settleMs! >= EARLY_QUIET_WINDOW_MS && result.render.settleMs! <= 3000,
      `settleMs ${result.render.settleMs}`,
    );
    assert.ok(Number.isInteger(result.render.durationMs) && result.render.durationMs >= result.render.settleMs!);
    for (const stage of ['navigationMs', 'settleMs', 'scrollMs', 'consentMs', 'screenshotMs', 'htmlMs'] as const) {
      assert.equal(typeof result.render.stages[stage], 'number', stage);
    }

    assert.ok(result.screenshot.subarray(0, 8).equals(PNG_SIGNATURE));
    assert.equal(result.screenshot.readUInt32BE(16), 1280, 'viewport width');
    assert.match(result.html, /Hello from the fixture/);
    assert.match(result.html, /script ran/, 'html is the DOM after scripts');
    assert.equal(result.title, 'Fixture simple page');
    assert.equal(result.finalUrl, site.url('/simple'));
    assert.equal(result.mainStatus, 200);

    assert.ok(result.headers);
    assert.deepEqual(result.headers['set-cookie'], ['[redacted]', '[redacted]']);
    assert.equal(result.headers['x-fixture'], 'simple');
    assert.equal(result.headers['content-type'], 'text/html; charset=utf-8');
    assert.ok(!JSON.stringify(result.headers).includes('abc123'));

    const byPath = new Map(result.exchanges.map((e) => [new URL(e.url).pathname, e]));
    const main = byPath.get('/simple');
    assert.ok(main, 'main document recorded');
    assert.equal(main.method, 'GET');
    assert.equal(main.status, 200);
    assert.equal(main.statusText, 'OK');
    assert.equal(main.httpVersion, 'HTTP/1.1');
    assert.match(main.body.toString('utf8'), /Hello from the fixture/);
    assert.deepEqual(
      main.responseHeaders.filter(([name]) => name.toLowerCase() === 'set-cookie').map(([, v]) => v),
      ['session=abc123; Path=/; HttpOnly', 'pref=dark; Path=/'],
      'raw Set-Cookie pairs, in order',
    );
    assert.ok(main.requestHeaders['User-Agent'] ?? main.requestHeaders['user-agent']);
    assert.ok(!Number.isNaN(Date.parse(main.startedAt)));
    assert.equal(main.remoteAddress, '127.0.0.1');
    assert.match(byPath.get('/assets/style.css')?.body.toString('utf8') ?? '', /font-family/);
    assert.match(byPath.get('/assets/app.js')?.body.toString('utf8') ?? '', /script ran/);
    assert.ok(byPath.get('/assets/pixel.png')?.body.subarray(0, 8).equals(PNG_SIGNATURE));

    assert.equal(result.consent?.result, 'not-found');
    assert.equal(result.consent?.cmp, null);
    assert.equal(result.screenshotBefore, undefined);
  });

  it('records redirects as their own exchanges and reports the final URL', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/redirect-twice'), {
      timeoutMs: 10_000,
      handleConsent: false,
    });
    assert.equal(result.finalUrl, site.url('/simple'));
    assert.equal(result.mainStatus, 200);
    const chain = result.exchanges.filter((e) =>
      ['/redirect-twice', '/redirect', '/simple'].includes(new URL(e.url).pathname),
    );
    assert.deepEqual(
      chain.map((e) => [new URL(e.url).pathname, e.status]),
      [
        ['/redirect-twice', 301],
        ['/redirect', 302],
        ['/simple', 200],
      ],
    );
    assert.deepEqual(
      chain[0]!.responseHeaders.find(([n]) => n.toLowerCase() === 'location'),
      ['Location', '/redirect'],
    );
    assert.equal(chain[0]!.body.length, 0);
    assert.equal(result.consent, undefined, 'no consent info when handling is off');
  });

  it('ends the settle phase at the cap while a request stays open', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/pending-fetch'), {
      timeoutMs: 10_000,
      settleCapMs: 1000,
      handleConsent: false,
    });
    assert.equal(result.renderQuality, 'full');
    assert.equal(result.render.settleReason, 'cap');
    // settleReason says the cap ended it; a busy host's late timer may end it seconds after the cap, never before.
    assert.ok(
      result.render.settleMs! >= 990 && result.render.settleMs! < 1000 + 5000,
      `settleMs ${result.render.settleMs}`,
    );
  });

  it('ends the settle phase at the 3 s cap on a page whose beacons never stop', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/beacons'), {
      timeoutMs: 10_000,
      handleConsent: false,
    });
    assert.equal(result.renderQuality, 'full');
    assert.equal(result.render.settleReason, 'cap');
    assert.ok(
      result.render.settleMs! >= 2990 && result.render.settleMs! < 3000 + 5000,
      `settleMs ${result.render.settleMs}`,
    );
    assert.ok(site.requests.filter((r) => r.path === '/beacon').length >= 5, 'the page kept sending beacons');
  });

  it('captures a partial page when load never comes but DOMContentLoaded did', T, async () => {
    const started = Date.now();
    const result = await capturePage(chromium.browser, site.url('/slow-image'), { timeoutMs: 2000 });
    assert.equal(result.renderQuality, 'partial');
    assert.equal(result.render.waitUntilReached, 'domcontentloaded');
    assert.equal(result.render.timedOut, true);
    assert.equal(result.render.settleMs, undefined);
    assert.equal(result.render.settleReason, undefined);
    assert.ok(result.render.durationMs >= 2000);
    assert.ok(result.screenshot.subarray(0, 8).equals(PNG_SIGNATURE));
    assert.match(result.html, /Text arrives, the image never does/);
    assert.equal(result.mainStatus, 200);
    assert.ok(Date.now() - started < 8000, 'a partial capture does not wait much past the timeout');
  });

  it('fails with a retryable timeout when DOMContentLoaded never fires', T, async () => {
    await assert.rejects(
      capturePage(chromium.browser, site.url('/hang-html'), { timeoutMs: 1500 }),
      (error: unknown) => {
        assert.ok(error instanceof CaptureError);
        assert.equal(error.code, 'timeout');
        assert.equal(error.retryable, true);
        return true;
      },
    );
  });

  it('fails with a retryable error when the connection is refused', T, async () => {
    const port = await closedPort();
    await assert.rejects(
      capturePage(chromium.browser, `http://127.0.0.1:${port}/`, { timeoutMs: 5000 }),
      (error: unknown) => {
        assert.ok(error instanceof CaptureError);
        assert.equal(error.code, 'navigation_failed');
        assert.equal(error.retryable, true);
        assert.match(error.message, /refused/);
        return true;
      },
    );
  });

  it("turns a failure the proxy explains into a 'blocked' error with the proxy's reason", T, async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/`;
    const explainNetworkError = (failed: string) =>
      failed === url ? { reason: 'The address 127.0.0.1 is not allowed', retryable: false } : undefined;
    await assert.rejects(
      capturePage(chromium.browser, url, { timeoutMs: 5000, explainNetworkError }),
      (error: unknown) => {
        assert.ok(error instanceof CaptureError);
        assert.equal(error.code, 'blocked');
        assert.equal(error.retryable, false);
        assert.equal(error.message, 'The address 127.0.0.1 is not allowed');
        return true;
      },
    );
    // A plain-HTTP proxy answers a refused request with its own error page.
    await assert.rejects(
      capturePage(chromium.browser, site.url('/status/403'), {
        timeoutMs: 5000,
        explainNetworkError: () => ({ reason: 'blocked by policy', retryable: false }),
      }),
      (error: unknown) => error instanceof CaptureError && error.code === 'blocked',
    );
  });

  it('still captures error pages the site itself serves', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/status/404'), {
      timeoutMs: 5000,
      handleConsent: false,
      explainNetworkError: () => undefined,
    });
    assert.equal(result.mainStatus, 404);
    assert.match(result.html, /Status 404/);
  });

  it('records request bodies of POSTs made by the page', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/post-fetch'), {
      timeoutMs: 10_000,
      handleConsent: false,
    });
    const post = result.exchanges.find((e) => e.method === 'POST');
    assert.ok(post, 'POST recorded');
    assert.equal(new URL(post.url).pathname, '/echo');
    assert.equal(post.requestBody?.toString('utf8'), 'hello=world');
    assert.equal(post.body.toString('utf8'), 'hello=world');
    assert.match(result.html, /echo: hello=world/);
  });

  it('keeps recorded bodies within the byte budget and notes what it left out', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/simple'), {
      timeoutMs: 10_000,
      handleConsent: false,
      maxRecordedBodyBytes: 400,
    });
    const total = result.exchanges.reduce((sum, e) => sum + e.body.length, 0);
    assert.ok(total <= 400, `recorded ${total} bytes`);
    assert.ok(
      result.exchanges.some((e) => new URL(e.url).pathname === '/simple'),
      'the main document fits and is kept',
    );
    assert.ok(
      result.notes.some((n) => /budget/.test(n)),
      result.notes.join('; '),
    );
  });

  it('scrolls through the page so lazy images load before the screenshot', T, async () => {
    const result = await capturePage(chromium.browser, site.url('/lazy'), { timeoutMs: 10_000, handleConsent: false });
    const paths = result.exchanges.map((e) => new URL(e.url).pathname);
    for (const lazy of ['/assets/img-lazy1.png', '/assets/img-lazy2.png', '/assets/img-observed.png']) {
      assert.ok(paths.includes(lazy), `${lazy} was loaded`);
    }
    assert.match(result.html, /class="loaded"/);
    // …and they are in the screenshot: three 100×100 images of the fixture's blue.
    const png = PNG.sync.read(result.screenshot);
    let blue = 0;
    for (let i = 0; i < png.data.length; i += 4) {
      if (png.data[i] === 30 && png.data[i + 1] === 144 && png.data[i + 2] === 255) blue++;
    }
    assert.ok(blue >= 3 * 100 * 100 * 0.95, `${blue} blue pixels`);
  });

  it('stops when aborted and closes its browser context', T, async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new CaptureError('timeout', 'stopped by test', true)), 500);
    const contextsBefore = chromium.browser.browserContexts().length;
    await assert.rejects(
      capturePage(chromium.browser, site.url('/hang'), { timeoutMs: 10_000, signal: controller.signal }),
      (error: unknown) => error instanceof CaptureError && error.message === 'stopped by test',
    );
    assert.equal(chromium.browser.browserContexts().length, contextsBefore);
  });
});

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
