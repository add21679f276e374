import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import type { Page } from 'puppeteer-core';
import { launchChromium, type LaunchedChromium } from '../../src/capture/browser-launch.js';
import { captureUntilComplete, type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { rezip, unzip } from '../unit/archive/bundle-fixture.js';
import { dropOnVerifyPage } from '../support/verify-page-drop.js';

/**
 * The verification page in the real Chromium (README, "Verification page"): it names the captured URL and says in plain
 * words what the capture shows; at 390 (a phone: the archived page before the tables), 1280 and 1920 px no box overlaps another, nothing leaves the viewport sideways and no table cell overflows
 * (checked on the laid-out boxes of each screenshot); and the page checks a WACZ in the browser itself — this
 * capture's, and a tampered one dropped on it — with every row saying where it ran.
 */

type Box = { name: string; x: number; y: number; width: number; height: number };

describe('verification page in Chromium', () => {
  let s: TestServer;
  let site: FixtureSite;
  let chromium: LaunchedChromium;
  let dir: string;
  let captureId: string;
  let verifyUrl: string;
  let wacz: Buffer;

  before(async () => {
    site = await startFixtureSite();
    dir = await mkdtemp(join(tmpdir(), 'cl-verify-page-'));
    s = await startTestServer({
      ROLES: 'api,projector,worker,signer',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      CAPTURE_TIMEOUT_MS: '20000',
      WORKER_CONCURRENCY: '1',
    });
    const admin = await s.call('POST', '/v1/admin/keys', {
      token: 'test-admin-key-0123456789',
      body: { tenantId: 'page', scopes: ['capture'], name: 'page' },
    });
    assert.equal(admin.status, 201, admin.text);
    captureId = await captureUntilComplete(s.call, admin.body.key, site.url('/simple'));
    verifyUrl = `${s.baseUrl}/v1/verify/${captureId}`;
    wacz = (await s.call('GET', `/v1/captures/${captureId}/artifacts/wacz`)).raw;
    chromium = await launchChromium();
  });

  after(async () => {
    await chromium?.close();
    await s?.stop();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function open(width: number): Promise<Page> {
    const page = await chromium.browser.newPage();
    await page.setViewport({ width, height: 900 });
    await page.goto(verifyUrl, { waitUntil: 'load' });
    await page.waitForFunction(
      () => !/Verifying/.test(document.getElementById('verdict')?.textContent ?? 'Verifying'),
      { timeout: 60_000 },
    );
    return page;
  }

  for (const width of [390, 1280, 1920]) {
    it(`at ${width} px: the captured URL is shown and no box overlaps another or leaves the page`, async () => {
      const page = await open(width);
      try {
        const shot = await page.screenshot({ fullPage: true, type: 'png' });
        await writeFile(join(dir, `verify-${width}.png`), shot);
        assert.equal(
          PNG.sync.read(Buffer.from(shot)).width,
          width,
          'the screenshot is as wide as the viewport: nothing scrolls sideways',
        );

        const layout = await page.evaluate(() => {
          const names = [
            'h1',
            '#captured',
            '#verdict',
            '#time-source',
            '#checks',
            '#facts',
            '#check-here',
            '#drop',
            '#replay',
          ];
          const boxes = names.map((name) => {
            const r = document.querySelector(name)!.getBoundingClientRect();
            return { name, x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
          });
          // A column head broken mid-word is taller than one line of its text.
          const brokenHeads = [...document.querySelectorAll('#checks th')]
            .filter((th) => th.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(th).lineHeight))
            .map((th) => th.textContent);
          const wider = [...document.querySelectorAll('body *')]
            .filter((e) => !e.closest('#replay') && e.getBoundingClientRect().right > window.innerWidth + 0.5)
            .map((e) => e.tagName + (e.id ? `#${e.id}` : ''));
          const overflowingCells = [...document.querySelectorAll('td, th')]
            .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
            .map((cell) => `${cell.closest('table')?.id}: ${cell.textContent?.slice(0, 40)}`);
          return {
            boxes,
            overflowingCells,
            brokenHeads,
            wider,
            seeArchived: (document.getElementById('see-archived') as HTMLAnchorElement | null)?.getAttribute('href'),
            seeArchivedY: document.getElementById('see-archived')!.getBoundingClientRect().top + window.scrollY,
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
            url: document.getElementById('captured-url')?.textContent ?? '',
            checkRows: document.querySelectorAll('#checks tbody tr').length,
          };
        });
        assert.equal(layout.url, site.url('/simple'));
        assert.equal(layout.checkRows, 4);
        assert.ok(
          layout.scrollWidth <= layout.innerWidth,
          `the page is ${layout.scrollWidth} px wide in a ${layout.innerWidth} px viewport`,
        );
        assert.deepEqual(layout.overflowingCells, []);
        assert.deepEqual(layout.brokenHeads, [], 'no column head breaks mid-word');
        assert.deepEqual(layout.wider, [], `nothing is wider than ${width} px`);
        if (width < 1000) {
          assert.equal(layout.seeArchived, '#archived');
          assert.ok(layout.seeArchivedY < 600, `"See the archived page" is near the top (${layout.seeArchivedY} px)`);
        }
        const boxes = layout.boxes as Box[];
        for (const b of boxes) {
          assert.ok(b.width > 0 && b.height > 0, `${b.name} is not laid out`);
          assert.ok(b.x >= 0 && b.x + b.width <= width + 0.5, `${b.name} leaves the viewport: ${JSON.stringify(b)}`);
        }
        for (let i = 0; i < boxes.length; i++) {
          for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i]!;
            const b = boxes[j]!;
            const overlapX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
            const overlapY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
            assert.ok(
              overlapX <= 0.5 || overlapY <= 0.5,
              `${a.name} overlaps ${b.name} at ${width} px: ${JSON.stringify([a, b])}`,
            );
          }
        }
        const replay = boxes.find((b) => b.name === '#replay')!;
        const checks = boxes.find((b) => b.name === '#checks')!;
        if (width >= 1000)
          assert.ok(replay.x >= checks.x + checks.width, 'two columns: the replay is beside the checks');
        else {
          assert.ok(replay.y + replay.height <= checks.y, 'one column: the archived page comes before the long tables');
          assert.ok(replay.y < 900, `one column: the archived page starts on the first screen (at ${replay.y} px)`);
        }
      } finally {
        await page.close();
      }
    });
  }

  it('on a first visit at 390 px: plain words first, the built-in TSA said as weaker, no console error, no failed request of ours', async () => {
    const page = await chromium.browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()} ${m.location().url ?? ''}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e}`));
    page.on('requestfailed', (r) => {
      // The replay viewer aborts its first whole-file read once it knows the bundle takes byte ranges. A request
      // answered 204 (the viewer's fetch of a favicon the bundle does not hold) did not fail: the DevTools protocol
      // reports a body-less 2xx answer as aborted (puppeteer#9458), and the browser logs nothing.
      if (r.response()?.status() === 204) return;
      if (!/\/bundles\/.*\.wacz$/.test(new URL(r.url()).pathname))
        problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`);
    });
    // Answers of ReplayWeb.page's worker inside the sandboxed replay frame count too: the replay page
    // has the bundle loaded before the viewer asks for it (src/api/replay-page.ts), and a favicon the bundle does not
    // hold is a 204 to the viewer (src/api/replay-worker.ts).
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    });
    try {
      await page.setViewport({ width: 390, height: 844 });
      await page.goto(verifyUrl, { waitUntil: 'load' });
      await page.waitForFunction(
        () => !/Verifying/.test(document.getElementById('verdict')?.textContent ?? 'Verifying'),
        { timeout: 60_000 },
      );
      // The archived page has replayed: its frame shows the captured page.
      const replayed = async () => page.frames().some((f) => /\/replay\/w\/.*mp_\//.test(f.url()));
      const deadline = Date.now() + 60_000;
      while (!(await replayed())) {
        assert.ok(Date.now() < deadline, 'the archived page never replayed');
        await new Promise((r) => setTimeout(r, 250));
      }
      await new Promise((r) => setTimeout(r, 1500));
      const text = await page.evaluate(() => ({
        verdict: document.getElementById('verdict')?.textContent ?? '',
        time: document.getElementById('time-source')?.textContent ?? '',
        names: [...document.querySelectorAll('#checks tbody tr td:first-child')].map((td) => td.textContent ?? ''),
      }));
      assert.match(
        text.verdict,
        /^This is the page at http:\/\/127\.0\.0\.1:\d+\/simple as it looked on \d{1,2} [A-Z][a-z]+ \d{4} at \d\d:\d\d UTC\. Nothing in it has changed since\.$/,
      );
      assert.match(text.time, /this service's own clock/);
      assert.doesNotMatch(text.time, /public time-stamping authority/);
      assert.ok(text.names[0]?.startsWith('Every file in the bundle is unchanged'), text.names.join(' | '));
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  it("checks this capture's bundle in the browser, and a tampered one dropped on it, saying where each check ran", async () => {
    const page = await open(1280);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    try {
      await page.click('#check-here');
      await page.waitForFunction(
        () => /in this browser:/.test(document.getElementById('local-verdict')?.textContent ?? ''),
        { timeout: 120_000 },
      );
      const here = await page.evaluate(() => ({
        verdict: document.getElementById('local-verdict')?.textContent ?? '',
        rows: [...document.querySelectorAll('#local-checks tbody tr')].map((tr) => [
          (tr as HTMLElement).dataset.check ?? '',
          ...[...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent ?? ''),
        ]),
        server: [...document.querySelectorAll('#checks tbody tr')].map(
          (tr) => tr.querySelectorAll('td')[3]?.textContent ?? '',
        ),
      }));
      assert.match(
        here.verdict,
        /^Verified in this browser: this capture's bundle \(bundle of this capture\)/,
        JSON.stringify(here.rows),
      );
      assert.deepEqual(
        here.rows.map(([name, status, , where]) => [name, status, where]),
        [
          ['artifactHashes', 'pass', 'in this browser'],
          ['bundleHash', 'pass', 'in this browser'],
          ['signature', 'pass', 'in this browser'],
          ['timestamp', 'pass', 'in this browser'],
        ],
      );
      assert.deepEqual(here.server, ['on the server', 'on the server', 'on the server', 'on the server']);
      // The verdict came from the browser: it fetched the bundle and the published trust, not a verification.
      assert.ok(requests.includes(`/v1/captures/${captureId}/artifacts/wacz`), requests.join(' '));
      assert.ok(
        !requests.some((path) => path.startsWith('/v1/verify/')),
        `asked the server to verify: ${requests.join(' ')}`,
      );

      const files = unzip(wacz);
      files['pages/pages.jsonl'] = Buffer.concat([Buffer.from(files['pages/pages.jsonl']!), Buffer.from('\n')]);
      await dropOnVerifyPage(page, 'tampered.wacz', 'application/wacz+zip', rezip(files));
      await page.waitForFunction(
        () =>
          /tampered\.wacz/.test(document.getElementById('local-verdict')?.textContent ?? '') &&
          !/Checking/.test(document.getElementById('local-verdict')?.textContent ?? ''),
        { timeout: 120_000 },
      );
      const dropped = await page.evaluate(() => ({
        verdict: document.getElementById('local-verdict')?.textContent ?? '',
        rows: [...document.querySelectorAll('#local-checks tbody tr')].map((tr) => [
          (tr as HTMLElement).dataset.check ?? '',
          ...[...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent ?? ''),
        ]),
      }));
      assert.match(dropped.verdict, /^Not verified in this browser: tampered\.wacz/);
      assert.deepEqual(dropped.rows[0]?.slice(0, 2), ['artifactHashes', 'fail']);
      assert.match(dropped.rows[0]?.[2] ?? '', /pages\/pages\.jsonl/);
      assert.equal(dropped.rows[2]?.[1], 'pass', 'the manifest is still authentic: the signature holds');
      assert.ok((await readFile(join(dir, 'verify-1280.png'))).length > 0);
    } finally {
      await page.close();
    }
  });
});
