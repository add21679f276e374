import type { Browser } from 'puppeteer-core';
import { launchChromium } from '../src/capture/browser-launch.js';
import { DEFAULT_VIEWPORT } from '../src/capture/page-capture.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { startStaticPages } from './support/static-pages.js';
import { httpCall } from '../test/support/test-server.js';
import type { BenchLine } from './registry.js';
import { withMakeRunService } from './support/make-run-service.js';
import { captureClient, type CaptureClient, envCount, percentile, pool, round, timeMs } from './support/bench-kit.js';

/**
 * Issue 22 §5 (and issues 3 §9a, 11): speed as a client sees it. The service runs as `make run` starts it —
 * its own OS process (src/main.ts), a fresh DATA_DIR, its own nats-server and embedded Postgres, every role,
 * the built-in TSA, a generated signing key, WORKER_CONCURRENCY and the adaptive limit at their defaults — and
 * a client measures `POST /v1/captures` to `status: complete` (status polled every 25 ms). Beside it, in the
 * same run, bare puppeteer on the same page: `goto(networkidle0)`, full-page screenshot, `content()`, a new
 * browser context each time (launchChromium's flags, the same viewport).
 *
 * Three pages: /plain.html (issue 35 §6: the black-box figure's kind of page — text only, three viewports
 * tall, served as a file server serves it, bench/support/static-pages.ts), /simple (CSS, one image, one
 * small script) and /article (3,600 px, one inline script). For each: sequential latency (p50/p95), then
 * throughput two at a time — two client loops, each submitting and waiting, against two bare captures in
 * parallel. Each page's bare side runs right after its service side, with the service still up (idle), as a
 * black-box run has both in one window of the host's time. The worker's own render stages of the sequential
 * captures say where the time went; `outsideRenderMs` is the client's latency less the render (job pickup,
 * bundle, signature, timestamp, storage, outcome, projection, the status read).
 *
 * Then one capture each of the pages where settle, scroll, consent and stitching have real work.
 *
 * BENCH_CAPTURE_SEQUENTIAL (default 12): sequential captures per page and side.
 * BENCH_CAPTURE_CONCURRENT (default 12): captures per page and side in the two-at-a-time run.
 * BENCH_CAPTURE_PAGES (default /plain.html,/simple,/article): the pages; when set, the workload captures are left out.
 * BENCH_CAPTURE_CLIENT=one-address: the client as a black-box script is — every status poll from one address,
 *   a 429 polled again 25 ms later — against the service with `make run`'s default rate limits (600 unauthenticated
 *   requests per address a minute); default: each poll loop its own address, limits out of reach.
 */
const PAGES = process.env.BENCH_CAPTURE_PAGES?.split(',') ?? ['/plain.html', '/simple', '/article'];
const ONE_ADDRESS = process.env.BENCH_CAPTURE_CLIENT === 'one-address';
const PARALLEL = 2;

export async function captureLatencyBench(): Promise<BenchLine[]> {
  const sequential = envCount('BENCH_CAPTURE_SEQUENTIAL', 12);
  const concurrent = envCount('BENCH_CAPTURE_CONCURRENT', 12);
  const site = await startFixtureSite();
  const plain = await startStaticPages();
  const urlOf = (path: string) => (path === '/plain.html' ? plain.url : site.url(path));
  const lines: BenchLine[] = [];
  try {
    const service = await withMakeRunService(
      'latency',
      async ({ baseUrl }, adminKey) => {
        const client = await captureClient(baseUrl, adminKey, 'bench-latency', { oneAddress: ONE_ADDRESS });
        const pages: Record<string, Awaited<ReturnType<typeof measureService>>> = {};
        const bares: Record<string, Awaited<ReturnType<typeof measureBare>>> = {};
        for (const path of PAGES) {
          pages[path] = await measureService(baseUrl, client, urlOf(path), sequential, concurrent);
          bares[path] = await measureBare(urlOf(path), sequential, concurrent);
        }
        return {
          pages,
          bares,
          workloads: process.env.BENCH_CAPTURE_PAGES ? [] : await measureWorkloads(baseUrl, client, site),
          retried429: client.stats.retried429,
          polls429: client.stats.polls429,
        };
      },
      [],
      { defaultRateLimits: ONE_ADDRESS },
    );
    for (const path of PAGES) {
      const ours = service.pages[path]!;
      const bare = service.bares[path]!;
      const p50 = (xs: number[]) => percentile(xs, 50);
      lines.push({
        figure: 'client latency ms, POST to complete (sequential)',
        page: path,
        sequential,
        serviceP50: round(p50(ours.latencies)),
        serviceP95: round(percentile(ours.latencies, 95)),
        bareP50: round(p50(bare.latencies)),
        bareP95: round(percentile(bare.latencies, 95)),
        ratio: round(p50(ours.latencies) / p50(bare.latencies), 2),
        ratioIs: 'service p50 / bare networkidle0 p50 (goal ≤ 0.8)',
        outsideRenderMs: round(p50(ours.latencies) - (ours.stages.durationMs ?? 0)),
        workerStagesP50: ours.stages,
      });
      lines.push({
        figure: 'throughput captures/s, two at a time',
        page: path,
        captures: concurrent,
        servicePerSec: round(ours.perSec, 2),
        barePerSec: round(bare.perSec, 2),
        ratio: round(ours.perSec / bare.perSec, 2),
        ratioIs: 'service / bare networkidle0 (goal ≥ 1.0)',
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
  const ms = await timeMs(() => pool(concurrent, PARALLEL, async () => void (await one())));
  return { latencies, stages, perSec: concurrent / (ms / 1000), concurrencyLimit: await concurrencyLimit(baseUrl) };
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

async function measureBare(target: string, sequential: number, concurrent: number) {
  const chromium = await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH });
  try {
    const one = () => bareCapture(chromium.browser, target);
    await one(); // warm-up
    await one();
    const latencies: number[] = [];
    for (let i = 0; i < sequential; i++) latencies.push(await timeMs(one));
    const ms = await timeMs(() => pool(concurrent, PARALLEL, one));
    return { latencies, perSec: concurrent / (ms / 1000) };
  } finally {
    await chromium.close();
  }
}

/** What a plain script does: a fresh context, networkidle0, a full-page screenshot and the HTML. */
export async function bareCapture(browser: Browser, url: string): Promise<void> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ ...DEFAULT_VIEWPORT });
    await page.goto(url, { waitUntil: 'networkidle0', timeout: 30_000 });
    const png = await page.screenshot({ fullPage: true });
    const html = await page.content();
    if (png.byteLength === 0 || html.length === 0) throw new Error('empty bare capture');
  } finally {
    await context.close();
  }
}
