import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { assertAccessible, undocumentedRequests, watchPage } from '../support/console-browser.js';
import type { OpenApiDoc } from '../support/openapi-check.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';
import { assertSigned, makePki, type Pki, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * The console as a person uses it, in the real Chromium against the real service. Tenant A signs in
 * (typing the key, Enter), makes a webhook (its secret shown once) and pings it, submits a capture and watches it
 * complete without reloading, opens it (the verdict with each check; the WACZ and the certificate downloaded by
 * clicking, with the API's bytes), makes and deletes a schedule (its next five runs in UTC), and sees the webhook's
 * delivery. The operator makes a key for tenant B and a quota override for A, which A then sees; B, signed in
 * elsewhere, never sees A's list, and a capture's page shows B only what the API shows anyone with its id; the
 * operator revokes B's key and B's page ends at sign-in, saying why. On every page axe-core finds no serious or
 * critical violation and nothing scrolls sideways at 390 px; the browser logs no error, and every request the page
 * made is an operation of /openapi.json or the console's own (DESIGN decision 17).
 */
const WAIT = { timeout: 30_000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Polls until `probe` gives a truthy value; generous limits, never a timed assertion. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

describe('console in Chromium', () => {
  let s: TestServer;
  let site: FixtureSite;
  let pki: Pki;
  let rx: Receiver;
  let chromium: LaunchedChromium;
  let downloads: string;
  let base: string;
  let tenantKey: string;
  let doc: OpenApiDoc;
  const requested: string[] = [];
  const problems: string[] = [];
  /** Pages whose session is ended on purpose: the 401s that end it are expected there. */
  const endingSession = new WeakSet<Page>();
  /** Shared by the story: tenant A's open page, its capture, tenant B's key. */
  let pageA: Page;
  let captureId: string;
  let tenantBKey: string;
  let operatorPage: Page;

  before(async () => {
    site = await startFixtureSite();
    pki = await makePki();
    rx = await startReceiver(pki);
    downloads = await mkdtemp(join(tmpdir(), 'console-downloads-'));
    await chmod(downloads, 0o777); // Chromium runs as nobody when the tests run as root
    s = await startTestServer({
      ROLES: 'api,projector,worker,signer,dispatcher',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      WEBHOOK_CA_CERTS: pki.caPath,
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      CAPTURE_TIMEOUT_MS: '20000',
      WORKER_CONCURRENCY: '1',
      LOG_CHECKPOINT_INTERVAL_MS: '1000',
    });
    base = s.baseUrl;
    const key = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: '127.0.0.2', // the browser's 127.0.0.1 keeps all 5 key requests a minute (spec 4.11)
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
    await rx?.close();
    if (pki) await rm(pki.dir, { recursive: true, force: true });
    if (downloads) await rm(downloads, { recursive: true, force: true });
  });

  async function newPage(width = 1280): Promise<Page> {
    const context = await chromium.browser.createBrowserContext({
      downloadBehavior: { policy: 'allow', downloadPath: downloads },
    });
    const page = await context.newPage();
    await page.setViewport({ width, height: 900 });
    // The console's own errors; the archived page replays in a sandboxed frame on the replay origin, where
    // ReplayWeb.page probes its own service worker's API (a 404 there is its business, not the console's).
    watchPage(page, new URL(base).origin, { requested, problems }, () => endingSession.has(page));
    return page;
  }

  const at = (page: Page, path: string) => page.waitForFunction((p) => location.pathname === p, WAIT, path);

  const heading = (page: Page, text: string | RegExp) =>
    page.waitForFunction(
      (src, flags) => new RegExp(src, flags).test(document.querySelector('h1')?.textContent ?? ''),
      WAIT,
      typeof text === 'string' ? `^${text}$` : text.source,
      typeof text === 'string' ? '' : text.flags,
    );

  const textOf = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

  /** Waits until an element matching `selector` has text matching `pattern`. */
  const waitText = (page: Page, selector: string, pattern: RegExp) =>
    page.waitForFunction(
      (sel, src, flags) =>
        [...document.querySelectorAll(sel)].some((e) => new RegExp(src, flags).test(e.textContent ?? '')),
      WAIT,
      selector,
      pattern.source,
      pattern.flags,
    );

  /** Clicks the button that reads `label` (inside `within`), with the mouse, as a person would. */
  async function clickButton(page: Page, label: string, within = 'main'): Promise<void> {
    // A list the page redraws (a poller's answer) can replace the button between finding it and the click: then
    // it is found again.
    for (let attempt = 1; ; attempt++) {
      const button = await page.waitForFunction(
        (sel, text) =>
          [...document.querySelectorAll(`${sel} button`)].find(
            (b) => b.textContent?.trim() === text && !b.hasAttribute('disabled'),
          ),
        WAIT,
        within,
        label,
      );
      try {
        await (button as unknown as { click(): Promise<void> }).click();
        return;
      } catch (err) {
        if (attempt >= 3 || !/detached/i.test(String(err))) throw err;
      }
    }
  }

  /** Goes to a page through the navigation, as a person would. */
  async function navTo(page: Page, path: string, title: string | RegExp): Promise<void> {
    await page.click(`nav a[href="${path}"]`);
    await at(page, path);
    await heading(page, title);
  }

  async function fitsWidth(page: Page, what: string): Promise<void> {
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    assert.ok(scroll <= inner, `${what}: ${scroll} px wide in a ${inner} px viewport`);
  }

  /** The checks of every page: axe-core at 1280 px, and nothing wider than the viewport at 390 px. */
  async function checkPage(page: Page, what: string): Promise<void> {
    await assertAccessible(page, what);
    await page.setViewport({ width: 390, height: 844 });
    await fitsWidth(page, `${what} at 390 px`);
    await page.setViewport({ width: 1280, height: 900 });
  }

  /** Clicks a download link and returns the file Chromium saved. */
  async function download(page: Page, selector: string): Promise<Buffer> {
    const before = new Set(await readdir(downloads));
    await page.click(selector);
    const name = await eventually(
      `the download of ${selector}`,
      async () => (await readdir(downloads)).find((f) => !before.has(f) && !f.endsWith('.crdownload')),
      30_000,
    );
    return readFile(join(downloads, name));
  }

  async function signIn(page: Page, kind: 'tenant' | 'operator', key: string): Promise<void> {
    await page.waitForSelector(`#${kind}-key`, WAIT);
    await page.type(`#${kind}-key`, key);
    await page.keyboard.press('Enter');
  }

  it('a tenant signs in, makes a webhook, submits, watches, opens, downloads, verifies, schedules', {
    timeout: 600_000,
  }, async () => {
    const page = await newPage();
    pageA = page;
    await page.goto(`${base}/console`, { waitUntil: 'load' });
    await at(page, '/console/sign-in');
    await heading(page, 'Sign in');
    await checkPage(page, 'sign-in');
    await signIn(page, 'tenant', tenantKey);
    await at(page, '/console/captures');
    await heading(page, 'Captures');
    assert.equal(await page.$eval('#tenant-key', () => true).catch(() => false), false);

    // A webhook first, so the capture's completion is delivered to it: the secret is shown once, a ping arrives signed.
    await navTo(page, '/console/webhooks', 'Webhooks');
    await page.type('input[name=name]', 'e2e receiver');
    await page.type('input[name=url]', rx.url('/console'));
    await page.click('form button[type=submit].primary');
    await page.waitForSelector('.once .secret', WAIT);
    const secret = await textOf(page, '.once .secret');
    assert.match(secret, /^svcsec_[0-9a-f]{64}$/);
    await waitText(page, 'td', /^e2e receiver$/);
    await clickButton(page, 'Ping', '.row-actions');
    await waitText(page, '.row-actions [role=status]', /^Answered HTTP 200 in \d+ ms\.$/);
    const [ping] = await eventually('the ping', async () => rx.at('/console').length > 0 && rx.at('/console'));
    assert.equal(ping!.body.type, 'ping');
    assertSigned(secret, ping!);
    await checkPage(page, 'webhooks');

    // Submit through the navigation, as a person would.
    await navTo(page, '/console/submit', 'Submit a capture');
    await page.waitForSelector('.quota', WAIT);
    assert.match(await textOf(page, '.quota'), /captures left this month/);
    await checkPage(page, 'submit');
    await page.type('textarea[name=urls]', site.url('/simple'));
    await page.click('form button[type=submit].primary');
    await page.waitForSelector('.results li a', WAIT);
    // The page's poller turns it complete without a reload.
    await page.waitForSelector('.results li .status-complete', { timeout: 180_000 });

    // The next turn of the poller redraws the item with the record's times: a locator finds the link again if the
    // one it found was replaced before the click.
    await page.locator('.results li a').setTimeout(WAIT.timeout).click();
    await page.waitForFunction(() => /^\/console\/captures\/cap_/.test(location.pathname), WAIT);
    captureId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await heading(page, /^Capture of /);

    // The verdict and each check, as the API gives them.
    await page.waitForSelector('.verdict', { timeout: 60_000 });
    assert.match(await textOf(page, '.verdict'), /^Verified/);
    const verify = (await s.call('GET', `/v1/verify/${captureId}`)).body;
    const apiChecks = [
      ...verify.checks.map((c: any) => [c.name, c.status]),
      ...(verify.transparency ? [['transparency', verify.transparency.status]] : []),
    ];
    const shownChecks = await page.$$eval('table:has(caption) tbody tr', (rows) =>
      rows
        .filter((r) => r.closest('table')?.caption?.textContent === 'Checks run by the server')
        .map((r) => [...r.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)),
    );
    assert.deepEqual(shownChecks, apiChecks);

    const links = await page.$$eval('.downloads a', (as) => as.map((a) => a.getAttribute('href')));
    for (const name of ['screenshot', 'html', 'wacz'])
      assert.ok(links.includes(`/v1/captures/${captureId}/artifacts/${name}`), `${name} in ${links}`);
    const wacz = await download(page, `.downloads a[href="/v1/captures/${captureId}/artifacts/wacz"]`);
    assert.equal(sha256(wacz), sha256((await s.call('GET', `/v1/captures/${captureId}/artifacts/wacz`)).raw));

    // The certificate carries the log's inclusion proof, so it is issued once a checkpoint holds the bundle: a
    // person waits for the page to say so (reloading now and then), then downloads it.
    await eventually('the checkpoint', async () => {
      const fact = await page.$$eval(
        '.facts dt',
        (dts) => dts.find((dt) => dt.textContent === 'Transparency log')?.nextElementSibling?.textContent ?? 'none',
      );
      if (fact === 'none' || /in a published checkpoint/.test(fact)) return true;
      await sleep(1000);
      await page.reload({ waitUntil: 'load' });
      await heading(page, /^Capture of /);
      return false;
    });
    const certificatePath = `/v1/captures/${captureId}/certificate`;
    await page.waitForSelector(`.downloads a[href="${certificatePath}"]`, WAIT);
    const certificate = await download(page, `.downloads a[href="${certificatePath}"]`);
    assert.equal(certificate.subarray(0, 5).toString(), '%PDF-');
    assert.equal(sha256(certificate), sha256((await s.call('GET', certificatePath)).raw));
    await page.waitForSelector('#prov-heading ~ .facts', WAIT);
    await checkPage(page, 'capture detail');

    // A schedule: the next five runs in UTC, as the server reads the cron; created, then deleted.
    await navTo(page, '/console/schedules', 'Schedules');
    await page.type('input[name=name]', 'weekly e2e');
    await page.type('input[name=url]', site.url('/simple'));
    await page.type('input[name=cron]', '0 6 * * 1');
    await page.waitForFunction(() => document.querySelectorAll('.preview ol.runs li').length === 5, WAIT);
    const runs = await page.$$eval('.preview ol.runs li', (lis) => lis.map((li) => li.textContent));
    const preview = await s.call('GET', `/v1/schedules/preview?cron=${encodeURIComponent('0 6 * * 1')}`, {
      token: tenantKey,
    });
    assert.deepEqual(
      runs,
      preview.body.nextRuns.map((r: string) => `${r.replace('T', ' ').replace(/(\.\d{3})?Z$/, '')} UTC`),
    );
    for (const r of runs) assert.match(r!, /^\d{4}-\d\d-\d\d 06:00:00 UTC$/);
    await checkPage(page, 'schedules with a preview');
    await page.click('form button[type=submit].primary');
    await waitText(page, 'td', /^weekly e2e$/);
    assert.match(await textOf(page, '[role=status]'), /Created "weekly e2e"/);
    await clickButton(page, 'Delete', '.row-actions');
    await clickButton(page, 'Delete "weekly e2e"', '.row-actions');
    await waitText(page, 'main p', /^No schedules yet\.$/);
    assert.deepEqual((await s.call('GET', '/v1/schedules', { token: tenantKey })).body.data, []);

    // The webhook's delivery of the completion; the secret is not shown again.
    await navTo(page, '/console/webhooks', 'Webhooks');
    await waitText(page, 'td', /^e2e receiver$/);
    assert.equal(await page.$('.once'), null);
    const delivered = await eventually('the delivery', async () => {
      await clickButton(page, 'Deliveries', '.row-actions');
      await page.waitForSelector('#del-heading:focus', WAIT);
      const rows = await page.$$eval('section:has(#del-heading) tbody tr', (trs) =>
        trs.map((tr) => tr.textContent ?? ''),
      );
      return rows.find((r) => r.includes('capture.complete') && r.includes('delivered'));
    });
    assert.match(delivered, /200/);
    const sent = rx.at('/console').find((r) => r.body?.type === 'capture.complete');
    assert.equal(sent?.body.data.captureId ?? sent?.body.data.id, captureId);
    assertSigned(secret, sent!);
    await checkPage(page, 'webhook deliveries');

    // The list shows it, with a thumbnail; at 390 px the menu opens.
    await navTo(page, '/console/captures', 'Captures');
    await page.waitForSelector(`tr[data-capture="${captureId}"] img.thumb`, WAIT);
    await checkPage(page, 'captures');
    await page.setViewport({ width: 390, height: 844 });
    assert.equal(await page.$eval('#nav', (n) => getComputedStyle(n).display), 'none');
    await page.click('#nav-toggle');
    assert.notEqual(await page.$eval('#nav', (n) => getComputedStyle(n).display), 'none');
    await page.keyboard.press('Escape');
    await page.setViewport({ width: 1280, height: 900 });
  });

  it('the operator sets a quota override and makes a key; the tenant sees the new quota, then signs out', {
    timeout: 300_000,
  }, async () => {
    const page = await newPage();
    operatorPage = page;
    await page.goto(`${base}/console/operator`, { waitUntil: 'load' });
    await at(page, '/console/sign-in');
    await signIn(page, 'operator', ADMIN_KEY);
    await at(page, '/console/operator/tenants');
    await heading(page, 'Tenants');
    const form = 'form[aria-label="Quota overrides of console-a"]';
    await page.waitForSelector(form, WAIT);
    await page.type(`${form} input[name=capturesPerMonth]`, '77');
    await page.click(`${form} button[type=submit]`);
    await waitText(page, '[role=status]', /^Saved the overrides of console-a\.$/);
    await waitText(page, 'td', /of 77 \(override\)$/);
    await checkPage(page, 'operator tenants');

    // The key endpoints allow 5 requests a minute from one address (spec 4.11): this page's list, the new key and
    // the list again here, and the revocation and the list again in the next test.
    await navTo(page, '/console/operator/keys', 'API keys');
    await page.waitForSelector('table caption', WAIT);
    await page.type('input[name=tenantId]', 'console-b');
    await page.type('input[name=name]', 'made in the console');
    await page.click('form button[type=submit].primary');
    await page.waitForSelector('.once .secret', WAIT);
    tenantBKey = await textOf(page, '.once .secret');
    assert.match(tenantBKey, /^svc_live_/);
    const usage = await s.call('GET', '/v1/account/usage', { token: tenantBKey });
    assert.equal(usage.status, 200, usage.text);
    assert.equal(usage.body.tenantId, 'console-b');
    await waitText(page, 'td', /^made in the console/);
    await checkPage(page, 'operator keys');

    // Tenant A, still signed in elsewhere, sees the new quota on the submit page.
    await eventually('the new quota', async () => {
      await navTo(pageA, '/console/usage', 'Usage');
      await navTo(pageA, '/console/submit', 'Submit a capture');
      await pageA.waitForSelector('.quota', WAIT);
      return / of 77 captures left this month/.test(await textOf(pageA, '.quota'));
    });
    await navTo(pageA, '/console/usage', 'Usage');
    await pageA.waitForSelector('.meter-row', WAIT);
    assert.match(await textOf(pageA, '.meter-row'), /of 77$/);
    await checkPage(pageA, 'usage');

    // Sign out: the session is gone, and a tenant page sends the browser to sign in.
    await pageA.click('nav a[href="/console/sign-in"]');
    await at(pageA, '/console/sign-in');
    await pageA.click('section[aria-labelledby=tenant-heading] button');
    await pageA.waitForSelector('#tenant-key', WAIT);
    await pageA.goto(`${base}/console/captures`, { waitUntil: 'load' });
    await at(pageA, '/console/sign-in');
    await pageA.close();
  });

  it("tenant B never sees tenant A's list; A's capture page shows B what the API shows anyone", {
    timeout: 300_000,
  }, async () => {
    const page = await newPage();
    await page.goto(`${base}/console/sign-in`, { waitUntil: 'load' });
    await signIn(page, 'tenant', tenantBKey);
    await at(page, '/console/captures');
    await page.waitForSelector('main table caption, main p', WAIT);
    await page.waitForFunction(() => !/Loading/.test(document.querySelector('main')?.textContent ?? ''), WAIT);
    assert.equal(await page.$(`tr[data-capture="${captureId}"]`), null);
    assert.equal((await page.content()).includes(captureId), false);
    const listB = await s.call('GET', '/v1/captures', { token: tenantBKey });
    assert.deepEqual(listB.body.data, []);

    // The capture id is its access secret (spec 5.4): the record is public to whoever holds it.
    const record = await s.call('GET', `/v1/captures/${captureId}`, { token: tenantBKey });
    assert.equal(record.status, 200, record.text);
    await page.goto(`${base}/console/captures/${captureId}`, { waitUntil: 'load' });
    await heading(page, `Capture of ${record.body.url}`);
    const facts = await page.$$eval('.detail > .facts dt', (dts) =>
      Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
    );
    assert.equal(facts['Capture id'], captureId);
    assert.equal(facts.Status, record.body.status);
    assert.equal(facts['Bundle hash'], record.body.wacz.bundleHash);
    await checkPage(page, "another tenant's capture");

    // The operator, still on the keys page, revokes B's key; B's open console ends at sign-in and says why (spec: within 60 s).
    const row = await operatorPage.$$eval('tbody tr', (trs) =>
      trs.findIndex((tr) => tr.querySelector('td')?.textContent?.startsWith('made in the console')),
    );
    assert.ok(row >= 0);
    const inRow = `tbody tr:nth-child(${row + 1})`;
    await clickButton(operatorPage, 'Revoke', inRow);
    await clickButton(operatorPage, 'Revoke "made in the console"', inRow);
    await waitText(operatorPage, '[role=status]', /Sessions signed in with it end within 60 s\.$/);
    await operatorPage.close();

    endingSession.add(page);
    await page.click('nav a[href="/console/captures"]');
    await eventually(
      "the end of B's session",
      async () => {
        if (await page.evaluate(() => location.pathname === '/console/sign-in')) return true;
        // A person keeps using the console: each page asks the API, and the first 401 ends it.
        await page.click('nav a[href="/console/usage"]').catch(() => {});
        await sleep(1000);
        return false;
      },
      60_000,
    );
    await page.waitForSelector('[role=alert]', WAIT);
    assert.match(await textOf(page, '[role=alert]'), /session has ended.*revoked/);
    await page.waitForSelector('#tenant-key', WAIT);
    assert.equal(await page.$('nav a[href="/console/captures"]'), null);
    await checkPage(page, 'sign-in after the session ended');
    await page.close();
  });

  it('a session cookie planted beside its own sends the person to sign in, told to sign in again or clear cookies', {
    timeout: 300_000,
  }, async () => {
    const page = await newPage();
    endingSession.add(page);
    await page.goto(`${base}/console/sign-in`, { waitUntil: 'load' });
    await signIn(page, 'tenant', tenantKey);
    await at(page, '/console/captures');
    // What a replayed page on this host name (any port) can do: another session's cookie, for a longer path.
    await page.setCookie({ name: 'cl_tenant_session', value: 'planted-by-a-replayed-page', url: base, path: '/v1' });
    await page.click('nav a[href="/console/usage"]');
    await at(page, '/console/sign-in');
    await page.waitForSelector('[role=alert]', WAIT);
    assert.match(await textOf(page, '[role=alert]'), /two session cookies.*clear this site’s cookies/);
    await checkPage(page, 'sign-in after a planted cookie');
    await page.close();
  });

  it('the browser logged no error and made only documented requests', () => {
    assert.deepEqual(problems, []);
    assert.deepEqual(undocumentedRequests(doc, requested), []);
  });
});
