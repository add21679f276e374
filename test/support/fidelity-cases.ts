/**
 * The fidelity suite: what a capture of each page of test/support/fidelity-site.ts must show (pixel samples
 * of the full-page PNG), contain (rendered HTML) and hold (WARC response records), and two ways to capture
 * them — through the whole service (POST /v1/captures → WACZ a tenant gets) and through bare puppeteer
 * (goto networkidle0, full-page screenshot, content(); the responses it saw stand in for WARC records).
 * Used by the e2e test (test/e2e/fidelity.e2e.spec.ts) and BENCH=fidelity (bench/fidelity.bench.ts).
 */
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { PNG } from 'pngjs';
import type { Browser, HTTPResponse } from 'puppeteer-core';
import { WARCParser } from 'warcio';
import {
  BIG_IMAGE,
  COLORS,
  INFINITE_BATCHES,
  INFINITE_COLORS,
  MISSING_SCRIPT_BODY,
  type ColorName,
  type FidelitySite,
} from './fidelity-site.js';
import type { TestServer } from './test-server.js';

export interface PixelSample {
  x: number;
  y: number;
  color: ColorName;
  /** Why this pixel has this colour. */
  what: string;
}

export interface FidelityCase {
  name: string;
  /** What real sites do here, and what goes wrong in captures. */
  kind: string;
  path: string;
  pixels?: PixelSample[];
  /** Text the rendered HTML must contain. */
  html?: string[];
  /**
   * Response records the WARC must hold: path (with query) relative to the page's origin, or a full URL; its
   * status; and, when given, text its body must contain. `whole`: a 200 or a 206 of every byte (replay serves a
   * media file or a stream segment from such a record only), its body not truncated.
   */
  warc?: Array<{ url: string; status: number; body?: string; whole?: true }>;
  /** Path the page was at when captured. */
  finalPath?: string;
  /** The capture must fail naming a challenge instead of archiving the page. */
  challenge?: boolean;
  /**
   * For a case whose full expectation rests on a time budget (the scroll's growth budget): what must hold
   * however busy the machine is — what `make test` asserts; the bench checks the whole expectation.
   */
  underLoad?: Pick<FidelityCase, 'pixels' | 'html' | 'warc'>;
}

/** What one capture produced, for either side. */
export interface FidelityObservation {
  failed?: string;
  png?: PNG;
  html?: string;
  finalUrl?: string;
  /** Response records (service: the WARC's; baseline: the responses puppeteer saw). */
  responses: Array<{ url: string; status: number; truncated?: string; body?: Buffer; contentRange?: string }>;
}

const VIEWPORT_H = 800;

export function fidelityCases(site: FidelitySite): FidelityCase[] {
  return [
    {
      name: 'lazy-image-native',
      kind: 'img loading=lazy 3000 px below the fold',
      path: '/f/lazy-native',
      pixels: [{ x: 200, y: 3150, color: 'red', what: 'the lazy image' }],
      html: ['lazy-native.png'],
      warc: [{ url: '/f/img/lazy-native.png?c=red', status: 200 }],
    },
    {
      name: 'lazy-image-intersection-observer',
      kind: 'data-src swapped in by an IntersectionObserver, 3000 px down',
      path: '/f/lazy-io',
      pixels: [{ x: 200, y: 3150, color: 'green', what: 'the lazy image' }],
      html: ['src="/f/img/lazy-io.png?c=green"'],
      warc: [{ url: '/f/img/lazy-io.png?c=green', status: 200 }],
    },
    {
      name: 'content-fetched-after-load',
      kind: 'a fetch started 1.5 s after the load event (setTimeout in a load handler)',
      path: '/f/late',
      pixels: [{ x: 300, y: 200, color: 'blue', what: 'the block the late fetch added' }],
      html: ['late content arrived'],
      warc: [{ url: '/f/late-data', status: 200 }],
    },
    {
      name: 'web-font',
      kind: 'an icon web font (font-display: block) served slowly',
      path: '/f/font',
      pixels: [{ x: 231, y: 250, color: 'orange', what: 'the square icon glyph' }],
      html: ['an icon drawn by a web font'],
      warc: [{ url: '/f/font/icons.woff2', status: 200 }],
    },
    {
      name: 'full-viewport-hero',
      kind: 'a 100vh hero above the article (full-page screenshots that resize the viewport stretch it)',
      path: '/f/hero',
      pixels: [
        { x: 640, y: 400, color: 'purple', what: 'the hero' },
        { x: 640, y: VIEWPORT_H + 400, color: 'teal', what: 'the article right below one viewport of hero' },
        { x: 640, y: 3000, color: 'teal', what: 'the end of the article' },
      ],
      html: ['hero', 'article'],
    },
    {
      name: 'fixed-header',
      kind: 'a position: fixed header over five 800 px bands (stitched screenshots repeat it)',
      path: '/f/fixed-header',
      pixels: [
        { x: 640, y: 40, color: 'navy', what: 'the header at the top' },
        { x: 640, y: 820, color: 'green', what: 'band 2 just below where a repeated header would be' },
        { x: 640, y: 1620, color: 'blue', what: 'band 3' },
        { x: 640, y: 3220, color: 'pink', what: 'band 5' },
      ],
      html: ['site header'],
    },
    {
      name: 'infinite-scroll',
      kind: `a feed that fetches a batch each time its end comes into view (${INFINITE_BATCHES} batches)`,
      path: '/f/infinite',
      pixels: INFINITE_COLORS.slice(0, INFINITE_BATCHES + 1).map((color, n) => ({
        x: 640,
        y: n * 1000 + 500,
        color,
        what: `batch ${n}`,
      })),
      html: [`batch ${INFINITE_BATCHES}`],
      warc: Array.from({ length: INFINITE_BATCHES }, (_, i) => ({ url: `/f/batch?n=${i + 1}`, status: 200 })),
      // One pass through the first screen fetches batch 1 only: batch 2 shows the scroll went on as the page grew.
      underLoad: {
        pixels: [{ x: 640, y: 2500, color: INFINITE_COLORS[2]!, what: 'batch 2' }],
        html: ['batch 2'],
        warc: [{ url: '/f/batch?n=2', status: 200 }],
      },
    },
    {
      name: 'iframe-same-origin',
      kind: 'a same-origin iframe',
      path: '/f/frame-same',
      pixels: [{ x: 400, y: 250, color: 'green', what: 'the frame' }],
      html: ['inner frame same-origin'],
      warc: [{ url: '/f/frame-doc?label=same-origin&c=green', status: 200 }],
    },
    {
      name: 'iframe-cross-origin',
      kind: 'a cross-origin iframe with an image of its own (another site: rendered out of process)',
      path: '/f/frame-cross',
      pixels: [{ x: 400, y: 250, color: 'blue', what: 'the frame' }],
      html: ['inner frame cross-origin'],
      warc: [
        { url: `${site.crossOrigin}/f/frame-doc?label=cross-origin&c=blue`, status: 200 },
        // The frame's own subresource, fetched by the frame's renderer process.
        { url: `${site.crossOrigin}/f/img/frame-img.png?c=orange&w=50&h=50`, status: 200 },
      ],
    },
    {
      name: 'consent-banner-in-cross-origin-frame',
      kind: 'a Sourcepoint-style consent banner in a fixed cross-origin frame over the article',
      path: '/f/consent-frame',
      pixels: [{ x: 640, y: 700, color: 'teal', what: 'the article where the banner was' }],
      html: ['data-consent="rejected"'],
      warc: [{ url: `${site.crossOrigin}/index.html?message_id=1234&consentUUID=fixture`, status: 200 }],
    },
    {
      name: 'spa-route-change',
      kind: 'a single-page app that moves to its article view by history.pushState after load',
      path: '/f/spa',
      pixels: [{ x: 640, y: 300, color: 'pink', what: 'the article view' }],
      html: ['Article 7 view'],
      finalPath: '/f/spa/article-7',
    },
    {
      name: 'huge-image-beside-404',
      kind: `a ${BIG_IMAGE.width}×${BIG_IMAGE.height} px image beside a subresource that answers 404`,
      path: '/f/big-image',
      pixels: [{ x: 300, y: 200, color: 'brown', what: 'the big image, scaled' }],
      html: ['missing.png'],
      warc: [
        { url: `/f/img/big.png?c=brown&w=${BIG_IMAGE.width}&h=${BIG_IMAGE.height}`, status: 200 },
        { url: '/f/missing.png', status: 404 },
      ],
    },
    {
      name: 'challenge-to-headless-user-agents',
      kind: 'a bot-protection edge that answers HeadlessChrome user agents with a 403 challenge',
      path: '/f/guarded',
      pixels: [{ x: 300, y: 200, color: 'blue', what: 'the real page' }],
      html: ['real guarded content'],
      warc: [{ url: '/f/guarded', status: 200 }],
    },
    {
      name: 'challenge-always',
      kind: 'a Cloudflare-style managed challenge (403, cf-mitigated: challenge) for every client',
      path: '/f/challenge',
      challenge: true,
    },
    {
      name: 'open-shadow-root',
      kind: 'a web component rendering into an open shadow root',
      path: '/f/shadow',
      pixels: [{ x: 250, y: 100, color: 'green', what: 'the card in the shadow root' }],
      html: ['shadowrootmode="open"', 'shadow content'],
    },
    {
      name: 'redirect-chain',
      kind: 'a 301 to the page that moved',
      path: '/f/moved',
      pixels: [{ x: 300, y: 200, color: 'olive', what: 'the page that moved' }],
      html: ['the page that moved'],
      warc: [
        { url: '/f/moved', status: 301 },
        { url: '/f/moved-here', status: 200 },
      ],
      finalPath: '/f/moved-here',
    },
    {
      name: 'canvas',
      kind: 'a drawing made by script on a canvas',
      path: '/f/canvas',
      pixels: [{ x: 200, y: 150, color: 'red', what: 'the canvas drawing' }],
      html: ['<canvas'],
    },
    {
      name: 'alert-on-load',
      kind: 'an alert() in the first script (the page stops until it is closed)',
      path: '/f/alert',
      pixels: [{ x: 300, y: 200, color: 'purple', what: 'the content after the alert' }],
      html: ['after the alert'],
    },
    {
      name: 'navigator-webdriver-check',
      kind: 'a page that shows "bot detected" instead of its content when navigator.webdriver is true',
      path: '/f/webdriver',
      pixels: [{ x: 300, y: 200, color: 'green', what: 'the content shown to a person' }],
      html: ['welcome, human visitor'],
    },
    {
      name: 'script-404-with-body',
      kind: 'a script that answers 404 with a body (Blink cancels it; the WARC must still hold what the server sent)',
      path: '/f/script-404',
      pixels: [{ x: 300, y: 150, color: 'olive', what: 'the page' }],
      warc: [{ url: '/f/js/gone.js', status: 404, body: MISSING_SCRIPT_BODY.trim() }],
    },
    {
      name: 'thread-show-more-replies',
      kind: 'a thread whose replies open behind "Show more replies", then "Show 2 more replies" (fetched on click)',
      path: '/f/thread',
      html: ['reply 1.1', 'reply 1.3', 'reply 2.1'],
      warc: [
        { url: '/f/replies?post=1&page=2', status: 200 },
        { url: '/f/replies?post=2&page=1', status: 200 },
      ],
    },
    {
      name: 'video-progressive-mp4',
      kind: 'a video element with a progressive MP4 the server sends in 32 KiB Range answers (206)',
      path: '/f/video-mp4',
      html: ['<video'],
      warc: [{ url: '/f/media/clip.mp4', status: 200, whole: true }],
    },
    {
      name: 'video-hls',
      kind: 'an HLS stream played by hls.js (MSE), whose segments load only once play is pressed',
      path: '/f/video-hls',
      html: ['<video'],
      warc: ['low.m3u8', ...(site.media?.segments('low') ?? [])].map((name) => ({
        url: `/f/media/${name}`,
        status: 200,
        whole: true as const,
      })),
    },
    {
      name: 'audio-element',
      kind: 'an audio element (preload none: nothing is fetched until it is played)',
      path: '/f/audio',
      html: ['<audio'],
      warc: [{ url: '/f/media/tone.mp3', status: 200, whole: true }],
    },
    {
      name: 'css-import-background',
      kind: 'a stylesheet @import-ing another that tiles a background image',
      path: '/f/css-import',
      pixels: [{ x: 400, y: 200, color: 'navy', what: 'the tiled background' }],
      warc: [
        { url: '/f/css/theme.css', status: 200 },
        { url: '/f/img/bg.png?c=navy&w=100&h=100', status: 200 },
      ],
    },
  ];
}

/** Why the observation misses the case's expectation; empty when it meets it. */
export function checkCase(site: FidelitySite, c: FidelityCase, o: FidelityObservation): string[] {
  if (c.challenge) {
    if (!o.failed) return ['the challenge page was archived as the page'];
    return /challenge/i.test(o.failed) && /cloudflare/i.test(o.failed)
      ? []
      : [`failed, but not naming the challenge: ${o.failed}`];
  }
  if (o.failed) return [`capture failed: ${o.failed}`];
  const problems: string[] = [];
  for (const p of c.pixels ?? []) {
    const got = pixelAt(o.png!, p.x, p.y);
    if (!got) problems.push(`PNG ${o.png!.width}×${o.png!.height} has no pixel at (${p.x}, ${p.y}) for ${p.what}`);
    else if (!near(got, COLORS[p.color]))
      problems.push(`PNG (${p.x}, ${p.y}) is rgb(${got.join(',')}), not ${p.color} (${p.what})`);
  }
  for (const text of c.html ?? []) if (!o.html!.includes(text)) problems.push(`HTML lacks ${JSON.stringify(text)}`);
  for (const w of c.warc ?? []) {
    const url = /^https?:/.test(w.url) ? w.url : site.url(w.url);
    const records = o.responses.filter((r) => r.url === url);
    if (w.whole) {
      if (!records.some(isWhole))
        problems.push(
          `no record of all of ${w.url}${records.length ? ` (${records.map((r) => `${r.status} ${r.contentRange ?? ''} ${r.body?.length ?? 0} bytes`.trim()).join('; ')})` : ''}`,
        );
      continue;
    }
    const withStatus = records.filter((r) => r.status === w.status);
    if (withStatus.length === 0) {
      problems.push(
        `no ${w.status} response record for ${w.url}${records.length ? ` (statuses ${records.map((r) => r.status).join(', ')})` : ''}`,
      );
    } else if (w.body !== undefined && !withStatus.some((r) => r.body?.toString('utf8').includes(w.body!))) {
      const sizes = withStatus.map(
        (r) => `${r.body?.length ?? 0} bytes${r.truncated ? `, truncated: ${r.truncated}` : ''}`,
      );
      problems.push(`the ${w.status} record for ${w.url} lacks what the server sent (${sizes.join('; ')})`);
    }
  }
  if (c.finalPath !== undefined) {
    const path = o.finalUrl ? new URL(o.finalUrl).pathname : '(none)';
    if (path !== c.finalPath) problems.push(`final URL path ${path}, not ${c.finalPath}`);
  }
  return problems;
}

function isWhole(r: FidelityObservation['responses'][number]): boolean {
  if (!r.body?.length || r.truncated) return false;
  return r.status === 200 || (r.status === 206 && r.contentRange === `bytes 0-${r.body.length - 1}/${r.body.length}`);
}

function pixelAt(png: PNG, x: number, y: number): [number, number, number] | undefined {
  if (x >= png.width || y >= png.height) return undefined;
  const i = (png.width * y + x) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

function near(a: readonly number[], b: readonly number[]): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) <= 24);
}

/** The service side: one capture through the API, its record, PNG, HTML and the WACZ's response records. */
export async function captureWithService(
  s: TestServer,
  token: string,
  url: string,
  timeoutMs = 120_000,
): Promise<FidelityObservation> {
  const submitted = await s.call('POST', '/v1/captures', { token, body: { url } });
  if (submitted.status !== 202) throw new Error(`submission answered ${submitted.status}: ${submitted.text}`);
  const id: string = submitted.body.id;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await s.call('GET', `/v1/captures/${id}/status`);
    if (status.body.status === 'failed') return { failed: String(status.body.error), responses: [] };
    if (status.body.status === 'complete') break;
    if (Date.now() > deadline) throw new Error(`capture ${id} of ${url} still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const record = (await s.call('GET', `/v1/captures/${id}`)).body;
  const [screenshot, html, wacz] = await Promise.all(
    ['screenshot', 'html', 'wacz'].map((name) => s.call('GET', `/v1/captures/${id}/artifacts/${name}`)),
  );
  if (wacz!.status !== 200) throw new Error(`no WACZ for ${id}: ${wacz!.status}`);
  return {
    png: PNG.sync.read(screenshot!.raw),
    html: html!.text,
    finalUrl: record.finalUrl,
    responses: await responseRecords(new Uint8Array(wacz!.raw)),
  };
}

/** Response records of a WACZ's WARC: target URI, HTTP status and WARC-Truncated. */
export async function responseRecords(wacz: Uint8Array): Promise<FidelityObservation['responses']> {
  const warcGz = unzipSync(wacz)['archive/data.warc.gz'];
  if (!warcGz) throw new Error('WACZ without archive/data.warc.gz');
  const parser = new WARCParser([gunzipSync(warcGz)]);
  const out: FidelityObservation['responses'] = [];
  for await (const record of parser) {
    if (record.warcType !== 'response') continue;
    const truncated = record.warcHeader('WARC-Truncated');
    const contentRange = record.httpHeaders?.headers.get('content-range');
    out.push({
      ...(contentRange ? { contentRange } : {}),
      url: record.warcTargetURI ?? '',
      status: Number(record.httpHeaders?.statusCode ?? 0),
      ...(truncated ? { truncated } : {}),
      body: Buffer.from(await record.readFully()),
    });
  }
  return out;
}

/** The baseline: bare puppeteer as most capture scripts use it, in a fresh context of `browser`. */
export async function captureWithBarePuppeteer(
  browser: Browser,
  url: string,
  timeoutMs = 20_000,
): Promise<FidelityObservation> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const responses: FidelityObservation['responses'] = [];
    const bodies: Array<Promise<unknown>> = [];
    page.on('response', (r: HTTPResponse) => {
      const range = r.headers()['content-range'];
      const seen: FidelityObservation['responses'][number] = {
        url: r.url(),
        status: r.status(),
        ...(range ? { contentRange: range } : {}),
      };
      responses.push(seen);
      // What a script that keeps response.buffer() would hold (nothing when Chromium dropped the body).
      bodies.push(
        r.buffer().then(
          (b) => void (seen.body = Buffer.from(b)),
          () => {},
        ),
      );
    });
    try {
      await page.goto(url, { waitUntil: 'networkidle0', timeout: timeoutMs });
      const shot = await page.screenshot({ fullPage: true, type: 'png' });
      const html = await page.content();
      await Promise.race([Promise.all(bodies), new Promise((resolve) => setTimeout(resolve, 5000))]);
      return { png: PNG.sync.read(Buffer.from(shot)), html, finalUrl: page.url(), responses };
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error), responses };
    }
  } finally {
    await context.close().catch(() => {});
  }
}
