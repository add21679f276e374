// A PNG of every console page at 1280 and at 390 px wide, against a whole service started the way the
// e2e starts it (hermetic nats-server and Postgres, the fixture site, a real HTTPS webhook receiver), with some data:
// captures complete and one failed, a schedule, a webhook with deliveries, a second tenant.
//   node --import tsx ops/console-screenshots.ts [outDir]        (make screenshots; default docs/console/)
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import { join, resolve } from 'node:path';
import type { Page } from 'puppeteer-core';
import { launchChromium } from '../src/capture/browser-launch.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../test/support/test-server.js';
import { makePki, startReceiver } from '../test/support/webhook-receiver.js';

const WIDTHS = [1280, 390] as const;
/** The longest page is cut here: the top of a page is what a screenshot is for. */
const MAX_HEIGHT = 1600;
const outDir = resolve(process.argv[2] ?? 'docs/console');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Some data, through the API as any client makes it: two tenants, captures, a schedule, a webhook and deliveries. */
async function makeData(s: TestServer, site: { url(p: string): string }, receiverUrl: string) {
  const key = async (tenantId: string, from: string) => {
    const r = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from,
      body: { tenantId, scopes: ['capture', 'read'], name: `${tenantId} laptop` },
    });
    assert.equal(r.status, 201, r.text);
    return r.body.key as string;
  };
  const tenantA = await key('newsroom', '127.0.0.2');
  const tenantB = await key('compliance', '127.0.0.3');
  const hook = await s.call('POST', '/v1/webhooks', {
    token: tenantA,
    body: { name: 'Evidence inbox', url: receiverUrl, events: ['capture.complete', 'capture.failed'] },
  });
  assert.equal(hook.status, 201, hook.text);
  const schedule = await s.call('POST', '/v1/schedules', {
    token: tenantA,
    body: { name: 'Front page on Mondays', url: site.url('/article'), cron: '0 6 * * 1' },
  });
  assert.equal(schedule.status, 201, schedule.text);
  await s.call('PUT', '/v1/admin/tenants/compliance/config', {
    token: ADMIN_KEY,
    from: '127.0.0.4',
    body: { quotas: { capturesPerMonth: 250 } },
  });

  const submit = async (token: string, url: string) => {
    const r = await s.call('POST', '/v1/captures', { token, body: { url } });
    assert.equal(r.status, 202, r.text);
    return r.body.id as string;
  };
  const ids = [
    await submit(tenantA, site.url('/article')),
    await submit(tenantA, site.url('/simple')),
    await submit(tenantA, site.url('/redirect')),
    await submit(tenantA, `http://127.0.0.1:${await closedPort()}/gone`),
    await submit(tenantB, site.url('/simple')),
  ];
  const finished = await until('the captures to finish', async () => {
    const states = await Promise.all(
      ids.map(async (id) => (await s.call('GET', `/v1/captures/${id}/status`)).body.status as string),
    );
    return states.every((st) => st !== 'pending') && states;
  });
  console.log(`captures: ${ids.map((id, i) => `${id} ${finished[i]}`).join(', ')}`);
  return { tenantA, completeId: ids[0]!, failedId: ids[3]! };
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewport({ width, height: width === 390 ? 844 : 900 });
    await sleep(300); // the layout and lazy images settle
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    const file = join(outDir, `${name}-${width}.png`);
    await page.screenshot({
      path: file as `${string}.png`,
      clip: { x: 0, y: 0, width, height: Math.min(height, MAX_HEIGHT) },
      captureBeyondViewport: true,
    });
    console.log(file);
  }
  await page.setViewport({ width: 1280, height: 900 });
}

async function main(): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const site = await startFixtureSite();
  const pki = await makePki();
  const rx = await startReceiver(pki);
  const s = await startTestServer({
    ROLES: 'api,projector,worker,signer,dispatcher',
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    WEBHOOK_CA_CERTS: pki.caPath,
    SIGNING_KEY: randomBytes(32).toString('base64'),
    TSA_URL: '',
    CAPTURE_TIMEOUT_MS: '20000',
    CAPTURE_RETRY_DELAYS: '1',
    WORKER_CONCURRENCY: '2',
    LOG_CHECKPOINT_INTERVAL_MS: '1000',
  });
  const chromium = await launchChromium();
  try {
    const data = await makeData(s, site, rx.url('/inbox'));
    const base = s.baseUrl;
    const page = await (await chromium.browser.createBrowserContext()).newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const open = async (path: string, ready: string, name: string) => {
      await page.goto(`${base}${path}`, { waitUntil: 'networkidle2' });
      await page.waitForSelector(ready, { timeout: 30_000 });
      await shoot(page, name);
    };

    await open('/console/sign-in', '#tenant-key', 'sign-in');
    await page.type('#tenant-key', data.tenantA);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.pathname === '/console/captures', { timeout: 30_000 });
    await page.goto(`${base}/console/sign-in?as=operator`, { waitUntil: 'load' });
    await page.waitForSelector('#operator-key', { timeout: 30_000 });
    await page.type('#operator-key', ADMIN_KEY);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.pathname === '/console/operator/tenants', { timeout: 30_000 });

    await open('/console/captures', 'tr[data-capture] img.thumb', 'captures');
    await open(`/console/captures/${data.completeId}`, '.verdict', 'capture-detail');
    await open(`/console/captures/${data.failedId}`, '.facts', 'capture-failed');
    await open('/console/submit', '.quota', 'submit');
    await open('/console/schedules', 'table', 'schedules');
    await page.goto(`${base}/console/webhooks`, { waitUntil: 'networkidle2' });
    await page.waitForSelector('.row-actions button', { timeout: 30_000 });
    const [, deliveries] = await page.$$('.row-actions button');
    await deliveries!.click();
    await page.waitForSelector('#del-heading:focus', { timeout: 30_000 });
    await shoot(page, 'webhooks');
    await open('/console/usage', '.meter-row', 'usage');
    await open('/console/operator/tenants', 'table', 'operator-tenants');
    await open('/console/operator/keys', 'table', 'operator-keys');
    await open('/console/operator/capacity', '.meter-row', 'operator-capacity');
    await open('/console/operator/reports', '.report figure, .report .error', 'operator-reports');
  } finally {
    await chromium.close();
    await s.stop();
    await site.close();
    await rx.close();
    await rm(pki.dir, { recursive: true, force: true });
  }
}

await main();
