/**
 * The fidelity suite's site: pages of the kinds real sites serve and capture tools get wrong, on loopback
 * (127.0.0.1, and 127.0.0.3 as another site for cross-origin frames). Every page draws blocks of known
 * colours at known places, so a screenshot can be checked by pixel samples (test/support/fidelity-cases.ts
 * says what each page must show, contain and fetch).
 *
 *   const site = await startFidelitySite();
 *   site.url('/f/lazy-native');   site.crossOrigin;   await site.close();
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { solidPng } from './fixture-site.js';
import { makeTestMedia, serveMedia, type TestMedia } from './test-media.js';

export type Rgb = readonly [number, number, number];

/** The colours the pages draw with. */
export const COLORS = {
  red: [220, 40, 60],
  green: [40, 170, 80],
  blue: [30, 90, 220],
  orange: [245, 140, 30],
  purple: [140, 50, 190],
  teal: [20, 170, 170],
  pink: [235, 60, 190],
  olive: [130, 130, 0],
  navy: [20, 30, 110],
  brown: [140, 80, 30],
} as const satisfies Record<string, Rgb>;
export type ColorName = keyof typeof COLORS;

export const css = (name: ColorName): string => `rgb(${COLORS[name].join(',')})`;

/** Batches of the infinite-scroll page after its first screen, and the colour of each 1000 px item. */
export const INFINITE_BATCHES = 4;
export const INFINITE_COLORS: ColorName[] = ['red', 'green', 'blue', 'orange', 'purple'];
export const BIG_IMAGE = { width: 6000, height: 4000 } as const;

export interface FidelitySite {
  origin: string;
  crossOrigin: string;
  /** The media the video, stream and audio pages serve (made with ffmpeg at start). */
  media?: TestMedia;
  url(path: string): string;
  close(): Promise<void>;
}

const HEADLESS = /HeadlessChrome/;

export async function startFidelitySite(): Promise<FidelitySite> {
  const sockets = new Set<Socket>();
  const pngs = new Map<string, Buffer>();
  const png = (key: string, w: number, h: number, color: ColorName) => {
    let bytes = pngs.get(key);
    if (!bytes) {
      bytes = solidPng(w, h, COLORS[color]);
      pngs.set(key, bytes);
    }
    return bytes;
  };
  const require = createRequire(import.meta.url);
  const iconFont = readFileSync(require.resolve('@fortawesome/fontawesome-free/webfonts/fa-solid-900.woff2'));
  // The HLS player most sites use (Media Source Extensions), served as a site serves it.
  const hlsJs = readFileSync(require.resolve('hls.js/dist/hls.min.js'));
  let crossOrigin = '';
  const media = await makeTestMedia();

  const makeServer = () => {
    const server = createServer((req, res) => route(new URL(req.url ?? '/', 'http://fidelity.invalid'), req, res));
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };

  function route(url: URL, req: IncomingMessage, res: ServerResponse): void {
    const path = url.pathname;
    if (path.startsWith('/f/media/')) return serveMedia(media, path.slice('/f/media/'.length), req, res);
    if (path === '/f/replies') {
      const post = url.searchParams.get('post');
      const page = url.searchParams.get('page');
      const replies =
        post === '1' && page === '1'
          ? { items: ['reply 1.1'], next: '2' }
          : post === '1'
            ? { items: ['reply 1.2', 'reply 1.3'] }
            : { items: [`reply ${post}.1`] };
      return later(res, 150, () => send(res, 200, 'application/json', JSON.stringify(replies)));
    }
    const page = PAGES[path];
    if (page) return html(res, page(crossOrigin));
    const image = /^\/f\/img\/([\w-]+)\.png$/.exec(path);
    if (image) {
      const color = (url.searchParams.get('c') ?? 'red') as ColorName;
      if (!(color in COLORS)) return send(res, 400, 'text/plain', 'unknown colour');
      const w = Math.min(8000, Number(url.searchParams.get('w') ?? 400));
      const h = Math.min(8000, Number(url.searchParams.get('h') ?? 300));
      return send(res, 200, 'image/png', png(`${w}x${h}-${color}`, w, h, color));
    }
    if (path === '/f/missing.png')
      return send(
        res,
        404,
        'text/html; charset=utf-8',
        '<!doctype html><title>Not found</title><h1>404 Not Found</h1>',
      );
    if (path === '/f/js/hls.min.js') return send(res, 200, 'application/javascript', hlsJs);
    if (path === '/f/js/gone.js') return send(res, 404, 'application/javascript', MISSING_SCRIPT_BODY);
    if (path === '/f/late-data')
      return send(res, 200, 'application/json', JSON.stringify({ text: 'late content arrived' }));
    if (path === '/f/font/icons.woff2') return later(res, 600, () => send(res, 200, 'font/woff2', iconFont));
    if (path === '/f/batch') {
      const n = Number(url.searchParams.get('n'));
      const color = INFINITE_COLORS[n];
      if (!Number.isInteger(n) || n < 1 || n > INFINITE_BATCHES || !color)
        return send(res, 404, 'application/json', '{}');
      return later(res, 250, () =>
        send(
          res,
          200,
          'application/json',
          JSON.stringify({ label: `batch ${n}`, color: css(color), last: n === INFINITE_BATCHES }),
        ),
      );
    }
    if (path === '/f/frame-doc') {
      const label = url.searchParams.get('label') ?? 'frame';
      const color = (url.searchParams.get('c') ?? 'green') as ColorName;
      return html(
        res,
        `<!doctype html><html><head><meta charset="utf-8"><title>${label}</title>
<style>html, body { margin: 0; height: 100%; background: ${css(color in COLORS ? color : 'green')}; color: #fff; font: 24px sans-serif }</style></head>
<body><p>inner frame ${label}</p><img src="/f/img/frame-img.png?c=orange&amp;w=50&amp;h=50" width="50" height="50" alt=""></body></html>`,
      );
    }
    if (path === '/index.html' && url.searchParams.has('message_id')) return html(res, SOURCEPOINT_MESSAGE);
    if (path === '/f/moved') {
      res.writeHead(301, { Location: '/f/moved-here', 'Content-Type': 'text/plain' });
      return void res.end('moved to /f/moved-here');
    }
    if (path === '/f/guarded') {
      // A bot-protection edge that challenges headless browsers by their user agent.
      if (HEADLESS.test(req.headers['user-agent'] ?? '')) return challenge(res);
      return html(res, GUARDED_PAGE);
    }
    if (path === '/f/challenge') return challenge(res);
    if (path === '/f/css/main.css')
      return send(res, 200, 'text/css', `@import url("/f/css/theme.css");\nbody { margin: 0 }`);
    if (path === '/f/css/theme.css') {
      return send(
        res,
        200,
        'text/css',
        `#bg { width: 800px; height: 400px; background: url("/f/img/bg.png?c=navy&w=100&h=100") repeat }`,
      );
    }
    send(res, 404, 'text/plain', 'not found');
  }

  const server = makeServer();
  const crossServer = makeServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => crossServer.listen(0, '127.0.0.3', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  crossOrigin = `http://127.0.0.3:${(crossServer.address() as AddressInfo).port}`;
  return {
    origin,
    crossOrigin,
    media,
    url: (path) => origin + path,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([server, crossServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      await media.remove();
    },
  };
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

function html(res: ServerResponse, body: string): void {
  send(res, 200, 'text/html; charset=utf-8', body);
}

function later(res: ServerResponse, ms: number, answer: () => void): void {
  const timer = setTimeout(answer, ms);
  res.on('close', () => clearTimeout(timer));
}

/** Cloudflare's managed challenge as it reaches a browser: 403, `cf-mitigated: challenge`, "Just a moment...". */
function challenge(res: ServerResponse): void {
  send(res, 403, 'text/html; charset=UTF-8', CHALLENGE_PAGE, {
    'cf-mitigated': 'challenge',
    Server: 'cloudflare',
    'cf-ray': '8f00000000000000-AMS',
  });
}

const head = (title: string, style = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><style>body { margin: 0; font: 18px sans-serif } ${style}</style></head>`;
const block = (color: ColorName, style: string, text = '') =>
  `<div style="background: ${css(color)}; ${style}">${text}</div>`;

const PAGES: Record<string, (crossOrigin: string) => string> = {
  '/f/lazy-native': () => `${head('Lazy image (native)')}<body>
${block('teal', 'height: 3000px')}
<img loading="lazy" src="/f/img/lazy-native.png?c=red" width="400" height="300" style="display: block" alt="lazy">
</body></html>`,

  '/f/lazy-io': () => `${head('Lazy image (IntersectionObserver)')}<body>
${block('teal', 'height: 3000px')}
<img class="lazy" data-src="/f/img/lazy-io.png?c=green" width="400" height="300" style="display: block" alt="lazy">
<script>
  const io = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) { entry.target.src = entry.target.dataset.src; io.unobserve(entry.target); }
  });
  document.querySelectorAll('img.lazy').forEach((img) => io.observe(img));
</script>
</body></html>`,

  '/f/late': () => `${head('Content fetched after load')}<body>
<h1>Waiting for news</h1>
<script>
  window.addEventListener('load', () => {
    setTimeout(() => {
      fetch('/f/late-data').then((r) => r.json()).then((data) => {
        const div = document.createElement('div');
        div.id = 'late';
        div.style.cssText = 'position: absolute; top: 100px; left: 0; width: 600px; height: 200px; background: ${css('blue')}; color: #fff';
        div.textContent = data.text;
        document.body.append(div);
      });
    }, 1500);
  });
</script>
</body></html>`,

  '/f/font': () =>
    `${head(
      'Web font',
      `@font-face { font-family: "Icons"; src: url("/f/font/icons.woff2") format("woff2"); font-display: block; font-weight: 900 }
     #icon { position: absolute; top: 100px; left: 100px; font: 900 300px/1 "Icons"; color: ${css('orange')} }`,
    )}<body><span id="icon">&#xf0c8;</span><p style="position: absolute; top: 500px">an icon drawn by a web font</p></body></html>`,

  '/f/hero': () => `${head('Full-viewport hero')}<body>
${block('purple', 'height: 100vh', 'hero')}
${block('teal', 'height: 2400px', 'article')}
</body></html>`,

  '/f/fixed-header':
    () => `${head('Fixed header', `header { position: fixed; top: 0; left: 0; right: 0; height: 80px; background: ${css('navy')}; color: #fff; z-index: 10 }`)}<body>
<header>site header</header>
${(['red', 'green', 'blue', 'orange', 'pink'] as ColorName[]).map((c) => block(c, 'height: 800px')).join('\n')}
</body></html>`,

  '/f/infinite': () => `${head('Infinite scroll', '.item { height: 1000px; color: #fff; font-size: 32px }')}<body>
<div id="feed"><div class="item" style="background: ${css(INFINITE_COLORS[0]!)}">batch 0</div></div>
<div id="sentinel" style="height: 1px"></div>
<script>
  let next = 1;
  let loading = false;
  const io = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting) || loading) return;
    loading = true;
    fetch('/f/batch?n=' + next).then((r) => r.json()).then((batch) => {
      const item = document.createElement('div');
      item.className = 'item';
      item.style.background = batch.color;
      item.textContent = batch.label;
      document.getElementById('feed').append(item);
      next++;
      loading = false;
      if (batch.last) io.disconnect();
    });
  }, { rootMargin: '0px 0px 200px 0px' });
  io.observe(document.getElementById('sentinel'));
</script>
</body></html>`,

  '/f/frame-same': () => `${head('Same-origin iframe')}<body>
<iframe src="/f/frame-doc?label=same-origin&amp;c=green" style="position: absolute; top: 100px; left: 100px; width: 600px; height: 300px; border: 0"></iframe>
</body></html>`,

  '/f/frame-cross': (crossOrigin) => `${head('Cross-origin iframe')}<body>
<iframe src="${crossOrigin}/f/frame-doc?label=cross-origin&amp;c=blue" style="position: absolute; top: 100px; left: 100px; width: 600px; height: 300px; border: 0"></iframe>
</body></html>`,

  // A Sourcepoint-style banner: a fixed frame from another site whose "Reject" tells the page by postMessage.
  '/f/consent-frame': (crossOrigin) => `${head(
    'Consent banner in a cross-origin frame',
    `#sp_message_container_1234 { position: fixed; bottom: 0; left: 0; right: 0; height: 200px; z-index: 1000 }
     #sp_message_container_1234 iframe { width: 100%; height: 100%; border: 0 }`,
  )}<body>
${block('teal', 'height: 800px', 'article behind the banner')}
<div id="sp_message_container_1234"><iframe id="sp_message_iframe_1234" title="SP Consent Message"
  src="${crossOrigin}/index.html?message_id=1234&amp;consentUUID=fixture"></iframe></div>
<script>
  window.addEventListener('message', (event) => {
    if (event.data !== 'sp-rejected' && event.data !== 'sp-accepted') return;
    document.body.dataset.consent = event.data.slice(3);
    setTimeout(() => document.getElementById('sp_message_container_1234').remove(), 150);
  });
</script>
</body></html>`,

  '/f/spa': () => `${head('Single-page app')}<body>
<main id="app">${block('olive', 'height: 600px', 'loading…')}</main>
<script>
  const show = (path) => {
    document.getElementById('app').innerHTML = '<div style="height: 600px; background: ${css('pink')}; color: #fff">Article 7 view</div>';
    document.title = 'Article 7';
  };
  window.addEventListener('load', () => setTimeout(() => { history.pushState({ article: 7 }, '', '/f/spa/article-7'); show(); }, 300));
</script>
</body></html>`,

  '/f/big-image': () => `${head('A very large image beside a missing one')}<body>
<img src="/f/img/big.png?c=brown&amp;w=${BIG_IMAGE.width}&amp;h=${BIG_IMAGE.height}" style="display: block; width: 600px; height: 400px" alt="big">
<img src="/f/missing.png" width="10" height="10" alt="missing">
</body></html>`,

  '/f/shadow': () => `${head('Web component with an open shadow root')}<body>
<fancy-card></fancy-card>
<script>
  customElements.define('fancy-card', class extends HTMLElement {
    constructor() {
      super();
      this.attachShadow({ mode: 'open' }).innerHTML =
        '<style>.card { width: 500px; height: 200px; background: ${css('green')}; color: #fff }</style><div class="card">shadow content</div>';
    }
  });
</script>
</body></html>`,

  '/f/moved-here': () =>
    `${head('Moved here')}<body>${block('olive', 'height: 400px', 'the page that moved')}</body></html>`,

  '/f/canvas': () => `${head('Canvas drawing')}<body>
<canvas id="c" width="400" height="300"></canvas>
<script>const ctx = document.getElementById('c').getContext('2d'); ctx.fillStyle = '${css('red')}'; ctx.fillRect(0, 0, 400, 300);</script>
</body></html>`,

  // alert() in the page's first script: the page does not go on until the dialog is closed.
  '/f/alert': () => `${head('Alert on load')}<body>
<script>alert('Welcome to our site!');</script>
${block('purple', 'height: 400px', 'after the alert')}
</body></html>`,

  // A page that hides its content from automated browsers (navigator.webdriver), as bot-detection scripts do.
  '/f/webdriver': () => `${head('Checks navigator.webdriver')}<body>
<div id="content" style="height: 400px; background: ${css('red')}; color: #fff">bot detected</div>
<script>
  if (!navigator.webdriver) {
    const content = document.getElementById('content');
    content.style.background = '${css('green')}';
    content.textContent = 'welcome, human visitor';
  }
</script>
</body></html>`,

  '/f/script-404': () => `${head('A script that answers 404 with a body')}<body>
${block('olive', 'height: 300px', 'page with a retired script')}
<script src="/f/js/gone.js"></script>
</body></html>`,

  // A thread whose replies open behind "Show more replies" (and, once open, "Show 2 more replies").
  '/f/thread':
    () => `${head('Thread with more replies', `article { margin: 8px; padding: 8px; border: 1px solid #ccc } .reply { background: ${css('pink')}; color: #fff; margin: 4px 0 }`)}<body>
<article><p>post 1</p><div class="replies"></div><button class="more" data-post="1">Show more replies</button></article>
<article><p>post 2</p><div class="replies"></div><button class="more" data-post="2">View 3 more replies</button></article>
<script>
  document.addEventListener('click', async (event) => {
    const button = event.target.closest('button.more');
    if (!button) return;
    const post = button.dataset.post;
    const replies = await (await fetch('/f/replies?post=' + post + '&page=' + (button.dataset.page || '1'))).json();
    const list = button.parentElement.querySelector('.replies');
    for (const r of replies.items) list.insertAdjacentHTML('beforeend', '<p class="reply">' + r + '</p>');
    if (replies.next) {
      const next = Object.assign(document.createElement('button'), { className: 'more', textContent: 'Show 2 more replies' });
      next.dataset.post = post;
      next.dataset.page = replies.next;
      button.replaceWith(next);
    } else button.remove();
  });
</script>
</body></html>`,

  '/f/video-mp4': () => `${head('Progressive MP4')}<body>
<video src="/f/media/clip.mp4" width="320" height="240" controls preload="metadata"></video>
<p>a post whose point is its video</p>
</body></html>`,

  // hls.js on Media Source Extensions, as most sites play HLS (the video's src is a blob: URL).
  '/f/video-hls': () => `${head('HLS stream')}<body>
<video id="player" width="320" height="240" controls></video>
<p>a stream in segments</p>
<script src="/f/js/hls.min.js"></script>
<script>
  const video = document.getElementById('player');
  if (Hls.isSupported()) {
    const hls = new Hls({ autoStartLoad: false });
    hls.loadSource('/f/media/low.m3u8');
    hls.attachMedia(video);
    // Like many players: the playlist is read at once, segments only once the visitor presses play.
    video.addEventListener('play', () => hls.startLoad(), { once: true });
  } else video.src = '/f/media/low.m3u8';
</script>
</body></html>`,

  '/f/audio': () => `${head('Audio element')}<body>
<audio src="/f/media/tone.mp3" controls preload="none"></audio>
<p>a podcast episode</p>
</body></html>`,

  '/f/css-import':
    () => `<!doctype html><html><head><meta charset="utf-8"><title>CSS @import and background image</title>
<link rel="stylesheet" href="/f/css/main.css"></head><body><div id="bg">tiled background</div></body></html>`,
};

/** What the server says when the script of /f/script-404 is asked for: the WARC must hold it. */
export const MISSING_SCRIPT_BODY = '/* 404 Not Found: widget.js was retired on 2026-01-01 */\n';

const GUARDED_PAGE = `${head('Guarded page')}<body>${block('blue', 'height: 400px', 'real guarded content')}</body></html>`;

const CHALLENGE_PAGE = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots" content="noindex,nofollow">
<style>body { margin: 0; background: #fff; font: 16px sans-serif } .main { padding: 80px }</style></head>
<body><div class="main"><h1>127.0.0.1</h1><h2 id="challenge-running">Checking if the site connection is secure</h2>
<div id="challenge-stage"></div><noscript>Enable JavaScript and cookies to continue</noscript></div>
<script>(function(){window._cf_chl_opt={cvId: '3', cZone: '127.0.0.1', cType: 'managed'};})();</script>
</body></html>`;

// Sourcepoint's message, with its choice classes (11 accept, 12 options, 13 reject), as autoconsent knows it.
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
