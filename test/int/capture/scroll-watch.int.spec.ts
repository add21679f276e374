import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { capturePage } from '../../../src/capture/page-capture.js';

/**
 * A page with scripts on which nothing is lazy and no script watches scrolling is not scrolled through; one whose
 * scripts watch scrolling (a listener, a handler, an IntersectionObserver) is, and so is one whose scripts start to
 * only after load, before it has settled (`late`). Real Chromium, loopback pages.
 */
const T = { timeout: 60_000 };

const tall = (body: string) =>
  `<!doctype html><title>Tall</title><style>body{margin:0} .gap{height:3000px}</style><div class="gap">top</div>${body}`;

const PAGES: Record<string, string> = {
  '/quiet': tall('<p id="end">end</p><script>document.title = "ran";</script>'),
  '/observer': tall(`<div id="sentinel">sentinel</div>
<script>
  new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) fetch('/more').then((r) => r.text()).then((t) => {
      document.getElementById('sentinel').textContent = t;
    });
  }).observe(document.getElementById('sentinel'));
</script>`),
  '/handler': tall(`<p id="end">end</p>
<script>
  window.onscroll = () => {
    if (window.scrollY > 1000 && !window.asked) { window.asked = true; fetch('/more').then((r) => r.text()).then((t) => { document.getElementById('end').textContent = t; }); }
  };
</script>`),
  // The listener is added once an API answer came, after load: the capture scrolls after all.
  '/late-listener': tall(`<p id="end">end</p>
<script>
  window.addEventListener('load', () => fetch('/config').then(() => {
    window.addEventListener('scroll', () => {
      if (window.scrollY > 1000 && !window.asked) { window.asked = true; fetch('/more').then((r) => r.text()).then((t) => { document.getElementById('end').textContent = t; }); }
    });
  }));
</script>`),
};

describe('pages whose scripts do not watch scrolling are not scrolled through (real Chromium)', () => {
  let server: Server;
  let base: string;
  let chromium: LaunchedChromium;

  before(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      // /config answers well after the behaviors began at load, so its listener comes after the scroll was skipped.
      if (path === '/more' || path === '/config') {
        const ms = path === '/config' ? 400 : 50;
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('loaded when scrolled to'), ms);
        return;
      }
      const page = PAGES[path];
      if (!page) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await new Promise((r) => server?.close(r));
  });

  const capture = (path: string) => capturePage(chromium.browser, `${base}${path}`, { timeoutMs: 15_000 });
  const scrollOf = (result: Awaited<ReturnType<typeof capture>>) =>
    result.behaviors?.ran.find((r) => r.name === 'auto-scroll');

  it('a scripted page on which nothing is lazy and no script watches scrolling is not scrolled', T, async () => {
    const result = await capture('/quiet');
    assert.equal(result.quiet?.document, 'dynamic');
    assert.deepEqual(scrollOf(result)?.did, { steps: 0, reachedY: 0, nothingWaitsForScroll: true });
    assert.equal(scrollOf(result)?.found, false);
  });

  for (const path of ['/observer', '/handler']) {
    it(
      `a page whose script watches scrolling (${path}) is scrolled, and what scrolling loads is captured`,
      T,
      async () => {
        const result = await capture(path);
        const did = scrollOf(result)?.did;
        assert.ok(did && Number(did.steps) > 0 && did.nothingWaitsForScroll === undefined, JSON.stringify(did));
        assert.match(result.html, /loaded when scrolled to/);
      },
    );
  }

  it('a page whose script starts to watch scrolling after load is scrolled after all', T, async () => {
    const result = await capture('/late-listener');
    const did = scrollOf(result)?.did;
    assert.equal(did?.late, true, JSON.stringify(did));
    assert.ok(Number(did?.steps) > 0, JSON.stringify(did));
    assert.match(result.html, /loaded when scrolled to/);
  });
});
