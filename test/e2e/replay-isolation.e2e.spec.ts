import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CDPSession, Frame, Page } from 'puppeteer-core';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { captureUntilComplete } from '../support/fixture-site.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';
import { rezip, unzip } from '../unit/archive/bundle-fixture.js';
import { dropOnVerifyPage } from '../support/verify-page-drop.js';

/**
 * An archived page's scripts must not run on the verifier's origin. A hostile page is captured through
 * the real service, then replayed on its verification page in Chromium. From inside the replay it tries what a
 * captured test page once did when replays ran on the API's origin: escape the replay's wrapper with
 * `Function('return top')()`, read and rewrite the verdict and the captured URL, rewrite the address bar
 * (`history.replaceState`), navigate the verifier away, and register service workers — one with a scope under the
 * API origin's /replay/, one under the replay origin's /replay/w/ with options of its choosing. None of it works:
 * the verdict, the URL and the address bar stay, a tampered bundle dropped on the page afterwards is still refused,
 * no service worker exists on the API origin, and the next replay in the same browser works.
 */

// Runs only when framed (in the replay): at capture time the page is the top document and does nothing.
const HOSTILE_SCRIPT = `
(async function () {
  var out = document.getElementById('report');
  try { await attack(out); } catch (e) { out.textContent += ' failed: ' + e; }
})();
async function attack(out) {
  var realTop = Function('return top')();
  var realWindow = Function('return window')();
  if (realTop === realWindow) { out.textContent = 'top-level'; return; }
  var realNavigator = Function('return navigator')();
  var realLocation = Function('return location')();
  var ancestors = realLocation.ancestorOrigins;
  var apiOrigin = ancestors[ancestors.length - 1];
  var report = { ownOrigin: realLocation.origin, apiOrigin: apiOrigin };
  function show() { out.textContent = JSON.stringify(report); }
  function attempt(name, fn) {
    try { var r = fn(); report[name] = 'done' + (r === undefined ? '' : ': ' + r); } catch (e) { report[name] = 'refused: ' + e.name; }
    show();
  }
  attempt('readVerdict', function () { return realTop.document.getElementById('verdict').textContent; });
  attempt('rewriteVerdict', function () { realTop.document.getElementById('verdict').textContent = 'Verified (forged by the archived page)'; });
  attempt('rewriteCapturedUrl', function () { realTop.document.getElementById('captured-url').textContent = 'https://forged.example/'; });
  attempt('replaceState', function () { realTop.history.replaceState(null, '', '/v1/verify/cap_0123456789abcdef0123456789abcdef'); });
  attempt('navigateTop', function () { realTop.location.href = apiOrigin + '/v1/verify/cap_0123456789abcdef0123456789abcdef'; });
  // The replay's wrapper rewrites register(); a fresh frame of this origin has the browser's own.
  var unwrapped = null;
  try {
    var fresh = document.createElement('iframe');
    document.body.appendChild(fresh);
    unwrapped = fresh.contentWindow.navigator.serviceWorker;
  } catch (e) { report.freshFrame = 'refused: ' + e.name; }
  async function register(name, container, script, scope) {
    var attempt = Promise.resolve().then(function () { return container.register(script, { scope: scope }); }).then(
      function (reg) { return 'registered: ' + reg.scope; },
      function (e) { return 'refused: ' + (e && e.name) + (e && e.message ? ' (' + e.message + ')' : ''); });
    var silence = new Promise(function (resolve) { setTimeout(function () { resolve('no answer in 10 s'); }, 10000); });
    report[name] = await Promise.race([attempt, silence]);
    show();
  }
  await register('swOnApiOrigin', realNavigator.serviceWorker, apiOrigin + '/replay/sw.js', apiOrigin + '/replay/w/');
  await register('swOnApiOriginUnwrapped', unwrapped, apiOrigin + '/replay/sw.js', apiOrigin + '/replay/w/');
  await register('swOnReplayOrigin', realNavigator.serviceWorker, realLocation.origin + '/replay/sw.js?hostile=1', realLocation.origin + '/replay/w/');
  // The viewer's own worker script, which the replay origin's /replay/sw.js imports: no worker of its own.
  await register('swViewerScriptOnReplayOrigin', unwrapped, realLocation.origin + '/replay/rwp-sw.js', realLocation.origin + '/replay/w/');
  out.setAttribute('data-done', '1');
}`;

const HOSTILE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Hostile fixture</title></head>
<body><h1>Hostile fixture</h1><pre id="report">script not run</pre>
<script src="/hostile.js"></script>
</body></html>`;

const PLAIN_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Plain fixture</title></head>
<body><h1>Plain fixture</h1><p id="out">script not run</p><script>document.getElementById('out').textContent = 'plain script ran';</script></body></html>`;

interface Registration {
  registrationId: string;
  scopeURL: string;
  isDeleted: boolean;
}

describe('replayed pages run on their own origin', () => {
  let s: TestServer;
  let site: Server;
  let siteOrigin: string;
  let chromium: LaunchedChromium;
  let hostileId: string;
  let plainId: string;
  let cdp: CDPSession;
  const registrations = new Map<string, Registration>();

  before(async () => {
    site = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const send = (type: string, body: string) =>
        res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
      if (path === '/hostile') return send('text/html; charset=utf-8', HOSTILE_PAGE);
      if (path === '/hostile.js') return send('application/javascript', HOSTILE_SCRIPT);
      if (path === '/plain') return send('text/html; charset=utf-8', PLAIN_PAGE);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    s = await startTestServer({
      ROLES: 'api,projector,worker,signer',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      CAPTURE_TIMEOUT_MS: '20000',
      WORKER_CONCURRENCY: '1',
    });
    const admin = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'hostile', scopes: ['capture'], name: 'hostile' },
    });
    assert.equal(admin.status, 201, admin.text);
    hostileId = await captureUntilComplete(s.call, admin.body.key, `${siteOrigin}/hostile`);
    plainId = await captureUntilComplete(s.call, admin.body.key, `${siteOrigin}/plain`);
    chromium = await launchChromium();
    // Every service worker registration in the browser, whatever origin it is on (the ServiceWorker domain of a
    // page's session reports its whole browser context).
    cdp = await (await chromium.browser.newPage()).createCDPSession();
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: Registration[] }) => {
      for (const r of e.registrations) registrations.set(r.registrationId, r);
    });
    await cdp.send('ServiceWorker.enable');
  });

  after(async () => {
    await chromium?.close();
    await s?.stop();
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  });

  async function openVerifyPage(captureId: string): Promise<Page> {
    const page = await chromium.browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${s.baseUrl}/v1/verify/${captureId}`, { waitUntil: 'load' });
    await page.waitForFunction(
      () => !/Verifying/.test(document.getElementById('verdict')?.textContent ?? 'Verifying'),
      { timeout: 60_000 },
    );
    return page;
  }

  /** The frame replaying `url`, once `ready` holds in it (the viewer's worker installs and reads the bundle first). */
  async function replayFrame(page: Page, url: string, ready: () => boolean): Promise<Frame> {
    // A generous limit: only a replay that never comes should reach it.
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      for (const frame of page.frames()) {
        if (!frame.url().includes(`mp_/${url}`)) continue;
        if (await frame.evaluate(ready).catch(() => false)) return frame;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const seen = await Promise.all(
      page.frames().map(async (f) => [f.url(), await f.evaluate(() => document.body?.innerText ?? '').catch(String)]),
    );
    throw new Error(`the replay of ${url} never showed; frames: ${JSON.stringify(seen)}`);
  }

  async function waitFor(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!condition()) {
      if (Date.now() > deadline)
        throw new Error(`gave up waiting for ${what}: ${JSON.stringify([...registrations.values()])}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it('the hostile page replays, and reaches neither the verifier nor the API origin', {
    timeout: 600_000,
  }, async () => {
    const page = await openVerifyPage(hostileId);
    const verifyUrl = `${s.baseUrl}/v1/verify/${hostileId}`;
    const shown = () =>
      page.evaluate(() => ({
        verdict: document.getElementById('verdict')?.textContent ?? '',
        capturedUrl: document.getElementById('captured-url')?.textContent ?? '',
        title: document.title,
      }));
    const before = await shown();
    assert.match(before.verdict, /^This is the page at .+ Nothing in it has changed since\.$/);
    assert.equal(before.capturedUrl, `${siteOrigin}/hostile`);

    const frame = await replayFrame(
      page,
      `${siteOrigin}/hostile`,
      () => document.getElementById('report')?.getAttribute('data-done') === '1',
    );
    const report = JSON.parse(await frame.evaluate(() => document.getElementById('report')!.textContent!));
    const apiOrigin = new URL(s.baseUrl).origin;
    // The archived script ran, on the replay origin, and knew the API's origin: it really tried.
    assert.equal(report.apiOrigin, apiOrigin, JSON.stringify(report));
    assert.notEqual(report.ownOrigin, apiOrigin, 'the archived page runs on another origin than the verifier');
    for (const name of ['readVerdict', 'rewriteVerdict', 'rewriteCapturedUrl', 'replaceState', 'navigateTop']) {
      assert.equal(report[name], 'refused: SecurityError', `${name}: ${JSON.stringify(report)}`);
    }
    assert.doesNotMatch(report.swOnApiOrigin, /^registered/, JSON.stringify(report));
    assert.doesNotMatch(report.swOnApiOriginUnwrapped, /^registered/, JSON.stringify(report));
    assert.doesNotMatch(report.swViewerScriptOnReplayOrigin, /^registered/, JSON.stringify(report));

    // What the verifier shows, and the address bar, are as they were.
    assert.deepEqual(await shown(), before);
    assert.equal(page.url(), verifyUrl);
    assert.equal(await page.evaluate(() => location.href), verifyUrl);
    // No service worker on the API origin, by the page's own view and by the browser's.
    assert.deepEqual(
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map((r) => r.scope)),
      [],
    );
    const onApi = [...registrations.values()].filter((r) => r.scopeURL.startsWith(`${apiOrigin}/`));
    assert.deepEqual(onApi, [], 'no service worker registration on the API origin');
    assert.equal((await s.call('GET', '/replay/sw.js')).status, 404, 'the API serves no service worker script');

    // The verifier in the page is the service's, not the archived page's: a tampered bundle is still refused.
    const files = unzip((await s.call('GET', `/v1/captures/${hostileId}/artifacts/wacz`)).raw);
    files['pages/pages.jsonl'] = Buffer.concat([Buffer.from(files['pages/pages.jsonl']!), Buffer.from('\n')]);
    await dropOnVerifyPage(page, 'tampered.wacz', 'application/wacz+zip', rezip(files));
    await page.waitForFunction(
      () => /in this browser:/.test(document.getElementById('local-verdict')?.textContent ?? ''),
      { timeout: 120_000 },
    );
    assert.match(
      await page.evaluate(() => document.getElementById('local-verdict')!.textContent!),
      /^Not verified in this browser: tampered\.wacz/,
    );
    assert.deepEqual(await shown(), before);

    // On the replay origin, no service worker but the viewer's own: its listener serves no other worker script.
    const replayOrigin = report.ownOrigin as string;
    const viewerScope = `${replayOrigin}/replay/`;
    const live = (scope: (url: string) => boolean) =>
      [...registrations.values()].filter((r) => !r.isDeleted && scope(r.scopeURL));
    assert.deepEqual(
      live((url) => url.startsWith(`${replayOrigin}/`) && url !== viewerScope),
      [],
      JSON.stringify(report),
    );

    // Had an archived page found a way to register one under /replay/w/ (the test does it for it, from the replay
    // page's frame), the next replay in this browser drops it and works.
    const hostileScope = `${replayOrigin}/replay/w/`;
    const embed = page.frames().find((f) => f.url().startsWith(`${replayOrigin}/captures/`))!;
    await embed.evaluate(
      async (scope) => void (await navigator.serviceWorker.register('/replay/sw.js?hostile=1', { scope })),
      hostileScope,
    );
    await waitFor(() => live((url) => url === hostileScope).length === 1, 'the planted registration to show');
    await page.close();
    const next = await openVerifyPage(plainId);
    await replayFrame(next, `${siteOrigin}/plain`, () => /plain script ran/.test(document.body?.innerText ?? ''));
    await waitFor(() => live((url) => url === hostileScope).length === 0, 'the planted registration to be dropped');
    await next.close();
  });
});
