import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { newId } from '../../src/domain/ids.js';
import type { TenantCommand } from '../../src/domain/tenant/index.js';
import { cli } from '../int/cli/cli-fixtures.js';
import { appendCommit, keyRotated } from '../support/log-events.js';
import { assertAccessible, undocumentedRequests, watchPage } from '../support/console-browser.js';
import type { OpenApiDoc } from '../support/openapi-check.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';

const ANALYST_KEY = 'e2e-analyst-key-0123456789';

/**
 * The operator pages in the real Chromium against the real service: Usage (the charts and the period
 * picker), Checks (a result the CLI recorded, and the log monitor run from the page), Dead letters and Capacity; and
 * the analyst's area (ANALYST_KEY) in a browser of its own: Reports and Usage, without the operator's pages. On
 * every page, at 1280 and 390 px: axe-core finds no serious or critical violation, nothing scrolls sideways; the
 * browser logs no error and every request is an operation of /openapi.json or the console's own.
 */
const by = { correlationId: 'console-operator-e2e', causedBy: { kind: 'admin' as const } };

describe('operator console pages in Chromium', () => {
  let s: TestServer;
  let chromium: LaunchedChromium;
  let page: Page;
  let doc: OpenApiDoc;
  const requested: string[] = [];
  const problems: string[] = [];

  before(async () => {
    s = await startTestServer({
      ROLES: 'api,projector,sequencer',
      LOG_CHECKPOINT_INTERVAL_MS: '300',
      LOG_SIGNING_KEY: randomBytes(32).toString('base64'),
      ANALYST_KEY,
    });
    const run = (tenantId: string, command: TenantCommand) => s.server.ctx.tenants.execute(tenantId, command, by);
    // Failures with a reason and a dead letter, so the charts and the queue have something to show.
    for (const [tenantId, reason] of [
      ['ops-a', 'target_timeout'],
      ['ops-b', undefined],
    ] as const) {
      const captureId = newId('cap');
      await run(tenantId, {
        type: 'SubmitCaptures',
        data: { captures: [{ captureId, url: 'https://example.org/' }], source: 'single' },
      });
      await run(tenantId, {
        type: 'FailCapture',
        data: {
          captureId,
          error: 'timed out',
          retryable: true,
          attempts: 3,
          ...(reason ? { failureReason: reason } : {}),
        },
      });
    }
    const webhookId = newId('whk');
    await run('ops-a', {
      type: 'RegisterWebhook',
      data: {
        webhookId,
        url: 'https://hooks.example.org/',
        events: ['capture.complete'],
        name: 'h',
        sealedSecret: 'eA',
      },
    } as TenantCommand);
    await run('ops-a', {
      type: 'DeadLetterDelivery',
      data: {
        deliveryId: newId('dlv'),
        webhookId,
        eventId: newId('evt'),
        eventType: 'capture.complete',
        attempts: 4,
        reason: 'HTTP 503',
      },
    });
    await appendCommit(s.server.store!, null, [keyRotated('k0')]);
    await s.server.ctx.waiter.waitFor(await s.server.store!.lastSeq());
    // A result recorded by a real CLI run.
    const audit = await cli(['log', 'audit'], { NATS_URL: s.infra.nats.url, DATABASE_URL: s.databaseUrl });
    assert.equal(audit.code, 0, audit.stderr);
    doc = (await s.call('GET', '/openapi.json')).body;
    chromium = await launchChromium();
    page = await watchedPage();
  });

  /** A page in a fresh browser context (its own cookies), its requests and errors recorded for the last test. */
  async function watchedPage(): Promise<Page> {
    const page = await (await chromium.browser.createBrowserContext()).newPage();
    await page.setViewport({ width: 1280, height: 900 });
    watchPage(page, new URL(s.baseUrl).origin, { requested, problems });
    return page;
  }

  after(async () => {
    await chromium?.close();
    await s?.stop();
  });

  const at = (path: string) => page.waitForFunction((p) => location.pathname === p, { timeout: 20_000 }, path);
  const heading = (text: string) =>
    page.waitForFunction((t) => document.querySelector('h1')?.textContent === t, { timeout: 20_000 }, text);

  const accessible = (what: string) => assertAccessible(page, what);

  /** Accessible at 1280 px, and at 390 px too without scrolling sideways. */
  async function checked(what: string): Promise<void> {
    await accessible(what);
    await page.setViewport({ width: 390, height: 844 });
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    assert.ok(scroll <= inner, `${what}: ${scroll} px wide in a ${inner} px viewport`);
    await accessible(`${what} at 390 px`);
    await page.setViewport({ width: 1280, height: 900 });
  }

  it('signs in as the operator and shows usage charts for a picked period', { timeout: 300_000 }, async () => {
    await page.goto(`${s.baseUrl}/console/operator/usage`, { waitUntil: 'load' });
    await at('/console/sign-in');
    await page.type('#operator-key', ADMIN_KEY);
    await page.click('form:has(#operator-key) button[type=submit]');
    await at('/console/operator/usage');
    await heading('Usage');
    await page.waitForSelector('#u-captures ~ figure svg.chart', { timeout: 20_000 });
    await page.waitForSelector('#u-failures ~ figure svg.chart', { timeout: 20_000 });
    const reasons = await page.$$eval('#u-failures ~ .table-wrap td:first-child', (tds) =>
      tds.map((td) => td.textContent),
    );
    assert.deepEqual(reasons.sort(), ['target_timeout', 'unclassified']);
    await checked('usage');
    // Another period through the picker: the page reloads its reports for it.
    await page.select('select[name=period]', 'last-7');
    await page.click('form[aria-label="Period and tenant"] button[type=submit]');
    await page.waitForFunction(() => location.search.includes('period=last-7'), { timeout: 10_000 });
    await page.waitForSelector('#u-captures ~ figure svg.chart', { timeout: 20_000 });
  });

  it('shows the recorded checks and runs the log monitor from the page', { timeout: 300_000 }, async () => {
    await page.click('nav a[href="/console/operator/checks"]');
    await at('/console/operator/checks');
    await heading('Checks');
    await page.waitForSelector('section:has(#check-log-audit) dl .status-complete', { timeout: 20_000 });
    const never = await page.$eval('section:has(#check-storage-verify)', (e) => e.textContent ?? '');
    assert.match(never, /Never recorded\. Run capture-ledger storage verify on a host/);
    for (let tries = 0; (await s.call('GET', '/v1/log/checkpoint')).status !== 200; tries++) {
      assert.ok(tries < 100, 'the sequencer published a checkpoint');
      await new Promise((r) => setTimeout(r, 200));
    }
    await page.click('section:has(#check-log-monitor) button.primary');
    await page.waitForSelector('section:has(#check-log-monitor) dl .status-complete', { timeout: 20_000 });
    const monitor = await page.$eval('section:has(#check-log-monitor)', (e) => e.textContent ?? '');
    assert.match(monitor, /the API, on request from this console/);
    // Dates in the viewer's zone, UTC on hover.
    const title = await page.$eval('section:has(#check-log-monitor) time', (e) => e.getAttribute('title') ?? '');
    assert.match(title, / UTC$/);
    await checked('checks');
  });

  it('lists the dead letters across tenants and shows capacity', { timeout: 300_000 }, async () => {
    await page.click('nav a[href="/console/operator/dead-letters"]');
    await at('/console/operator/dead-letters');
    await heading('Webhook dead letters');
    await page.waitForSelector('table caption', { timeout: 20_000 });
    const row = await page.$eval('tbody tr', (tr) => tr.textContent ?? '');
    assert.match(row, /ops-a.*capture\.complete.*4.*HTTP 503/);
    await checked('dead letters');
    await page.click('nav a[href="/console/operator/capacity"]');
    await at('/console/operator/capacity');
    await heading('Capacity');
    await page.waitForSelector('#backlog-meter', { timeout: 20_000 });
    await checked('capacity');
  });

  it('signs an analyst in, in a browser of their own, to Reports and Usage only', { timeout: 300_000 }, async () => {
    page = await watchedPage();
    await page.goto(`${s.baseUrl}/console/analyst/reports`, { waitUntil: 'load' });
    await at('/console/sign-in');
    // The analyst's card comes first when the analyst's area sent the viewer here.
    assert.equal(await page.$eval('.cards > .card h2', (e) => e.textContent), 'Analyst');
    await page.type('#analyst-key', ANALYST_KEY);
    await page.click('form:has(#analyst-key) button[type=submit]');
    await at('/console/analyst/reports');
    await heading('Reports');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('section.report a[download]').length === 4 &&
        !document.querySelector('section.report .error'),
      { timeout: 20_000 },
    );
    await page.waitForSelector('#r-failures-by-reason ~ figure svg.chart', { timeout: 20_000 });
    const nav = await page.$$eval('nav a', (as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(
      nav.filter((href) => href !== '/console/sign-in'),
      ['/console/analyst/reports', '/console/analyst/usage'],
      'the analyst navigation only, no operator pages',
    );
    const csv = await page.evaluate(async () => {
      const r = await fetch('/v1/admin/reports/failures-by-reason?format=csv', { credentials: 'same-origin' });
      return { status: r.status, type: r.headers.get('content-type') };
    });
    assert.equal(csv.status, 200);
    assert.match(csv.type ?? '', /^text\/csv/);
    await checked('analyst reports');

    await page.click('nav a[href="/console/analyst/usage"]');
    await at('/console/analyst/usage');
    await heading('Usage');
    await page.waitForSelector('#u-failures ~ figure svg.chart', { timeout: 20_000 });
    // The period picker keeps the viewer in the analyst's area.
    await page.select('select[name=period]', 'last-7');
    await page.click('form[aria-label="Period and tenant"] button[type=submit]');
    await page.waitForFunction(() => location.search.includes('period=last-7'), { timeout: 10_000 });
    assert.equal(new URL(page.url()).pathname, '/console/analyst/usage');
    await page.waitForSelector('#u-captures ~ figure svg.chart', { timeout: 20_000 });
    await accessible('analyst usage');
    // An operator page is not the analyst's: the console sends them to the operator's sign-in.
    await page.goto(`${s.baseUrl}/console/operator/tenants`, { waitUntil: 'load' });
    await at('/console/sign-in');
  });

  it('logged no browser error and made only documented requests', () => {
    assert.deepEqual(problems, []);
    assert.deepEqual(undocumentedRequests(doc, requested), []);
  });
});
