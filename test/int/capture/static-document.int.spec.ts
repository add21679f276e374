import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { pageWorld } from '../../../src/capture/behaviors/page-world.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { EARLY_QUIET_WINDOW_MS } from '../../../src/capture/early-quiet.js';
import { capturePage } from '../../../src/capture/page-capture.js';
import { documentDynamics, STATIC_QUIET_WINDOW_MS } from '../../../src/capture/static-document.js';
import { type PageServer, servePages } from '../../support/page-server.js';

/**
 * A page that cannot change by itself gets short quiet windows (static-document.ts), and every other
 * page keeps the full ones. Real Chromium against pages served here on loopback.
 */
const T = { timeout: 60_000 };

const PAGES: Record<string, string> = {
  '/static': `<!doctype html><html><head><meta charset="utf-8"><title>Static</title>
<style>body{margin:0;font:16px serif} .gap{height:2600px}</style></head>
<body><h1>Nothing here runs</h1><p>Text only, and two images far down that load when scrolled to.</p>
<div class="gap"></div>
<img loading="lazy" src="/blue-1.png" width="100" height="100" alt="one">
<img loading="lazy" src="/blue-2.png" width="100" height="100" alt="two">
</body></html>`,
  '/plain': `<!doctype html><html><head><meta charset="utf-8"><title>Plain</title></head>
<body><h1>Plain</h1>${'<p>A paragraph of text that runs on and on.</p>'.repeat(200)}</body></html>`,
  '/imported': '<!doctype html><style>@import "/hiding.css";</style><section><p>x</p></section>',
  '/unrendered':
    '<!doctype html><style>section{content-visibility:auto}</style><section><img src="/blue-3.png" alt=""></section>',
  '/script': '<!doctype html><p>x</p><script>document.title = "ran"</script>',
  '/handler': '<!doctype html><body onload="void 0"><p>x</p></body>',
  '/frame': '<!doctype html><p>x</p><iframe src="/static"></iframe>',
  '/animation': '<!doctype html><style>@keyframes s{to{opacity:.5}} p{animation:s 10s infinite}</style><p>moving</p>',
  '/refresh': '<!doctype html><meta http-equiv="Refresh" content="30; url=/static"><p>x</p>',
  '/media': '<!doctype html><p>x</p><audio src="/none.mp3"></audio>',
  '/custom': '<!doctype html><p>x</p><my-widget>y</my-widget>',
  '/smil':
    '<!doctype html><svg width="10" height="10"><rect width="10" height="10"><set attributeName="width" to="5" begin="1s"/></rect></svg>',
};

/** A 100×100 PNG of the one colour the screenshot is searched for. */
function bluePng(): Buffer {
  const png = new PNG({ width: 100, height: 100 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([30, 144, 255, 255], i);
  return PNG.sync.write(png);
}

describe('static documents get short quiet windows (real Chromium)', () => {
  let site: PageServer;
  let base: string;
  let chromium: LaunchedChromium;
  const blue = bluePng();

  before(async () => {
    site = await servePages(PAGES, (path, res) => {
      if (path === '/hiding.css')
        res.writeHead(200, { 'content-type': 'text/css' }).end('section { content-visibility: auto }');
      else if (path.startsWith('/blue-')) res.writeHead(200, { 'content-type': 'image/png' }).end(blue);
      else return false;
      return true;
    });
    base = site.url('');
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await site?.close();
  });

  async function verdict(path: string) {
    const context = await chromium.browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}${path}`, { waitUntil: 'load' });
      const session = await page.createCDPSession();
      const { frameTree } = await session.send('Page.getFrameTree');
      return await documentDynamics(await pageWorld(session, frameTree.frame.id), page.frames().length - 1);
    } finally {
      await context.close();
    }
  }

  it(
    'a page of text and images is static; each thing that can change a page makes it dynamic, and says which',
    T,
    async () => {
      assert.deepEqual(await verdict('/static'), { static: true, waitsForScroll: true }, 'lazy images');
      assert.deepEqual(await verdict('/unrendered'), { static: true, waitsForScroll: true }, 'content-visibility');
      assert.deepEqual(await verdict('/imported'), { static: true, waitsForScroll: true }, 'in an @import-ed sheet');
      assert.deepEqual(await verdict('/plain'), { static: true, waitsForScroll: false });
      const expected: Record<string, string> = {
        '/script': 'it has scripts',
        '/handler': 'it has event handler attributes',
        '/frame': 'it has frames',
        '/animation': 'it has running animations',
        '/refresh': 'it refreshes itself',
        '/media': 'it has media',
        '/custom': 'it has custom elements',
        '/smil': 'it has SVG animations',
      };
      for (const [path, because] of Object.entries(expected))
        assert.deepEqual(await verdict(path), { static: false, because }, path);
    },
  );

  it('a static page is captured with the short windows, and its lazy images still load and show', T, async () => {
    const result = await capturePage(chromium.browser, `${base}/static`, { timeoutMs: 15_000 });
    assert.deepEqual(result.quiet, {
      document: 'static',
      settleWindowMs: STATIC_QUIET_WINDOW_MS,
      afterActionWindowMs: STATIC_QUIET_WINDOW_MS,
    });
    // The windows applied are the record's (above); the settle's clock time depends on the host's load.
    assert.equal(result.render.settleReason, 'idle');
    const paths = result.exchanges.map((e) => new URL(e.url).pathname);
    for (const lazy of ['/blue-1.png', '/blue-2.png']) assert.ok(paths.includes(lazy), `${lazy} was archived`);
    const png = PNG.sync.read(result.screenshot);
    let bluePixels = 0;
    for (let i = 0; i < png.data.length; i += 4)
      if (png.data[i] === 30 && png.data[i + 1] === 144 && png.data[i + 2] === 255) bluePixels++;
    assert.ok(bluePixels >= 2 * 100 * 100 * 0.95, `${bluePixels} blue pixels: both images are in the screenshot`);
    assert.equal(result.consent?.result, 'not-found');
  });

  it('a static page on which nothing waits to be scrolled to is not scrolled through', T, async () => {
    const result = await capturePage(chromium.browser, `${base}/plain`, { timeoutMs: 15_000 });
    assert.equal(result.quiet?.document, 'static');
    const scroll = result.behaviors?.ran.find((r) => r.name === 'auto-scroll');
    assert.deepEqual(scroll?.did, { steps: 0, reachedY: 0, staticPage: true });
    const png = PNG.sync.read(result.screenshot);
    assert.ok(png.height > 3000, `the full page is in the screenshot (${png.height} px)`);
  });

  it(
    'a page with a script keeps the full windows; with nothing pending, settle ends after the early one',
    T,
    async () => {
      const result = await capturePage(chromium.browser, `${base}/script`, { timeoutMs: 15_000 });
      assert.deepEqual(result.quiet, {
        document: 'dynamic',
        dynamicBecause: 'it has scripts',
        settleWindowMs: 500,
        afterActionWindowMs: 300,
        earlySettle: { windowMs: EARLY_QUIET_WINDOW_MS, ended: true },
      });
      assert.ok(result.render.settleMs! >= EARLY_QUIET_WINDOW_MS, `settleMs ${result.render.settleMs}`);
    },
  );
});
