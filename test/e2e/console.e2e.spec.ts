import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { matchOperation, type OpenApiDoc } from '../support/openapi-check.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The console as a person uses it (issue 30 §7), in the real Chromium against the real service: a tenant signs in
 * with an API key, submits a capture, watches it complete without reloading, opens it (verified, downloads, the WACZ
 * with the API's bytes) and signs out; the operator signs in and creates a key that then works. On every page axe-core
 * finds no serious or critical violation, the browser logs no error, nothing scrolls sideways at 390 px, and every
 * request the page made is an operation of /openapi.json or the console's own (DESIGN decision 17).

 */
const require = createRequire(import.meta.url);
const AXE_SOURCE = readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
/** The console's pages and assets; its sign-in routes are API operations like any other. */
const CONSOLE_PATHS = /^\/console(?!\/session|\/oidc)(\/.*)?$/;

describe('console in Chromium', () => {
  let s: TestServer;
  let site: FixtureSite;
  let chromium: LaunchedChromium;
  let base: string;
  let tenantKey: string;
  let doc: OpenApiDoc;
  const requested: string[] = [];
  const problems: string[] = [];

  before(async () => {
    site = await startFixtureSite();
    s = await startTestServer({
      ROLES: 'api,projector,worker,signer',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      CAPTURE_TIMEOUT_MS: '20000',
      WORKER_CONCURRENCY: '1',
    });
    base = s.baseUrl;
    const key = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'console-a', scopes: ['capture', 'read'], name: 'console e2e' },
    });
    assert.equal(key.status, 201, key.text);
    tenantKey = key.body.key;
    doc = (await s.call('GET', '/openapi.json')).body;
    chromium = await launchChromium();
  });

  after(async () => {
    await chromium?.close();
    await s?.stop();
    await site?.close();
  });

  async function newPage(width = 1280): Promise<Page> {
    const page = await (await chromium.browser.createBrowserContext()).newPage();
    await page.setViewport({ width, height: 900 });
    const origin = new URL(base).origin;
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.origin === origin) requested.push(`${r.method()} ${u.pathname}${u.search}`);
    });
    // The console's own errors; the archived page replays in a sandboxed frame on the replay origin, where
    // ReplayWeb.page probes its own service worker's API (a 404 there is its business, not the console's).
    const ours = (url: string | undefined) => !url || new URL(url).origin === origin;
    page.on('console', (m) => {
      if (m.type() === 'error' && ours(m.location().url)) problems.push(`console: ${m.text()} (${m.location().url})`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && ours(r.url())) problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message} (${page.url()})`));
    return page;
  }

  const at = (page: Page, path: string) =>
    page.waitForFunction((p) => location.pathname === p, { timeout: 30_000 }, path);

  const heading = (page: Page, text: string | RegExp) =>
    page.waitForFunction(
      (src, flags) => new RegExp(src, flags).test(document.querySelector('h1')?.textContent ?? ''),
      { timeout: 30_000 },
      typeof text === 'string' ? `^${text}$` : text.source,
      typeof text === 'string' ? '' : text.flags,
    );

  /** axe-core in the page (injected over CDP, so the page's CSP is untouched): no serious or critical violation. */
  async function accessible(page: Page, what: string): Promise<void> {
    await page.evaluate(await AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const axe = (window as any).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations
        .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
        .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
    });
    assert.deepEqual(violations, [], `${what}: axe-core violations`);
  }

  async function fitsWidth(page: Page, what: string): Promise<void> {
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    assert.ok(scroll <= inner, `${what}: ${scroll} px wide in a ${inner} px viewport`);
  }

  it('a tenant signs in, submits a capture, watches it complete, opens it and signs out', {
    timeout: 300_000,
  }, async () => {
    const page = await newPage();
    await page.goto(`${base}/console`, { waitUntil: 'load' });
    await at(page, '/console/sign-in');
    await heading(page, 'Sign in');
    await accessible(page, 'sign-in');
    await page.type('#tenant-key', tenantKey);
    await page.click('form:has(#tenant-key) button[type=submit]');
    await at(page, '/console/captures');
    await heading(page, 'Captures');
    assert.equal(await page.$eval('#tenant-key', () => true).catch(() => false), false);

    // Submit through the navigation, as a person would.
    await page.click('nav a[href="/console/submit"]');
    await at(page, '/console/submit');
    await page.waitForSelector('.quota', { timeout: 30_000 });
    assert.match(await page.$eval('.quota', (e) => e.textContent ?? ''), /captures left this month/);
    await accessible(page, 'submit');
    const target = site.url('/simple');
    await page.type('textarea[name=urls]', target);
    await page.click('form button[type=submit].primary');
    await page.waitForSelector('.results li a', { timeout: 30_000 });
    // The page's poller turns it complete without a reload.
    await page.waitForSelector('.results li .status-complete', { timeout: 180_000 });

    await page.click('.results li a');
    await page.waitForFunction(() => /^\/console\/captures\/cap_/.test(location.pathname), { timeout: 30_000 });
    const captureId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await heading(page, /^Capture of /);
    await page.waitForSelector('.verdict', { timeout: 60_000 });
    assert.match(await page.$eval('.verdict', (e) => e.textContent ?? ''), /^Verified/);
    const downloads = await page.$$eval('.downloads a', (as) => as.map((a) => a.getAttribute('href')));
    for (const name of ['screenshot', 'html', 'wacz'])
      assert.ok(downloads.includes(`/v1/captures/${captureId}/artifacts/${name}`), `${name} in ${downloads}`);
    assert.ok(downloads.includes(`/v1/captures/${captureId}/certificate`));
    // The WACZ the page links is the API's, byte for byte.
    const inPage = await page.evaluate(async (p) => {
      const bytes = await (await fetch(p)).arrayBuffer();
      return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
        .map((b) => b.toString(16).padStart(2, '0'))
        .join('');
    }, `/v1/captures/${captureId}/artifacts/wacz`);
    const api = await s.call('GET', `/v1/captures/${captureId}/artifacts/wacz`);
    assert.equal(inPage, createHash('sha256').update(api.raw).digest('hex'));
    await page.waitForSelector('#prov-heading ~ .facts', { timeout: 30_000 });
    await accessible(page, 'capture detail');

    // The list shows it, with a thumbnail; at 390 px nothing scrolls sideways and the menu opens.
    await page.click('a[href="/console/captures"]');
    await at(page, '/console/captures');
    await page.waitForSelector(`tr[data-capture="${captureId}"] img.thumb`, { timeout: 30_000 });
    await accessible(page, 'captures');
    await page.setViewport({ width: 390, height: 844 });
    await fitsWidth(page, 'captures at 390 px');
    assert.equal(await page.$eval('#nav', (n) => getComputedStyle(n).display), 'none');
    await page.click('#nav-toggle');
    assert.notEqual(await page.$eval('#nav', (n) => getComputedStyle(n).display), 'none');
    await page.setViewport({ width: 1280, height: 900 });

    await page.click('nav a[href="/console/sign-in"]');
    await at(page, '/console/sign-in');
    await page.click('section[aria-labelledby=tenant-heading] button');
    await page.waitForSelector('#tenant-key', { timeout: 30_000 });
    await page.goto(`${base}/console/captures`, { waitUntil: 'load' });
    await at(page, '/console/sign-in');
    await page.close();
  });

  it('the operator signs in and creates an API key that works', { timeout: 120_000 }, async () => {
    const page = await newPage();
    await page.goto(`${base}/console/operator/keys`, { waitUntil: 'load' });
    await at(page, '/console/sign-in');
    await page.type('#operator-key', ADMIN_KEY);
    await page.click('form:has(#operator-key) button[type=submit]');
    await at(page, '/console/operator/keys');
    await heading(page, 'API keys');
    await page.waitForSelector('table caption', { timeout: 30_000 });
    await page.type('input[name=tenantId]', 'console-b');
    await page.type('input[name=name]', 'made in the console');
    await page.click('form button[type=submit].primary');
    await page.waitForSelector('.once .secret', { timeout: 30_000 });
    const key = await page.$eval('.once .secret', (e) => e.textContent ?? '');
    assert.match(key, /^svc_live_/);
    const usage = await s.call('GET', '/v1/account/usage', { token: key });
    assert.equal(usage.status, 200, usage.text);
    assert.equal(usage.body.tenantId, 'console-b');
    await accessible(page, 'operator keys');
    await page.close();
  });

  it('the browser logged no error and made only documented requests', () => {
    assert.deepEqual(problems, []);
    const undocumented = requested.filter((r) => {
      const [method, url] = r.split(' ') as [string, string];
      return !CONSOLE_PATHS.test(url.split('?')[0]!) && !matchOperation(doc, method, url);
    });
    assert.deepEqual([...new Set(undocumented)], []);
  });
});
