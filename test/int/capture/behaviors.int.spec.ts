import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { capturePage, type PageCaptureResult } from '../../../src/capture/page-capture.js';
import { DEFAULT_CAPTURE_SETTINGS } from '../../../src/domain/capture-options.js';
import { solidPng } from '../../support/fixture-site.js';
import { makeTestMedia, serveMedia, type TestMedia } from '../../support/test-media.js';

/**
 * The behaviors a capture runs after load (src/capture/behaviors/), each on a page that
 * needs it, in real Chromium; what they fetch is checked in the exchanges that become the WARC.
 */
const T = { timeout: 120_000 };

describe('capture behaviors (real Chromium)', () => {
  let server: Server;
  let crossServer: Server;
  let origin = '';
  let cross = '';
  let chromium: LaunchedChromium;
  let media: TestMedia;
  const asked: string[] = [];

  before(async () => {
    media = await makeTestMedia();
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      asked.push(req.url ?? '');
      route(new URL(req.url ?? '/', 'http://x'), req, res, media, cross);
    };
    server = createServer(handler);
    crossServer = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => crossServer.listen(0, '127.0.0.3', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    cross = `http://127.0.0.3:${(crossServer.address() as AddressInfo).port}`;
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    for (const s of [server, crossServer]) await new Promise((resolve) => s?.close(resolve));
    await media?.remove();
  });

  const capture = (path: string, settings: Partial<typeof DEFAULT_CAPTURE_SETTINGS> = {}) =>
    capturePage(chromium.browser, origin + path, {
      timeoutMs: 30_000,
      settings: { ...DEFAULT_CAPTURE_SETTINGS, ...settings },
      handleConsent: false,
    });
  const did = (result: PageCaptureResult, name: string) => result.behaviors?.ran.find((r) => r.name === name)?.did;
  const exchange = (result: PageCaptureResult, url: string, status = 200) =>
    result.exchanges.find((e) => e.url === url && e.status === status);
  /** A record replay can serve the whole resource from: a 200, or a 206 of bytes 0 to the end. */
  const whole = (result: PageCaptureResult, url: string) =>
    result.exchanges.find((e) => {
      if (e.url !== url || !e.body.length || e.truncated) return false;
      if (e.status === 200) return true;
      const range = e.responseHeaders.find(([n]) => n.toLowerCase() === 'content-range')?.[1] ?? '';
      return e.status === 206 && range === `bytes 0-${e.body.length - 1}/${e.body.length}`;
    });

  it('a page with nothing to do: every behavior runs and finds nothing', T, async () => {
    const result = await capture('/plain');
    assert.deepEqual(
      result.behaviors?.ran.map((r) => r.name),
      ['auto-scroll', 'expand', 'auto-play', 'auto-fetch'],
    );
    assert.deepEqual(result.behaviors?.notMatched, ['feed-timeline']);
    assert.equal(did(result, 'auto-scroll')?.steps, 0);
    assert.equal(did(result, 'expand')?.clicked, 0);
    assert.equal(did(result, 'auto-play')?.elements, 0);
    assert.equal(did(result, 'auto-fetch')?.fetched, 0);
    assert.equal(result.behaviors?.outOfBudget, false);
  });

  it('a scripted tall page whose scripts do not watch scrolling, with nothing lazy, is not scrolled', T, async () => {
    const result = await capture('/scripted-tall');
    const scroll = result.behaviors?.ran.find((r) => r.name === 'auto-scroll');
    assert.deepEqual(scroll?.did, { steps: 0, reachedY: 0, nothingWaitsForScroll: true });
    for (const run of result.behaviors?.ran ?? []) assert.equal(run.found, false, `${run.name} found nothing`);
    assert.match(result.html, /script ran/);
  });

  it(
    'a scripted tall page that watches scrolling but grows nothing is scrolled through once, with no wait at the bottom',
    T,
    async () => {
      const result = await capture('/scripted-tall?listens');
      const scroll = result.behaviors?.ran.find((r) => r.name === 'auto-scroll');
      assert.ok(Number(scroll?.did.steps) > 0, JSON.stringify(scroll));
      assert.equal(scroll?.did.reachedBottom, true);
      assert.equal(scroll?.did.growthRounds, 0);
      assert.equal(scroll?.did.loaded, false, 'scrolling set nothing off');
      assert.equal(scroll?.did.waitedMs, 0, 'so it did not wait for quiet at the bottom');
      for (const run of result.behaviors?.ran ?? []) assert.equal(run.found, false, `${run.name} found nothing`);
      assert.match(result.html, /script ran/);
    },
  );

  it(
    'a page whose image loads only when scrolled to: the scroll waits for it and records what it found',
    T,
    async () => {
      const result = await capture('/lazy-below');
      const scroll = result.behaviors?.ran.find((r) => r.name === 'auto-scroll');
      assert.equal(scroll?.did.loaded, true, JSON.stringify(scroll));
      assert.equal(scroll?.found, true);
      assert.ok(exchange(result, `${origin}/img/below.png`), 'the lazy image was archived');
    },
  );

  it(
    'expand opens "show more replies" round after round, never follows a link away and blocks a navigating one',
    T,
    async () => {
      const result = await capture('/thread');
      assert.match(result.html, /reply 1\.1/);
      assert.match(result.html, /reply 2\.1/);
      assert.match(result.html, /reply 1\.3/, 'the nested "show 2 more replies" was opened too');
      assert.match(result.html, /<details open/);
      assert.doesNotMatch(result.html, /learn-more-clicked/);
      assert.equal(result.finalUrl, `${origin}/thread`);
      assert.ok(!asked.includes('/elsewhere'), 'nothing went to /elsewhere');
      const expanded = did(result, 'expand')!;
      assert.ok(Number(expanded.clicked) >= 4, JSON.stringify(expanded));
      assert.equal(expanded.navigationsBlocked, 1);
      assert.equal(expanded.detailsOpened, 1);
    },
  );

  it('expand is off when the tenant leaves it out', T, async () => {
    const result = await capture('/thread', { behaviors: ['auto-scroll'] });
    assert.doesNotMatch(result.html, /reply 1\.1/);
    assert.deepEqual(
      result.behaviors?.ran.map((r) => r.name),
      ['auto-scroll'],
    );
  });

  it('auto-fetch fetches srcset candidates, data-* URLs and stylesheet url()s the page did not load', T, async () => {
    const result = await capture('/fetchables');
    for (const path of [
      '/img/a.png?w=2',
      '/img/a.png?w=3',
      '/img/bg.png',
      '/img/lazy.png',
      '/img/narrow.png',
      '/font/unused.woff2',
      '/img/imported.png',
    ]) {
      assert.ok(exchange(result, origin + path), `${path} is archived`);
    }
    assert.ok(Number(did(result, 'auto-fetch')!.fetched) >= 7);
    for (const never of ['/Ada', '/portrait', '/logout'])
      assert.ok(!asked.includes(never), `${never} was not asked for`);
  });

  it('auto-play archives a progressive MP4 (Range) and an MP3 whole, also inside a cross-site frame', T, async () => {
    const result = await capture('/media');
    for (const [url, name] of [
      [`${origin}/media/clip.mp4`, 'clip.mp4'],
      [`${origin}/media/tone.mp3`, 'tone.mp3'],
      [`${cross}/media/clip.mp4?in=frame`, 'clip.mp4'],
    ] as const) {
      const record = whole(result, url);
      assert.ok(record, `a whole record of ${url}`);
      assert.ok(record.body.equals(media.file(name)), `${url} whole`);
    }
    // The player read clip.mp4 in 32 KiB parts (206): the whole file was fetched once more, as a 200.
    assert.ok(exchange(result, `${origin}/media/clip.mp4`, 206), 'the player used Range requests');
    assert.ok(exchange(result, `${origin}/media/clip.mp4`, 200)?.body.equals(media.file('clip.mp4')));
    const played = did(result, 'auto-play')!;
    assert.equal(played.elements, 3);
    assert.equal(played.framesWithMedia, 2);
    assert.ok(Number(played.played) >= 2, JSON.stringify(played));
  });

  it('auto-play archives an HLS stream: the playlists and every segment of one rendition', T, async () => {
    const result = await capture('/hls');
    assert.ok(whole(result, `${origin}/media/master.m3u8`));
    const rendition = ['low', 'high'].find((r) => whole(result, `${origin}/media/${r}.m3u8`)) as 'low' | 'high';
    assert.ok(rendition, 'a rendition playlist is archived');
    for (const segment of media.segments(rendition)) {
      const record = whole(result, `${origin}/media/${segment}`);
      assert.ok(record?.body.equals(media.file(segment)), `${segment} whole`);
    }
    assert.ok(Number(did(result, 'auto-play')!.playlists) >= 2);
  });

  it(
    'auto-play archives a DASH stream: the manifest and every segment of one representation per adaptation set',
    T,
    async () => {
      const result = await capture('/dash');
      const segments = media.files.filter((f) => f.startsWith('dash/') && f.endsWith('.m4s'));
      assert.ok(segments.length >= 8, segments.join(', '));
      for (const segment of segments) {
        const record = whole(result, `${origin}/media/${segment}`);
        assert.ok(record?.body.equals(media.file(segment)), `${segment} whole`);
      }
      assert.ok(Number(did(result, 'auto-play')!.segmentsFetched) >= segments.length - 2);
    },
  );

  it('feed-timeline follows a feed that loads in its own scrolling column', T, async () => {
    const result = await capture('/feed');
    assert.match(result.html, /post 20</);
    assert.match(result.html, /reply to post 3/);
    const followed = did(result, 'feed-timeline')!;
    assert.equal(followed.posts, 20);
    assert.equal(followed.stillGrowing, false);
  });

  it('a page that never ends is captured when the budget runs out, with a note', T, async () => {
    const result = await capture('/endless', { behaviorTimeoutMs: 3000 });
    assert.equal(result.renderQuality, 'full');
    assert.equal(result.behaviors?.outOfBudget, true);
    assert.ok(result.behaviors!.ms < 3000 + 5000, `behaviors took ${result.behaviors!.ms} ms`);
    assert.ok(
      result.notes.some((n) => /budget/.test(n)),
      JSON.stringify(result.notes),
    );
  });
});

const PNG = solidPng(4, 4, [10, 200, 10]);

function route(url: URL, req: IncomingMessage, res: ServerResponse, media: TestMedia, cross: string): void {
  const html = (body: string) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`);
  };
  const json = (value: unknown) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  const path = url.pathname;
  if (path.startsWith('/media/')) return serveMedia(media, path.slice('/media/'.length), req, res);
  if (path.startsWith('/img/')) {
    res.writeHead(200, { 'Content-Type': 'image/png' });
    return void res.end(PNG);
  }
  if (path === '/font/unused.woff2') {
    res.writeHead(200, { 'Content-Type': 'font/woff2' });
    return void res.end('not really a font');
  }
  if (path === '/css/imported.css') {
    res.writeHead(200, { 'Content-Type': 'text/css' });
    return void res.end('@media print { .x { background: url("/img/imported.png") } }');
  }
  switch (path) {
    case '/plain':
      return html('<h1>plain</h1><p>nothing to do here</p>');
    case '/scripted-tall':
      return html(`<style>section { height: 800px; background: linear-gradient(#fff, #cde) }</style>
<section><p id="by">script not run</p></section><section>two</section><section>three</section><section>four</section>
<script>document.getElementById('by').textContent = 'script ran';</script>
${url.searchParams.has('listens') ? "<script>window.addEventListener('scroll', () => {});</script>" : ''}`);
    case '/lazy-below':
      return html(`<div style="height: 2400px">top</div>
<img loading="lazy" src="/img/below.png" width="10" height="10" alt="below the fold">
<script>document.title = 'lazy below';</script>`);
    case '/elsewhere':
      return html('<h1>elsewhere</h1>');
    case '/thread':
      return html(`
<article id="p1"><p>post 1</p><div class="replies"></div><button class="more" data-post="1">Show more replies</button></article>
<article id="p2"><p>post 2</p><div class="replies"></div><button class="more" data-post="2">View 3 more replies</button></article>
<a href="/elsewhere">Read more</a>
<button id="away">Show more</button>
<button id="learn">Learn more</button>
<details><summary>Show details</summary><p>hidden detail</p></details>
<script>
  document.getElementById('away').addEventListener('click', () => { location.href = '/elsewhere'; });
  document.getElementById('learn').addEventListener('click', () => document.body.append('learn-more-' + 'clicked'));
  document.addEventListener('click', async (event) => {
    const button = event.target.closest('button.more');
    if (!button) return;
    const post = button.dataset.post;
    const page = button.dataset.page || '1';
    const replies = await (await fetch('/replies?post=' + post + '&page=' + page)).json();
    const list = button.parentElement.querySelector('.replies');
    for (const r of replies.items) list.insertAdjacentHTML('beforeend', '<p>' + r + '</p>');
    if (replies.next) {
      const next = document.createElement('button');
      next.className = 'more'; next.dataset.post = post; next.dataset.page = replies.next;
      next.textContent = 'Show 2 more replies';
      button.replaceWith(next);
    } else button.remove();
  });
</script>`);
    case '/replies': {
      const post = url.searchParams.get('post');
      const page = url.searchParams.get('page');
      if (post === '1' && page === '1') return json({ items: ['reply 1.1'], next: '2' });
      if (post === '1') return json({ items: ['reply 1.2', 'reply 1.3'] });
      return json({ items: [`reply ${post}.1`] });
    }
    case '/fetchables':
      return html(`
<style>@import url("/css/imported.css");
  @media (max-width: 500px) { body { background: url("/img/narrow.png") } }
  @font-face { font-family: Unused; src: url("/font/unused.woff2") format("woff2") }</style>
<img src="/img/a.png?w=1" srcset="/img/a.png?w=1 1x, /img/a.png?w=2 2x" width="4" height="4" alt="">
<picture><source media="(max-width: 10px)" srcset="/img/a.png?w=3"><img src="/img/a.png?w=1" alt=""></picture>
<div data-bg="/img/bg.png">background set by a script that never ran</div>
<img data-src="/img/lazy.png" alt="lazy, never swapped">
<div data-full-name="Ada" data-image="portrait" data-lazy-action="logout">data-* values that are not URLs</div>`);
    case '/media':
      return html(`
<video src="/media/clip.mp4" width="160" height="120"></video>
<audio src="/media/tone.mp3" controls></audio>
<iframe src="${cross}/media-frame" width="200" height="150"></iframe>`);
    case '/media-frame':
      return html('<video src="/media/clip.mp4?in=frame" width="160" height="120"></video>');
    case '/dash':
      // A player's start: the manifest, the video's init segment and first chunk, on Media Source Extensions.
      return html(`<video id="v" width="160" height="120"></video>
<script>
  (async () => {
    const mpd = await (await fetch('/media/dash/manifest.mpd')).text();
    await (await fetch('/media/dash/init-stream0.m4s')).arrayBuffer();
    await (await fetch('/media/dash/chunk-stream0-00001.m4s')).arrayBuffer();
    document.getElementById('v').src = URL.createObjectURL(new MediaSource());
  })();
</script>`);
    case '/hls':
      return html('<video src="/media/master.m3u8" width="320" height="240"></video>');
    case '/feed':
      return html(`
<div id="column" style="height: 600px; overflow-y: auto">
  <div role="feed" aria-busy="false" id="feed"></div>
</div>
<script>
  const feed = document.getElementById('feed');
  let next = 1;
  const load = async () => {
    if (next > 20) return;
    feed.setAttribute('aria-busy', 'true');
    const posts = await (await fetch('/posts?from=' + next)).json();
    for (const p of posts) {
      feed.insertAdjacentHTML('beforeend', '<article style="height: 300px"><p>post ' + p + '</p>' +
        (p === 3 ? '<button class="r">Show replies</button>' : '') + '</article>');
    }
    next += posts.length;
    feed.setAttribute('aria-busy', 'false');
    observe();
  };
  const io = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) { io.disconnect(); load(); }
  }, { root: document.getElementById('column') });
  const observe = () => { const last = feed.lastElementChild; if (last) io.observe(last); };
  feed.addEventListener('click', (e) => {
    if (e.target.matches('button.r')) e.target.replaceWith(Object.assign(document.createElement('p'), { textContent: 'reply to post 3' }));
  });
  load();
</script>`);
    case '/posts': {
      const from = Number(url.searchParams.get('from'));
      return json(Array.from({ length: 5 }, (_, i) => from + i).filter((n) => n <= 20));
    }
    case '/endless':
      return html(`
<div id="items"></div>
<script>
  let n = 0;
  const items = document.getElementById('items');
  const add = () => items.insertAdjacentHTML('beforeend', '<div style="height: 900px">item ' + (n++) + '</div>');
  add();
  addEventListener('scroll', () => {
    if (innerHeight + scrollY >= document.documentElement.scrollHeight - 50) fetch('/posts?from=1').then(add);
  });
</script>`);
    default:
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
  }
}
