import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeBundle, type SignedBundle } from '../../../src/archive/bundle.js';
import { localNotary } from '../../../src/archive/notary.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { generateSeedBase64, signingKeyFromSeed } from '../../../src/archive/signing-key.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import { capturePage } from '../../../src/capture/page-capture.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { startFixtureSite, type FixtureSite } from '../../support/fixture-site.js';

/**
 * DESIGN decision 7: "Bundles are WACZ 1.1.1 … so ReplayWeb.page opens them." A real capture of the fixture
 * page is bundled with makeBundle (v0.2.0, local TSA), the fixture site is shut down, and the bundle
 * is opened offline in headless Chromium with ReplayWeb.page's own built ui.js + sw.js (npm `replaywebpage`),
 * embedded as its docs describe: `<replay-web-page source=… url=…>` with the service worker under ./replay/.
 * Service workers run on http://127.0.0.1 (a potentially trustworthy origin), and the viewer fetches nothing
 * from the internet, so no workaround is needed.
 */

// ui.js and sw.js sit beside index.html (the one root file the package exports).
const requireFromHere = createRequire(import.meta.url);
const RWP_DIR = dirname(requireFromHere.resolve('replaywebpage/index.html'));

describe('a capture bundle opens in ReplayWeb.page', () => {
  let dir: string;
  let site: FixtureSite;
  let siteRequestsAtClose = 0;
  let tsa: LocalTsa;
  let chromium: LaunchedChromium;
  let bundle: SignedBundle;
  let target: string;
  let viewer: Server;
  let viewerOrigin: string;
  const viewerRequests: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rwp-'));
    [site, tsa, chromium] = await Promise.all([startFixtureSite(), startLocalTsa({ dir: join(dir, 'tsa') }), launchChromium()]);
    target = site.url('/simple');
    const createdAt = new Date().toISOString();
    const result = await capturePage(chromium.browser, target, { timeoutMs: 10_000, handleConsent: false });
    assert.equal(result.renderQuality, 'full');
    bundle = (await makeBundle(
      { captureId: 'cap_5eb0a9c1d2e3f405162738495a6b7c8d', url: target, createdAt, completedAt: new Date().toISOString(), page: result },
      localNotary(signingKeyFromSeed(generateSeedBase64()), { timestamper: createTsaClient({ url: tsa.url }) }),
      { onTimestampFailure: 'throw' },
    ))!;
    assert.equal(bundle.ref.version, '0.2.0');
    // From here on the page can only come out of the bundle.
    siteRequestsAtClose = site.requests.length;
    await site.close();

    const [ui, sw] = await Promise.all([readFile(join(RWP_DIR, 'ui.js')), readFile(join(RWP_DIR, 'sw.js'))]);
    const index = `<!doctype html>
<html><head><meta charset="utf-8"><title>Replay</title><script src="/ui.js"></script></head>
<body><replay-web-page style="display:block;height:700px" embed="replayonly" source="/capture.wacz" url="${target}"></replay-web-page></body></html>`;
    viewer = createServer((req, res) => {
      viewerRequests.push(`${req.method} ${req.url}`);
      const path = new URL(req.url ?? '/', 'http://viewer.invalid').pathname;
      if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(index);
      // ui.js is loaded by the embedding page and again inside the replay iframe (./replay/).
      if (path === '/ui.js' || path === '/replay/ui.js') return void res.writeHead(200, { 'content-type': 'application/javascript' }).end(ui);
      if (path === '/replay/sw.js') return void res.writeHead(200, { 'content-type': 'application/javascript' }).end(sw);
      if (path === '/capture.wacz') return serveRanges(req, res, bundle.bytes);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    await new Promise<void>((resolve) => viewer.listen(0, '127.0.0.1', resolve));
    viewerOrigin = `http://127.0.0.1:${(viewer.address() as AddressInfo).port}`;
  });

  after(async () => {
    await chromium?.close();
    await tsa?.close();
    await new Promise<void>((resolve) => (viewer ? viewer.close(() => resolve()) : resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('replays the captured page from the WACZ: text, script result, stylesheet and image, all offline', { timeout: 180_000 }, async () => {
    const page = await chromium.browser.newPage();
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(`${viewerOrigin}/`) && !/^(blob|data):/.test(url)) elsewhere.push(url);
    });
    await page.goto(`${viewerOrigin}/`, { waitUntil: 'load' });

    // The replayed page lives in a nested iframe served by the service worker: …/replay/w/<coll>/<ts>mp_/<url>.
    // Installing the worker and indexing the WACZ can take long on a busy machine: a generous limit.
    const deadline = Date.now() + 120_000;
    let replayed = null as { url: string; text: string; h1Color: string; imageWidth: number } | null;
    while (!replayed && Date.now() < deadline) {
      for (const frame of page.frames()) {
        if (!frame.url().includes(`mp_/${target}`)) continue;
        const seen = await frame
          .evaluate(() => ({
            text: document.body?.innerText ?? '',
            h1Color: document.querySelector('h1') ? getComputedStyle(document.querySelector('h1')!).color : '',
            imageWidth: (document.querySelector('img') as HTMLImageElement | null)?.naturalWidth ?? 0,
          }))
          .catch(() => null);
        if (seen && /script ran/.test(seen.text) && seen.imageWidth > 0) replayed = { url: frame.url(), ...seen };
      }
      if (!replayed) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.ok(replayed, `replayed page never showed up; frames: ${JSON.stringify(page.frames().map((f) => f.url()))}`);

    assert.match(replayed.url, new RegExp(`^${viewerOrigin}/replay/w/[^/]+/(:[0-9a-f]+/)?\\d{14}mp_/${target.replace(/[.?]/g, '\\$&')}$`));
    assert.match(replayed.text, /Hello from the fixture/);
    assert.match(replayed.text, /script ran/, 'the archived app.js ran in the replay');
    assert.equal(replayed.h1Color, 'rgb(18, 52, 86)', 'the archived stylesheet applied (h1 { color: #123456 })');
    assert.equal(replayed.imageWidth, 16, 'the archived 16x16 PNG decoded');

    assert.deepEqual(elsewhere, [], 'the browser requested nothing but the local viewer');
    assert.equal(site.requests.length, siteRequestsAtClose, 'nothing reached the (closed) original site');
    assert.ok(viewerRequests.some((r) => r.startsWith('GET /capture.wacz')), 'the service worker read the bundle');
    await page.close();
  });
});

/** Static bytes with HTTP range support (ReplayWeb.page reads WACZ members by range). */
function serveRanges(req: IncomingMessage, res: ServerResponse, bytes: Buffer): void {
  const headers = { 'content-type': 'application/wacz+zip', 'accept-ranges': 'bytes' };
  const head = req.method === 'HEAD';
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  if (!range || (range[1] === '' && range[2] === '')) {
    res.writeHead(200, { ...headers, 'content-length': bytes.length }).end(head ? undefined : bytes);
    return;
  }
  let start: number;
  let end: number;
  if (range[1] === '') {
    start = Math.max(0, bytes.length - Number(range[2]));
    end = bytes.length - 1;
  } else {
    start = Number(range[1]);
    end = range[2] === '' ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
  }
  if (start > end || start >= bytes.length) {
    res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
    return;
  }
  res
    .writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${bytes.length}`, 'content-length': end - start + 1 })
    .end(head ? undefined : bytes.subarray(start, end + 1));
}
