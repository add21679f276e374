import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { unzipSync } from 'fflate';
import type { Browser } from 'puppeteer-core';
import { launchChromium } from '../src/capture/browser-launch.js';
import { DEFAULT_VIEWPORT } from '../src/capture/page-capture.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { startStaticPages } from './support/static-pages.js';
import { startMediaPage } from './support/media-page.js';
import { httpCall } from '../test/support/test-server.js';
import type { BenchLine } from './registry.js';
import { withMakeRunService } from './support/make-run-service.js';
import { captureClient, type CaptureClient, envCount, percentile, pool, round, timeMs } from './support/bench-kit.js';

/**
 * Speed as a client sees it. The service runs as `make run` starts it — its own OS process (src/main.ts), a
 * fresh DATA_DIR, its own nats-server and embedded Postgres, every role, the built-in TSA, a generated signing
 * key, WORKER_CONCURRENCY and the adaptive limit at their defaults — and a client measures `POST /v1/captures`
 * to `status: complete` (status polled every 25 ms). Beside it, in the same run, bare puppeteer on the same page,
 * twice: `goto` to `networkidle0`, and `goto` to `load`, each then a full-page screenshot and `content()`, a new
 * browser context each time (launchChromium's flags, the same viewport).
 *
 * Six kinds of page: static text (/plain.html: text only, three viewports tall, served as a file server serves
 * it, bench/support/static-pages.ts), a scripted tall page (/scripted-tall: 3,200 px, one inline script, CSS
 * gradients, nothing lazy), a single-page app that renders after load (/spa), an image gallery with lazy
 * loading (/gallery), a page with a consent banner (/consent) and a page with a video (/video.html,
 * bench/support/media-page.ts); the fixture site's /simple and /article can be asked for too. For each:
 * sequential latency (p50/p95), then throughput two at a time — two client loops, each submitting and waiting,
 * against two bare captures in parallel. Each page's bare sides run right after its service side, with the
 * service still up (idle), as a black-box run has both in one window of the host's time. The worker's own
 * render stages of the sequential captures say where the time went; `outsideRenderMs` is the client's latency
 * less the render (job pickup, bundle, signature, timestamp, storage, outcome, projection, the status read);
 * `extraWorkBought` is what the capture did that bare puppeteer does not (from one capture's record): the
 * behaviors that found work and what they did, those that found nothing and what they cost, the consent
 * banner answered, consent detection's looks and its wait after settling, and the responses its WACZ holds
 * (`archived`: all, images, audio and video, from its CDXJ index) beside those bare puppeteer's page received
 * (`bareReceived`, one capture each way: `networkidle0`, `load`).
 *
 * Then one capture each of the pages where settle, scroll, consent and stitching have real work.
 *
 * BENCH_CAPTURE_SEQUENTIAL (default 12): sequential captures per page and side.
 * BENCH_CAPTURE_CONCURRENT (default 12): captures per page and side in the two-at-a-time run.
 * BENCH_CAPTURE_PAGES (default /plain.html,/scripted-tall,/spa,/gallery,/consent,/video.html): the pages; when
 *   set, the workload captures are left out.
 * BENCH_CAPTURE_LOG (a file): the service runs at LOG_LEVEL=debug (each capture step's time, capture-steps.ts) and its
 *   output is written there when it stops.
 * BENCH_CAPTURE_CLIENT=one-address: the client as a black-box script is — every status poll from one address,
 *   a 429 polled again 25 ms later — against the service with `make run`'s default rate limits (600 unauthenticated
 *   requests per address a minute); default: each poll loop its own address, limits out of reach.
 */
const PAGES = process.env.BENCH_CAPTURE_PAGES?.split(',') ?? [
  '/plain.html',
  '/scripted-tall',
  '/spa',
  '/gallery',
  '/consent',
  '/video.html',
];
const ONE_ADDRESS = process.env.BENCH_CAPTURE_CLIENT === 'one-address';
const SERVICE_LOG = process.env.BENCH_CAPTURE_LOG;
const PARALLEL = 2;

export async function captureLatencyBench(): Promise<BenchLine[]> {
  const sequential = envCount('BENCH_CAPTURE_SEQUENTIAL', 12);
  const concurrent = envCount('BENCH_CAPTURE_CONCURRENT', 12);
  const site = await startFixtureSite();
  const plain = await startStaticPages();
  const video = PAGES.includes('/video.html') ? await startMediaPage() : undefined;
  const urlOf = (path: string) =>
    path === '/plain.html' ? plain.url : path === '/video.html' && video ? video.url : site.url(path);
  const lines: BenchLine[] = [];
  try {
    const service = await withMakeRunService(
      'latency',
      async (service, adminKey) => {
        const { baseUrl } = service;
        const client = await captureClient(baseUrl, adminKey, 'bench-latency', { oneAddress: ONE_ADDRESS });
        const pages: Record<string, Awaited<ReturnType<typeof measureService>>> = {};
        const bares: Record<string, Awaited<ReturnType<typeof measureBare>>> = {};
        const baresAtLoad: Record<string, Awaited<ReturnType<typeof measureBare>>> = {};
        for (const path of PAGES) {
          pages[path] = await measureService(baseUrl, client, urlOf(path), sequential, concurrent);
          bares[path] = await measureBare(urlOf(path), sequential, concurrent, 'networkidle0');
          baresAtLoad[path] = await measureBare(urlOf(path), sequential, concurrent, 'load');
        }
        const workloads = process.env.BENCH_CAPTURE_PAGES ? [] : await measureWorkloads(baseUrl, client, site);
        if (SERVICE_LOG) await writeFile(SERVICE_LOG, service.output());
        return {
          pages,
          bares,
          baresAtLoad,
          workloads,
          retried429: client.stats.retried429,
          polls429: client.stats.polls429,
        };
      },
      [],
      { defaultRateLimits: ONE_ADDRESS },
      SERVICE_LOG ? { LOG_LEVEL: 'debug' } : {},
    );
    for (const path of PAGES) {
      const ours = service.pages[path]!;
      const bare = service.bares[path]!;
      const bareAtLoad = service.baresAtLoad[path]!;
      const p50 = (xs: number[]) => percentile(xs, 50);
      lines.push({
        figure: 'client latency ms, POST to complete (sequential)',
        page: path,
        sequential,
        serviceP50: round(p50(ours.latencies)),
        serviceP95: round(percentile(ours.latencies, 95)),
        bareP50: round(p50(bare.latencies)),
        bareP95: round(percentile(bare.latencies, 95)),
        bareLoadP50: round(p50(bareAtLoad.latencies)),
        ratio: round(p50(ours.latencies) / p50(bare.latencies), 2),
        ratioIs: 'service p50 / bare networkidle0 p50 (goal ≤ 0.8 on pages without media or banner)',
        ratioToLoad: round(p50(ours.latencies) / p50(bareAtLoad.latencies), 2),
        outsideRenderMs: round(p50(ours.latencies) - (ours.stages.durationMs ?? 0)),
        workerStagesP50: ours.stages,
        extraWorkBought: ours.bought,
        bareReceived: { networkidle0: bare.received, load: bareAtLoad.received },
        loadAverage: ours.loadAverage,
      });
      lines.push({
        figure: 'throughput captures/s, two at a time',
        page: path,
        captures: concurrent,
        servicePerSec: round(ours.perSec, 2),
        barePerSec: round(bare.perSec, 2),
        bareLoadPerSec: round(bareAtLoad.perSec, 2),
        ratio: round(ours.perSec / bare.perSec, 2),
        ratioIs: 'service / bare networkidle0 (goal ≥ 1.0 on pages without media or banner)',
        ratioToLoad: round(ours.perSec / bareAtLoad.perSec, 2),
        workerConcurrencyLimitAfter: ours.concurrencyLimit,
        retried429: service.retried429,
        client: ONE_ADDRESS ? 'one address, default rate limits' : 'a loopback address per poll loop, limits raised',
        ...(ONE_ADDRESS ? { statusPolls429: service.polls429 } : {}),
      });
    }
    for (const w of service.workloads) lines.push({ figure: 'capture of a page with real work', ...w });
    return lines;
  } finally {
    await site.close();
    await plain.close();
    await video?.close();
  }
}

/** The worker's adaptive concurrency limit now (the gauge of /metrics, served to loopback). */
async function concurrencyLimit(baseUrl: string): Promise<number | null> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const m = /^capture_ledger_worker_concurrency_limit(?:\{[^}]*\})? (\d+(?:\.\d+)?)$/m.exec(text);
  return m ? Number(m[1]) : null;
}

const readRecord = async (baseUrl: string, id: string) =>
  (await httpCall(`${baseUrl}/v1/captures/${id}`, 'GET', {}, undefined, '127.0.0.252')).body;

async function measureService(
  baseUrl: string,
  client: CaptureClient,
  target: string,
  sequential: number,
  concurrent: number,
) {
  const one = async () => {
    const id = await client.submit(target);
    await client.waitDone(id, { timeoutMs: 120_000 });
    return id;
  };
  await one(); // warm-up: browser launch, first bundle
  await one();
  const latencies: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < sequential; i++) latencies.push(await timeMs(async () => ids.push(await one())));
  // Where the time goes: the worker's own render figures of the sequential captures (spec 2.3 `render`).
  const renders = await Promise.all(ids.map(async (id) => (await readRecord(baseUrl, id)).render));
  const stages: Record<string, number> = {};
  if (renders.length > 0) {
    stages.durationMs = round(
      percentile(
        renders.map((r) => r.durationMs),
        50,
      ),
    );
    for (const name of Object.keys(renders[0].stages ?? {}))
      stages[name] = round(
        percentile(
          renders.map((r) => r.stages[name] ?? 0),
          50,
        ),
      );
  }
  const bought = ids.length > 0 ? await extraWorkBought(baseUrl, ids.at(-1)!) : {};
  const loadAverage = loadavg()[0]!.toFixed(1);
  const ms = await timeMs(() => pool(concurrent, PARALLEL, async () => void (await one())));
  return {
    latencies,
    stages,
    bought,
    loadAverage,
    perSec: concurrent / (ms / 1000),
    concurrencyLimit: await concurrencyLimit(baseUrl),
  };
}

/** What a capture did that bare puppeteer does not, from its record's captureSettings and its WACZ: what the extra time bought. */
async function extraWorkBought(baseUrl: string, id: string): Promise<Record<string, unknown>> {
  const record = await readRecord(baseUrl, id);
  const settings = record.captureSettings ?? {};
  const ran: Array<{ name: string; ms: number; found: boolean; did: Record<string, unknown> }> =
    settings.behaviors?.ran ?? [];
  return {
    behaviorsFoundWork: Object.fromEntries(ran.filter((r) => r.found).map((r) => [r.name, { ms: r.ms, ...r.did }])),
    behaviorsFoundNothingMs: Object.fromEntries(ran.filter((r) => !r.found).map((r) => [r.name, r.ms])),
    consent: settings.consent ? `${settings.consent.cmp ?? 'none'}: ${settings.consent.result}` : 'off',
    consentDetection: settings.consentDetection,
    screenshotBefore: Boolean(record.artifacts?.screenshotBefore),
    document: settings.quiet?.document,
    archived: await archivedResponses(baseUrl, id),
  };
}

/** The page's responses a capture's WACZ holds, by kind, from its CDXJ index (the capture's own records left out). */
async function archivedResponses(baseUrl: string, id: string): Promise<Received | undefined> {
  const res = await fetch(`${baseUrl}/v1/captures/${id}/artifacts/wacz`);
  if (res.status !== 200) return undefined;
  const index = unzipSync(new Uint8Array(await res.arrayBuffer()))['indexes/index.cdxj'];
  if (!index) return undefined;
  const counts: Received = { responses: 0, images: 0, media: 0, mediaBytes: 0 };
  for (const line of Buffer.from(index).toString('utf8').split('\n')) {
    if (!line || line.startsWith('urn:')) continue;
    const fields = JSON.parse(line.slice(line.indexOf('{'))) as { mime?: string; status?: string; length?: string };
    // The record's length in the WARC (gzip member): about the body's for media, which does not compress.
    if (fields.status !== undefined) count(counts, fields.mime ?? '', Number(fields.length ?? 0));
  }
  return counts;
}

/** Responses by kind: images, audio and video (by MIME type), and the bytes of the audio and video. */
interface Received {
  responses: number;
  images: number;
  media: number;
  mediaBytes: number;
}

function count(counts: Received, mime: string, bytes: number): void {
  counts.responses++;
  if (mime.startsWith('image/')) counts.images++;
  else if (mime.startsWith('video/') || mime.startsWith('audio/') || /mpegurl|dash\+xml/.test(mime)) {
    counts.media++;
    counts.mediaBytes += bytes;
  }
}

/** One capture each of the pages where settle, scroll, consent and stitching have real work to do. */
async function measureWorkloads(
  baseUrl: string,
  client: CaptureClient,
  site: Awaited<ReturnType<typeof startFixtureSite>>,
) {
  const pages = ['/consent', '/iframe-consent', '/lazy', '/beacons', '/tall?h=20000'];
  const out: BenchLine[] = [];
  for (const path of pages) {
    let id = '';
    const ms = await timeMs(async () => {
      id = await client.submit(site.url(path));
      await client.waitDone(id, { timeoutMs: 120_000 });
    });
    const record = await readRecord(baseUrl, id);
    out.push({
      page: path,
      latencyMs: round(ms),
      settleReason: record.render?.settleReason,
      settleMs: record.render?.settleMs,
      consent: record.captureSettings?.consent
        ? `${record.captureSettings.consent.cmp}: ${record.captureSettings.consent.result}`
        : 'none',
      screenshotBefore: Boolean(record.artifacts?.screenshotBefore),
      stages: record.render?.stages,
    });
  }
  return out;
}

async function measureBare(target: string, sequential: number, concurrent: number, waitUntil: BareWait) {
  const chromium = await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH });
  try {
    const one = () => bareCapture(chromium.browser, target, waitUntil);
    const received: Received = { responses: 0, images: 0, media: 0, mediaBytes: 0 };
    await bareCapture(chromium.browser, target, waitUntil, received); // warm-up
    await one();
    const latencies: number[] = [];
    for (let i = 0; i < sequential; i++) latencies.push(await timeMs(one));
    const ms = await timeMs(() => pool(concurrent, PARALLEL, one));
    return { latencies, perSec: concurrent / (ms / 1000), received };
  } finally {
    await chromium.close();
  }
}

type BareWait = 'networkidle0' | 'load';

/**
 * What a plain script does: a fresh context, networkidle0 (or load), a full-page screenshot and the HTML.
 * `received`: counts the responses the page received before its context closed, by kind.
 */
export async function bareCapture(
  browser: Browser,
  url: string,
  waitUntil: BareWait = 'networkidle0',
  received?: Received,
): Promise<void> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    // The page's own responses (http), not the browser's (the media controls' data: images).
    if (received)
      page.on('response', (response) => {
        if (!response.url().startsWith('http')) return;
        const headers = response.headers();
        count(received, headers['content-type'] ?? '', Number(headers['content-length'] ?? 0));
      });
    await page.setViewport({ ...DEFAULT_VIEWPORT });
    await page.goto(url, { waitUntil, timeout: 30_000 });
    const png = await page.screenshot({ fullPage: true });
    const html = await page.content();
    if (png.byteLength === 0 || html.length === 0) throw new Error('empty bare capture');
  } finally {
    await context.close();
  }
}
