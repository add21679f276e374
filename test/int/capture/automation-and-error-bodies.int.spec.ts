import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { capturePage } from '../../../src/capture/page-capture.js';

/**
 * A captured page sees what a person's browser shows (navigator.webdriver false, no
 * HeadlessChrome), and a response the server sent with an error status is archived with its body even when
 * Blink cancels it (scripts, stylesheets, fonts).
 */
const T = { timeout: 60_000 };
const MISSING_JS = '// 404: this script is gone, and this text is what the server said\n'.repeat(3);
const MISSING_CSS = '/* 404: no such stylesheet */';

describe('a capture looks like a person and keeps error bodies (real Chromium)', () => {
  let server: Server;
  let origin = '';
  let chromium: LaunchedChromium;

  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/check') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return void res.end(`<!doctype html><title>check</title><body><p id="out">checking</p>
<p id="worker">no worker</p>
<p id="screen">no screen</p>
<script>document.getElementById('out').textContent = navigator.webdriver ? 'bot detected' : 'welcome, person ' + navigator.userAgent;
addEventListener('load', () => setTimeout(() => {
  document.getElementById('screen').textContent = [screen.width, screen.height, outerWidth, outerHeight, innerWidth, innerHeight].join(' ');
}, 100));
const w = new Worker(URL.createObjectURL(new Blob(['postMessage(navigator.userAgent + (navigator.webdriver ? " webdriver" : ""))'])));
w.onmessage = (e) => (document.getElementById('worker').textContent = 'worker says ' + e.data);</script>`);
      }
      if (req.url === '/with-404s') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return void res.end(
          '<!doctype html><title>404s</title><link rel="stylesheet" href="/gone.css"><script src="/gone.js"></script><p>page</p>',
        );
      }
      if (req.url === '/gone.js') {
        res.writeHead(404, { 'Content-Type': 'application/javascript' });
        return void res.end(MISSING_JS);
      }
      if (req.url === '/gone.css') {
        res.writeHead(410, { 'Content-Type': 'text/css' });
        return void res.end(MISSING_CSS);
      }
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not here');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it(
    'navigator.webdriver is false, the user agent names Chrome, not HeadlessChrome, and the screen holds the window',
    T,
    async () => {
      const result = await capturePage(chromium.browser, `${origin}/check`, { timeoutMs: 20_000 });
      const said = /<p id="out">([^<]*)<\/p>/.exec(result.html)?.[1] ?? '';
      assert.match(said, /^welcome, person .*Chrome\//);
      assert.doesNotMatch(said, /HeadlessChrome/);
      // A screen and window at least as large as the page inside them, as on a person's desktop.
      const [screenW, screenH, outerW, outerH, innerW, innerH] = (
        /<p id="screen">([^<]*)<\/p>/.exec(result.html)?.[1] ?? ''
      )
        .split(' ')
        .map(Number);
      assert.deepEqual([screenW, screenH], [1920, 1080]);
      assert.ok(outerW! >= innerW! && outerH! >= innerH!, `outer ${outerW}×${outerH}, inner ${innerW}×${innerH}`);
      const worker = /<p id="worker">([^<]*)<\/p>/.exec(result.html)?.[1] ?? '';
      assert.match(worker, /^worker says .*Chrome\//);
      assert.doesNotMatch(worker, /HeadlessChrome|webdriver/);
      const sent = result.exchanges.find((e) => e.url === `${origin}/check`)!;
      assert.doesNotMatch(sent.requestHeaders['User-Agent'] ?? sent.requestHeaders['user-agent'] ?? '', /Headless/);
    },
  );

  it('archives the body of a 404 script and a 410 stylesheet, not a 0-byte record', T, async () => {
    const result = await capturePage(chromium.browser, `${origin}/with-404s`, { timeoutMs: 20_000 });
    const js = result.exchanges.find((e) => e.url === `${origin}/gone.js`);
    const css = result.exchanges.find((e) => e.url === `${origin}/gone.css`);
    assert.equal(js?.status, 404);
    assert.equal(js.body.toString('utf8'), MISSING_JS);
    assert.equal(js.truncated, undefined);
    assert.equal(css?.status, 410);
    assert.equal(css.body.toString('utf8'), MISSING_CSS);
    assert.equal(css.truncated, undefined);
  });
});
