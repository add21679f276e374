/**
 * A small HTTP site on 127.0.0.1 for tests that drive a real browser (capture, proxy, e2e).
 *
 *   const site = await startFixtureSite();
 *   await page.goto(site.url('/simple'));
 *   site.requests;           // every request received, in order: { method, path }
 *   await site.close();      // also destroys connections held open by the hanging routes
 *
 * Routes (all HTML is small, self-contained and uses relative URLs, so it also works through a proxy):
 *   GET /simple              page "Fixture simple page" with CSS, a PNG, a script (adds "script ran"),
 *                            two Set-Cookie headers (session, pref) and `X-Fixture: simple`
 *   GET /assets/style.css    stylesheet            GET /assets/app.js   script
 *   GET /assets/pixel.png    PNG image (16x16)     GET /assets/img-<n>.png  the same PNG under other names
 *   GET /slow-image          DOMContentLoaded fires, but `load` never does: its image never responds
 *   GET /hang                never answers          GET /hang-html  sends the start of a page, then hangs
 *                                                   (DOMContentLoaded never fires)
 *   GET /lazy                3000 px page: two `loading="lazy"` images and one IntersectionObserver image
 *                            (data-src → src) far below the fold
 *   GET /tall?h=<px>         page of `h` px (default 40000) in 1000 px bands coloured by bandColor(i)
 *   GET /article             3600 px article, one inline script (adds "script ran"), no consent banner:
 *                            the page of the latency benchmark
 *   GET /scripted-tall       3,200 px page with one inline script and CSS gradients, nothing lazy, no media,
 *                            no banner, nothing to expand: an ordinary scripted page that gives the behaviors
 *                            nothing to do (the capture-latency bench's "scripted tall page")
 *   GET /spa                 a single-page app's shell: after the load event its script fetches
 *                            /spa/items (JSON, answered after 150 ms), renders 30 cards and pushState()s
 *                            to /spa/list (which serves the same shell)
 *   GET /gallery             an image gallery: 36 `loading="lazy"` images (/assets/img-g<n>.png) in a grid
 *                            about 4,900 px tall; those below the fold load only when scrolled to
 *   GET /consent             article under a OneTrust-like banner (#onetrust-banner-sdk) that the
 *                            autoconsent Onetrust rule detects; "Reject All" hides it and sets a cookie;
 *                            body[data-consent] = rejected|accepted, body[data-page-saw-autoconsent]
 *   GET /consent-late        the /consent banner, drawn only once a fetch of /delay?ms=2000 has answered
 *                            (a CMP that loads its config after the page's load event; 2 s is well
 *                            after autoconsent's last look from load, also on a busy host)
 *   GET /delay?ms=<n>        answers "ok" after n ms (at most 10 s)
 *   GET /iframe-consent      article under a Sourcepoint-style banner: a fixed iframe from the *other*
 *                            origin (`crossOrigin`, 127.0.0.3: another site, so Chromium renders it
 *                            out of process) at /index.html?message_id=…; its "Reject" button
 *                            (.sp_choice_type_13) tells the page by postMessage, which removes the frame;
 *                            body[data-consent] = rejected|accepted
 *   GET /beacons             loads at once, then POSTs a beacon to /beacon every 150 ms forever, each
 *                            answered a second later: the network never stays quiet for 500 ms (settle ends
 *                            at its cap)
 *   GET /redirect            302 → /simple          GET /redirect-twice  301 → /redirect
 *   GET /status/<code>       small page answered with that status
 *   GET /post-fetch          page whose script POSTs "hello=world" to /echo and shows the answer
 *   GET /credentials         sets cookie session=fixture-cookie-secret; its script POSTs to /echo with
 *                            "Authorization: Bearer fixture-token-secret" (built in script, so the page source does
 *                            not hold it; the browser adds the Cookie)
 *   POST /echo               answers with the request body it received
 *   GET /pending-fetch       loads normally, then keeps a fetch of /hang open forever (settle hits its cap)
 *   GET /busy                page whose script spins forever after DOMContentLoaded (hung renderer)
 *   anything else            404
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { deflateSync } from 'node:zlib';

export interface FixtureSite {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  url(path: string): string;
  /** The same routes on 127.0.0.3 (another site for the browser), e.g. http://127.0.0.3:41235 */
  crossOrigin: string;
  /** Requests received so far, in order. */
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

/** Colours of the bands of /tall, repeating every 8 bands. */
const BAND_COLORS: ReadonlyArray<readonly [number, number, number]> = [
  [230, 25, 75],
  [60, 180, 75],
  [0, 130, 200],
  [245, 130, 48],
  [145, 30, 180],
  [70, 240, 240],
  [240, 50, 230],
  [128, 128, 0],
];
export const TALL_BAND_PX = 1000;

/** RGB colour of band `index` (0-based, from the top) of /tall. */
export function bandColor(index: number): readonly [number, number, number] {
  return BAND_COLORS[index % BAND_COLORS.length]!;
}

export async function startFixtureSite(): Promise<FixtureSite> {
  const requests: FixtureSite['requests'] = [];
  const sockets = new Set<Socket>();
  const png = solidPng(16, 16, [30, 144, 255]);
  let crossOrigin = '';

  const makeServer = () => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://fixture.invalid');
      requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search });
      route(url, req, res);
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };
  const server = makeServer();
  const crossServer = makeServer();

  function route(url: URL, req: IncomingMessage, res: ServerResponse): void {
    const path = url.pathname;
    if (path === '/simple') {
      res.setHeader('Set-Cookie', ['session=abc123; Path=/; HttpOnly', 'pref=dark; Path=/']);
      res.setHeader('X-Fixture', 'simple');
      return html(res, SIMPLE_PAGE);
    }
    if (path === '/assets/style.css')
      return send(res, 200, 'text/css', 'body { font-family: sans-serif; } h1 { color: #123456; }');
    if (path === '/assets/app.js') {
      return send(res, 200, 'application/javascript', "document.getElementById('out').textContent = 'script ran';");
    }
    if (path === '/assets/pixel.png' || /^\/assets\/img-\w+\.png$/.test(path)) return send(res, 200, 'image/png', png);
    if (path === '/slow-image') return html(res, SLOW_IMAGE_PAGE);
    if (path === '/hang') return; // never answered; destroyed on close()
    if (path === '/hang-html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.write('<!doctype html><html><head><title>Never finishes</title></head><body><p>Start of a page');
      return; // the rest never comes
    }
    if (path === '/lazy') return html(res, LAZY_PAGE);
    if (path === '/tall') return html(res, tallPage(Number(url.searchParams.get('h') ?? 40000)));
    if (path === '/consent') return html(res, CONSENT_PAGE);
    if (path === '/article') return html(res, ARTICLE_PAGE);
    if (path === '/scripted-tall') return html(res, SCRIPTED_TALL_PAGE);
    if (path === '/spa' || path === '/spa/list') return html(res, SPA_PAGE);
    if (path === '/spa/items') {
      const items = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, title: `Item ${i + 1}` }));
      setTimeout(() => send(res, 200, 'application/json', JSON.stringify(items)), 150);
      return;
    }
    if (path === '/gallery') return html(res, GALLERY_PAGE);
    if (path === '/consent-late') return html(res, CONSENT_LATE_PAGE);
    if (path === '/delay') {
      const timer = setTimeout(
        () => send(res, 200, 'text/plain', 'ok'),
        Math.min(10_000, Number(url.searchParams.get('ms') ?? 0)),
      );
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/iframe-consent') return html(res, iframeConsentPage(crossOrigin));
    if (path === '/index.html' && url.searchParams.has('message_id')) return html(res, SOURCEPOINT_MESSAGE);
    if (path === '/beacons') return html(res, BEACONS_PAGE);
    if (path === '/beacon' && req.method === 'POST') {
      req.resume();
      // Each beacon stays in flight for a second: the network is not quiet even while a busy host's renderer
      // sends none for a while.
      req.on('end', () => setTimeout(() => send(res, 204, 'text/plain', ''), BEACON_ANSWER_MS));
      return;
    }
    if (path === '/redirect') return redirect(res, 302, '/simple');
    if (path === '/redirect-twice') return redirect(res, 301, '/redirect');
    if (path === '/busy') return html(res, BUSY_PAGE);
    if (path === '/pending-fetch') return html(res, PENDING_FETCH_PAGE);
    if (path === '/post-fetch') return html(res, POST_FETCH_PAGE);
    if (path === '/credentials') {
      res.setHeader('Set-Cookie', 'session=fixture-cookie-secret; Path=/');
      return html(res, CREDENTIALS_PAGE);
    }
    if (path === '/echo' && req.method === 'POST') {
      const body: Buffer[] = [];
      req.on('data', (chunk: Buffer) => body.push(chunk));
      req.on('end', () => send(res, 200, 'text/plain', Buffer.concat(body)));
      return;
    }
    const status = /^\/status\/(\d{3})$/.exec(path);
    if (status) {
      const code = Number(status[1]);
      return send(
        res,
        code,
        'text/html; charset=utf-8',
        `<!doctype html><title>Status ${code}</title><h1>Status ${code}</h1>`,
      );
    }
    send(res, 404, 'text/plain', 'not found');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => crossServer.listen(0, '127.0.0.3', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  crossOrigin = `http://127.0.0.3:${(crossServer.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => origin + path,
    crossOrigin,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([server, crossServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

function html(res: ServerResponse, body: string): void {
  send(res, 200, 'text/html; charset=utf-8', body);
}

function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { Location: location, 'Content-Type': 'text/plain' });
  res.end(`moved to ${location}`);
}

const SIMPLE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Fixture simple page</title>
<link rel="stylesheet" href="/assets/style.css"></head>
<body><h1>Hello from the fixture</h1>
<img src="/assets/pixel.png" width="16" height="16" alt="pixel">
<p id="out">script not run</p>
<script src="/assets/app.js"></script>
</body></html>`;

const SLOW_IMAGE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Slow image</title></head>
<body><h1>Text arrives, the image never does</h1><img src="/hang" alt="never"></body></html>`;

const LAZY_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Lazy images</title>
<style>body { margin: 0 } .gap { height: 1400px; background: #eee }</style></head>
<body><h1>Lazy content below</h1>
<div class="gap"></div>
<img id="native1" loading="lazy" src="/assets/img-lazy1.png" width="100" height="100" alt="lazy 1">
<div class="gap"></div>
<img id="native2" loading="lazy" src="/assets/img-lazy2.png" width="100" height="100" alt="lazy 2">
<img id="observed" data-src="/assets/img-observed.png" width="100" height="100" alt="observed">
<script>
  const img = document.getElementById('observed');
  new IntersectionObserver((entries, observer) => {
    for (const e of entries) {
      if (e.isIntersecting) { img.src = img.dataset.src; img.className = 'loaded'; observer.disconnect(); }
    }
  }).observe(img);
</script>
</body></html>`;

function tallPage(height: number): string {
  const bands: string[] = [];
  for (let i = 0, top = 0; top < height; i++, top += TALL_BAND_PX) {
    const [r, g, b] = bandColor(i);
    const h = Math.min(TALL_BAND_PX, height - top);
    bands.push(`<div style="height:${h}px;background:rgb(${r},${g},${b})">band ${i}</div>`);
  }
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Tall page</title>
<style>html, body { margin: 0; padding: 0 } div { font: 20px sans-serif; overflow: hidden }</style></head>
<body>${bands.join('\n')}</body></html>`;
}

// Markup and ids follow the OneTrust SDK closely enough for autoconsent's Onetrust rule
// (detect: #onetrust-banner-sdk exists; popup: it is visible; opt-out: #onetrust-reject-all-handler).
const CONSENT_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>News with a consent banner</title>
<style>
  body { margin: 0; font-family: sans-serif }
  #onetrust-banner-sdk { position: fixed; bottom: 0; left: 0; right: 0; padding: 24px;
    background: #222; color: #fff; z-index: 1000 }
  #onetrust-banner-sdk button { margin-right: 12px; padding: 8px 16px }
</style></head>
<body>
<article><h1>Article behind the banner</h1><p>Some news text.</p></article>
<div id="onetrust-consent-sdk">
  <div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner">
    <p id="onetrust-policy-text">We use cookies to improve your experience.</p>
    <div id="onetrust-button-group">
      <button id="onetrust-pc-btn-handler">Cookie Settings</button>
      <button id="onetrust-reject-all-handler">Reject All</button>
      <button id="onetrust-accept-btn-handler">Accept All Cookies</button>
    </div>
  </div>
</div>
<script>
  window.OnetrustActiveGroups = ',C0001,';
  function closeBanner(choice) {
    document.cookie = 'OptanonAlertBoxClosed=' + choice + '; path=/';
    document.getElementById('onetrust-banner-sdk').style.display = 'none';
    document.body.dataset.consent = choice;
    // Lets tests check that a consent tool ran out of the page's sight (isolated world).
    document.body.dataset.pageSawAutoconsent = String('autoconsentReceiveMessage' in window || 'autoconsentSendMessage' in window);
  }
  document.getElementById('onetrust-reject-all-handler').addEventListener('click', () => closeBanner('rejected'));
  document.getElementById('onetrust-accept-btn-handler').addEventListener('click', () => closeBanner('accepted'));
</script>
</body></html>`;

const ARTICLE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Fixture article</title>
<style>body { margin: 0; font: 18px/1.5 serif } section { height: 880px; padding: 10px 40px; border-bottom: 1px solid #ccc }</style></head>
<body>
<section><h1>A long article</h1><p id="byline">script not run</p><p>First part of the text.</p></section>
<section><h2>Second part</h2><p>More text.</p></section>
<section><h2>Third part</h2><p>More text.</p></section>
<section><h2>Last part</h2><p>The end.</p></section>
<script>document.getElementById('byline').textContent = 'script ran';</script>
</body></html>`;

/** Eight 400 px sections, each under its own CSS gradient; the one inline script writes the byline. */
const SCRIPTED_TALL_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Fixture scripted tall page</title>
<style>
  body { margin: 0; font: 18px/1.5 sans-serif }
  section { height: 360px; padding: 20px 40px; background: linear-gradient(160deg, #fdfbfb 0%, #e3ecf5 60%, #c9d6e8 100%) }
  section:nth-child(even) { background: radial-gradient(circle at 30% 40%, #fff7e6 0%, #f3e0c2 55%, #e2c89f 100%) }
  h1, h2 { margin: 0 0 8px }
</style></head>
<body>
${Array.from(
  { length: 8 },
  (_, i) =>
    `<section><h${i === 0 ? 1 : 2}>${i === 0 ? 'A scripted page' : `Part ${i + 1}`}</h${i === 0 ? 1 : 2}>` +
    `${i === 0 ? '<p id="byline">script not run</p>' : ''}<p>${'Text of an ordinary page with a script. '.repeat(12)}</p></section>`,
).join('\n')}
<script>document.getElementById('byline').textContent = 'script ran on ' + new Date(0).toISOString().slice(0, 10);</script>
</body></html>`;

/** A shell that renders after load from an API answer, as single-page apps do. */
const SPA_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Fixture single-page app</title>
<style>body { margin: 0; font: 16px sans-serif } .card { margin: 12px 40px; padding: 16px; height: 80px; border: 1px solid #ccc; border-radius: 8px }</style></head>
<body><div id="app">Loading…</div>
<script>
  window.addEventListener('load', async () => {
    const items = await (await fetch('/spa/items')).json();
    document.getElementById('app').innerHTML = '<h1>Rendered after load</h1>' +
      items.map((item) => '<div class="card" data-id="' + item.id + '">' + item.title + '</div>').join('');
    history.pushState({}, '', '/spa/list');
  });
</script>
</body></html>`;

/** Twelve rows of three lazy images, 400 px a row. */
const GALLERY_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Fixture gallery</title>
<style>body { margin: 0; font: 16px sans-serif } .grid { display: grid; grid-template-columns: repeat(3, 400px); gap: 20px; padding: 20px }
  img { width: 400px; height: 380px; background: #eee }</style></head>
<body><h1>A gallery</h1><div class="grid">
${Array.from({ length: 36 }, (_, i) => `<img loading="lazy" src="/assets/img-g${i + 1}.png" alt="picture ${i + 1}">`).join('\n')}
</div>
<script>document.title = 'Fixture gallery (' + document.images.length + ' pictures)';</script>
</body></html>`;

// The page side of a Sourcepoint CMP: a container div holding the message iframe from the CMP's origin.
function iframeConsentPage(cmpOrigin: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>News with a consent frame</title>
<style>
  body { margin: 0; font-family: sans-serif }
  #sp_message_container_1234 { position: fixed; bottom: 0; left: 0; right: 0; height: 160px; z-index: 1000 }
  #sp_message_container_1234 iframe { width: 100%; height: 100%; border: 0 }
</style></head>
<body>
<article><h1>Article behind the frame</h1><p>Some news text.</p></article>
<div id="sp_message_container_1234"><iframe id="sp_message_iframe_1234" title="SP Consent Message"
  src="${cmpOrigin}/index.html?message_id=1234&consentUUID=fixture"></iframe></div>
<script>
  window.addEventListener('message', (event) => {
    if (event.data !== 'sp-rejected' && event.data !== 'sp-accepted') return;
    document.body.dataset.consent = event.data.slice(3);
    // Removed after a short fade, as Sourcepoint's page script does.
    setTimeout(() => document.getElementById('sp_message_container_1234').remove(), 150);
  });
</script>
</body></html>`;
}

// The message inside the frame, with Sourcepoint's choice classes (11 accept, 12 options, 13 reject).
const SOURCEPOINT_MESSAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>SP message</title>
<style>body { margin: 0; padding: 16px; background: #222; color: #fff; font-family: sans-serif } button { margin-right: 12px }</style></head>
<body><p>We and our partners use cookies.</p>
<button class="message-component message-button sp_choice_type_12">Options</button>
<button class="message-component message-button sp_choice_type_13">Reject</button>
<button class="message-component message-button sp_choice_type_11">Accept</button>
<script>
  document.querySelector('.sp_choice_type_13').addEventListener('click', () => parent.postMessage('sp-rejected', '*'));
  document.querySelector('.sp_choice_type_11').addEventListener('click', () => parent.postMessage('sp-accepted', '*'));
</script>
</body></html>`;

const BEACON_ANSWER_MS = 1000;

const BEACONS_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Beacons</title></head>
<body><h1>Analytics that never stop</h1>
<script>setInterval(() => { fetch('/beacon', { method: 'POST', body: 'tick', keepalive: true }).catch(() => {}); }, 150);</script>
</body></html>`;

// The /consent banner, drawn once the (slow) CMP configuration has arrived, well after the load event.
const CONSENT_LATE_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>News with a late consent banner</title>
<style>
  body { margin: 0; font-family: sans-serif }
  #onetrust-banner-sdk { position: fixed; bottom: 0; left: 0; right: 0; padding: 24px;
    background: #222; color: #fff; z-index: 1000 }
</style></head>
<body>
<article><h1>Article behind the banner</h1><p>Some news text.</p></article>
<template id="cmp"><div id="onetrust-consent-sdk">
  <div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner">
    <p id="onetrust-policy-text">We use cookies to improve your experience.</p>
    <div id="onetrust-button-group">
      <button id="onetrust-reject-all-handler">Reject All</button>
      <button id="onetrust-accept-btn-handler">Accept All Cookies</button>
    </div>
  </div>
</div></template>
<script>
  window.OnetrustActiveGroups = ',C0001,';
  function closeBanner(choice) {
    document.getElementById('onetrust-banner-sdk').style.display = 'none';
    document.body.dataset.consent = choice;
  }
  fetch('/delay?ms=2000').then(() => {
    document.body.appendChild(document.getElementById('cmp').content.cloneNode(true));
    document.getElementById('onetrust-reject-all-handler').addEventListener('click', () => closeBanner('rejected'));
    document.getElementById('onetrust-accept-btn-handler').addEventListener('click', () => closeBanner('accepted'));
  });
</script>
</body></html>`;

const PENDING_FETCH_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Pending fetch</title></head>
<body><h1>Loaded, but a request stays open</h1>
<script>window.addEventListener('load', () => { fetch('/hang').catch(() => {}); });</script>
</body></html>`;

const POST_FETCH_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Post</title></head>
<body><p id="answer">waiting</p>
<script>
  fetch('/echo', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'hello=world' })
    .then((r) => r.text()).then((t) => { document.getElementById('answer').textContent = 'echo: ' + t; });
</script>
</body></html>`;

const CREDENTIALS_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Credentials</title></head>
<body><p id="answer">waiting</p>
<script>
  fetch('/echo', { method: 'POST', headers: { Authorization: 'Bearer fixture-token-' + 'secret' }, body: 'ping' })
    .then((r) => r.text()).then((t) => { document.getElementById('answer').textContent = 'echo: ' + t; });
</script>
</body></html>`;

const BUSY_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Busy</title></head>
<body><h1>This page hangs its renderer</h1>
<script>document.addEventListener('DOMContentLoaded', () => setTimeout(() => { for (;;) {} }, 0));</script>
</body></html>`;

/** A tiny solid-colour PNG, built by hand so the fixture needs no image library. */
export function solidPng(width: number, height: number, [r, g, b]: readonly [number, number, number]): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/**
 * Submits `url` and waits for the capture to complete; a failure the service marks retryable (a step of a
 * page that stopped answering on an overloaded machine) is submitted again, up to `attempts` times.
 * Returns the capture id of the complete capture.
 */
export async function captureUntilComplete(
  call: (
    method: string,
    path: string,
    opts?: { body?: unknown; token?: string },
  ) => Promise<{ status: number; body: any; text: string }>,
  token: string,
  url: string,
  opts: { attempts?: number; timeoutMs?: number } = {},
): Promise<string> {
  const failures: string[] = [];
  for (let attempt = 0; attempt < (opts.attempts ?? 4); attempt++) {
    const submitted = await call('POST', '/v1/captures', { token, body: { url } });
    if (submitted.status !== 202) throw new Error(`submission answered ${submitted.status}: ${submitted.text}`);
    const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
    for (;;) {
      const st = await call('GET', `/v1/captures/${submitted.body.id}/status`);
      if (st.body?.status === 'complete') {
        // The record (with its bundle) once the projection shows it.
        const record = await call('GET', `/v1/captures/${submitted.body.id}`);
        if (record.status === 200 && record.body.wacz) return submitted.body.id as string;
      } else if (st.body?.status === 'failed') {
        if (!st.body.retryable) throw new Error(`capture failed: ${st.text}`);
        failures.push(st.text);
        break;
      }
      if (Date.now() > deadline) throw new Error(`capture ${submitted.body.id} did not finish`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`every capture failed: ${failures.join('; ')}`);
}
