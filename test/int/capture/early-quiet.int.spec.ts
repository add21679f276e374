import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { EARLY_QUIET_WINDOW_MS } from '../../../src/capture/early-quiet.js';
import { capturePage } from '../../../src/capture/page-capture.js';

/**
 * A scripted page on which nothing is pending and nothing can wake it settles after the early window
 * (early-quiet.ts); a page whose scripts keep running, that has an interval set or a running animation keeps the
 * full quiet window, and what a script does after a pause it took is in the capture. Real Chromium, loopback pages.
 */
const T = { timeout: 60_000 };

const PAGES: Record<string, string> = {
  '/scripted': `<!doctype html><title>Scripted</title><p id="by">not run</p>
<script>document.getElementById('by').textContent = 'script ran';</script>`,
  // Animation frames for about a third of a second, then a request, then what it answered drawn.
  '/frames-then-fetch': `<!doctype html><title>Frames</title><div id="out">waiting</div>
<script>
  window.addEventListener('load', () => {
    let frames = 0;
    const step = () => {
      if (++frames < 20) return requestAnimationFrame(step);
      fetch('/data').then((r) => r.text()).then((text) => { document.getElementById('out').textContent = text; });
    };
    requestAnimationFrame(step);
  });
</script>`,
  '/frame-loop': `<!doctype html><title>Loop</title><p>x</p>
<script>const spin = () => requestAnimationFrame(spin); spin();</script>`,
  // An interval whose first tick, 400 ms after load, draws something: after the early window, before the full one.
  '/interval': `<!doctype html><title>Interval</title><div id="tick">no tick</div>
<script>
  window.addEventListener('load', () => {
    const id = setInterval(() => { document.getElementById('tick').textContent = 'ticked'; clearInterval(id); }, 400);
  });
</script>`,
  '/animated': `<!doctype html><title>Animated</title>
<style>@keyframes s{to{opacity:.5}} p{animation:s 10s infinite}</style><p>moving</p><script>void 0</script>`,
};

describe('scripted pages that are quiet settle early (real Chromium)', () => {
  let server: Server;
  let base: string;
  let chromium: LaunchedChromium;

  before(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path === '/data') {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('fetched after the frames'), 100);
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

  it('a scripted page with nothing pending settles after the early window, and says so', T, async () => {
    const result = await capture('/scripted');
    assert.equal(result.quiet?.document, 'dynamic');
    assert.equal(result.quiet?.settleWindowMs, 500);
    assert.deepEqual(result.quiet?.earlySettle, { windowMs: EARLY_QUIET_WINDOW_MS, ended: true });
    assert.equal(result.render.settleReason, 'idle');
    const settleMs = result.render.settleMs!;
    assert.ok(settleMs >= EARLY_QUIET_WINDOW_MS && settleMs < 500, `settleMs ${settleMs}`);
    assert.match(result.html, /script ran/);
  });

  it('what a script does after animation frames and a request is captured', T, async () => {
    const result = await capture('/frames-then-fetch');
    assert.match(result.html, /fetched after the frames/);
    assert.ok(
      result.exchanges.some((e) => e.url.endsWith('/data')),
      'the request is recorded',
    );
  });

  it('a page whose animation frames keep running keeps the full window', T, async () => {
    const result = await capture('/frame-loop');
    assert.deepEqual(result.quiet?.earlySettle, {
      windowMs: EARLY_QUIET_WINDOW_MS,
      ended: false,
      because: 'its scripts kept running',
    });
    assert.ok(result.render.settleMs! >= 500, `settleMs ${result.render.settleMs}`);
  });

  it('a page with an interval set keeps the full window, and its first tick is captured', T, async () => {
    const result = await capture('/interval');
    assert.equal(result.quiet?.earlySettle?.ended, false);
    assert.match(result.html, /ticked/);
  });

  it('a page with a running animation keeps the full window', T, async () => {
    const result = await capture('/animated');
    assert.deepEqual(result.quiet?.earlySettle, {
      windowMs: EARLY_QUIET_WINDOW_MS,
      ended: false,
      because: 'it has running animations',
    });
    assert.ok(result.render.settleMs! >= 500, `settleMs ${result.render.settleMs}`);
  });
});
