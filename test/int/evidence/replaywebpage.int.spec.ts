import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { replayAssets, type ReplayAssets } from '../../../src/api/replay-assets.js';
import { replayPagePath, type ReplayServer, startReplayServer } from '../../../src/api/replay-server.js';
import { makeBundle, type SignedBundle } from '../../../src/archive/bundle.js';
import { localNotary } from '../../../src/archive/notary.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { generateSeedBase64, signingKeyFromSeed } from '../../../src/archive/signing-key.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import { capturePage } from '../../../src/capture/page-capture.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { loadConfig } from '../../../src/config/config.js';
import { startFixtureSite, type FixtureSite } from '../../support/fixture-site.js';

/**
 * DESIGN decision 7: "Bundles are WACZ 1.1.1 … so ReplayWeb.page opens them." A real capture of the fixture
 * page is bundled with makeBundle (v0.2.0, local TSA), the fixture site is shut down, and the bundle is opened
 * offline in headless Chromium on the service's replay origin (src/api/replay-server.ts: ReplayWeb.page's own
 * built ui.js + sw.js from npm `replaywebpage`, the replay page the verification page frames, the WACZ by byte
 * range). Service workers run on http://127.0.0.1 (a potentially trustworthy origin), and the viewer fetches
 * nothing from the internet, so no workaround is needed.
 *
 * ReplayWeb.page's viewer reloads its frame only three times, 100 ms apart, waiting for its service
 * worker to take control; when installing took longer (a busy host: the end of a `make test` run) the frame stayed
 * on a 404 and the replay never showed, however long a test waited. The replay page has the worker active before the
 * viewer starts: the second case makes installing take 3 s and the replay still shows.
 */

const CAPTURE_ID = 'cap_5eb0a9c1d2e3f405162738495a6b7c8d';

describe('a capture bundle opens in ReplayWeb.page', () => {
  let dir: string;
  let site: FixtureSite;
  let siteRequestsAtClose = 0;
  let tsa: LocalTsa;
  let chromium: LaunchedChromium;
  let bundle: SignedBundle;
  let target: string;
  const viewers: ReplayServer[] = [];
  const bundleReads: string[] = [];

  /** A replay origin of its own (a fresh origin: no service worker registered yet) serving this one bundle. */
  async function startViewer(assets?: ReplayAssets): Promise<ReplayServer> {
    const viewer = await startReplayServer({
      config: loadConfig({ PORT: '0', HOST: '127.0.0.1', PUBLIC_BASE_URL: 'http://localhost:1' }),
      verification: { verifiable: async (id) => ({ url: target, capture_id: id }) as never },
      reads: {
        download: async (id) => {
          bundleReads.push(id);
          return {
            size: bundle.bytes.byteLength,
            type: 'application/wacz+zip',
            fileName: `${id}.wacz`,
            open: async (range) => [range ? bundle.bytes.subarray(range.start, range.end + 1) : bundle.bytes],
            presigned: async () => null,
          };
        },
      },
      guard: { perIp: () => async () => {} },
      log: pino({ level: 'silent' }),
      ...(assets ? { assets } : {}),
    });
    viewers.push(viewer);
    return viewer;
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rwp-'));
    [site, tsa, chromium] = await Promise.all([
      startFixtureSite(),
      startLocalTsa({ dir: join(dir, 'tsa') }),
      launchChromium(),
    ]);
    target = site.url('/simple');
    const createdAt = new Date().toISOString();
    const result = await capturePage(chromium.browser, target, { timeoutMs: 10_000, handleConsent: false });
    assert.equal(result.renderQuality, 'full');
    bundle = (await makeBundle(
      { captureId: CAPTURE_ID, url: target, createdAt, completedAt: new Date().toISOString(), page: result },
      localNotary(signingKeyFromSeed(generateSeedBase64()), { timestamper: createTsaClient({ url: tsa.url }) }),
      { onTimestampFailure: 'throw' },
    ))!;
    assert.equal(bundle.ref.version, '0.2.0');
    // From here on the page can only come out of the bundle.
    siteRequestsAtClose = site.requests.length;
    await site.close();
  });

  after(async () => {
    await chromium?.close();
    await tsa?.close();
    for (const viewer of viewers) await viewer.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function replay(viewer: ReplayServer) {
    const page = await chromium.browser.newPage();
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(`${viewer.origin}/`) && !/^(blob|data):/.test(url)) elsewhere.push(url);
    });
    await page.goto(`${viewer.origin}${replayPagePath(CAPTURE_ID)}`, { waitUntil: 'load' });

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
    const frames = await Promise.all(
      page.frames().map(async (f) => [f.url(), await f.evaluate(() => document.body?.innerText ?? '').catch(String)]),
    );
    assert.ok(replayed, `replayed page never showed up; frames: ${JSON.stringify(frames)}`);
    await page.close();
    return { replayed, elsewhere };
  }

  it('replays the captured page from the WACZ: text, script result, stylesheet and image, all offline', {
    timeout: 180_000,
  }, async () => {
    const viewer = await startViewer();
    const { replayed, elsewhere } = await replay(viewer);
    assert.match(
      replayed.url,
      new RegExp(`^${viewer.origin}/replay/w/[^/]+/(:[0-9a-f]+/)?\\d{14}mp_/${target.replace(/[.?]/g, '\\$&')}$`),
    );
    assert.match(replayed.text, /Hello from the fixture/);
    assert.match(replayed.text, /script ran/, 'the archived app.js ran in the replay');
    assert.equal(replayed.h1Color, 'rgb(18, 52, 86)', 'the archived stylesheet applied (h1 { color: #123456 })');
    assert.equal(replayed.imageWidth, 16, 'the archived 16x16 PNG decoded');

    assert.deepEqual(elsewhere, [], 'the browser requested nothing but the replay origin');
    assert.equal(site.requests.length, siteRequestsAtClose, 'nothing reached the (closed) original site');
    assert.ok(bundleReads.includes(CAPTURE_ID), 'the service worker read the bundle');
  });

  it('replays when the service worker takes long to install (a busy host)', { timeout: 180_000 }, async () => {
    // ReplayWeb.page's own worker, whose install step waits 3 s: longer than the viewer's three 100 ms reloads.
    const stock = replayAssets();
    const slowInstall = Buffer.from(
      "self.addEventListener('install', (event) => event.waitUntil(new Promise((resolve) => setTimeout(resolve, 3000))));\n",
    );
    const viewer = await startViewer({
      get: async (name) => (name === 'sw.js' ? Buffer.concat([slowInstall, await stock.get(name)]) : stock.get(name)),
    });
    const { replayed } = await replay(viewer);
    assert.match(replayed.text, /script ran/);
  });
});
