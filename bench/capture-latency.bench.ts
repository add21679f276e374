import { randomBytes } from 'node:crypto';
import type { Browser, PuppeteerLifeCycleEvent } from 'puppeteer-core';
import { launchChromium } from '../src/capture/browser-launch.js';
import { DEFAULT_VIEWPORT } from '../src/capture/page-capture.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { ADMIN_KEY, httpCall, startTestServer, type TestServer } from '../test/support/test-server.js';
import type { BenchLine } from './registry.js';
import { captureClient, envCount, percentile, pool, round, timeMs } from './support/bench-kit.js';

/**
 * Issue 3 §9a and issue 11: latency and throughput of capturing the fixture's /article page (3,600 px, one
 * inline script, no consent banner) through the whole pipeline (submit → projector → job feeder → worker →
 * bundle signed and timestamped → completed → status says complete) versus two bare puppeteer captures of
 * the same page in the same run (launchChromium flags, new context, full-page screenshot, content()):
 * goto `load`, and goto `networkidle0` (500 ms without a request: what a plain browser needs to wait for
 * the page to be idle, the pipeline's settle phase being the evidence-grade equivalent).
 *
 * Then throughput at the service's default WORKER_CONCURRENCY (chosen from the machine), and one pipeline
 * capture of each page where the work is real (consent banner, consent frame, lazy images, never-idle
 * beacons, 20,000 px), with what the record says about it.
 *
 * BENCH_CAPTURE_SEQUENTIAL (default 12): sequential captures for p50/p95 latency (status polled every 25 ms).
 * BENCH_CAPTURE_CONCURRENT (default 12): captures submitted at once for throughput (2 in parallel on both
 * sides; the pipeline's default-concurrency run submits max(this, 3 × its concurrency)).
 */
export async function captureLatencyBench(): Promise<BenchLine[]> {
  const sequential = envCount('BENCH_CAPTURE_SEQUENTIAL', 12);
  const concurrent = envCount('BENCH_CAPTURE_CONCURRENT', 12);
  const parallel = 2;
  const site = await startFixtureSite();
  const target = site.url('/article');
  const lines: BenchLine[] = [];
  try {
    const pipeline = await withPipeline({ WORKER_CONCURRENCY: String(parallel) }, async (server) => ({
      ...(await measurePipeline(server, target, sequential, concurrent)),
      workloads: await measureWorkloads(server, site),
    }));
    const bareLoad = await measureBare(target, 'load', sequential, concurrent, parallel);
    const bareIdle = await measureBare(target, 'networkidle0', sequential, concurrent, parallel);
    const atDefault = await withPipeline({}, async (server) => {
      const concurrency = server.server.ctx.config.WORKER_CONCURRENCY;
      const count = Math.max(concurrent, 3 * concurrency);
      const perSec = (await measurePipeline(server, target, 0, count)).perSec;
      return { concurrency, count, perSec };
    });

    const p50 = (xs: number[]) => percentile(xs, 50);
    const counts = { page: '/article', sequential, concurrent, parallel, tsa: pipeline.tsa, retried429: pipeline.retried429 };
    lines.push({
      figure: 'latency ms (sequential)',
      ...counts,
      pipelineP50: round(p50(pipeline.latencies)),
      pipelineP95: round(percentile(pipeline.latencies, 95)),
      bareLoadP50: round(p50(bareLoad.latencies)),
      bareIdleP50: round(p50(bareIdle.latencies)),
      bareIdleP95: round(percentile(bareIdle.latencies, 95)),
      ratioVsIdle: round(p50(pipeline.latencies) / p50(bareIdle.latencies), 2),
      ratioVsLoad: round(p50(pipeline.latencies) / p50(bareLoad.latencies), 2),
      ratioIs: 'pipeline p50 / bare p50 (goal vs networkidle0: ≤ 0.8)',
      workerStagesP50: pipeline.stages,
    });
    lines.push({
      figure: 'throughput captures/s (same concurrency)',
      ...counts,
      pipelinePerSec: round(pipeline.perSec, 2),
      bareLoadPerSec: round(bareLoad.perSec, 2),
      bareIdlePerSec: round(bareIdle.perSec, 2),
      ratioVsIdle: round(pipeline.perSec / bareIdle.perSec, 2),
      ratioVsLoad: round(pipeline.perSec / bareLoad.perSec, 2),
      ratioIs: 'pipeline / bare (goal vs networkidle0: ≥ 1.0)',
    });
    lines.push({
      figure: 'throughput captures/s at the default WORKER_CONCURRENCY',
      page: '/article',
      defaultConcurrency: atDefault.concurrency,
      captures: atDefault.count,
      pipelinePerSec: round(atDefault.perSec, 2),
      ratioVsBareIdleAt2: round(atDefault.perSec / bareIdle.perSec, 2),
      ratioIs: 'pipeline at its default / bare networkidle0 at 2',
    });
    for (const w of pipeline.workloads) lines.push({ figure: 'pipeline capture of a page with real work', ...w });
    return lines;
  } finally {
    await site.close();
  }
}

async function withPipeline<T>(env: Record<string, string>, run: (server: TestServer) => Promise<T>): Promise<T> {
  // TSA_URL '' is unset for the config: the built-in local TSA, so every bundle is v0.2.0 (timestamped).
  const server = await startTestServer({
    ROLES: 'api,projector,worker',
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32,127.0.0.3/32',
    SIGNING_KEY: randomBytes(32).toString('base64'),
    TSA_URL: '',
    RATE_LIMIT_IP_PER_MIN: '10000000',
    RATE_LIMIT_TENANT_PER_MIN: '10000000',
    ...env,
  });
  try {
    return await run(server);
  } finally {
    await server.stop();
  }
}

const readRecord = async (server: TestServer, id: string) =>
  (await httpCall(`${server.baseUrl}/v1/captures/${id}`, 'GET', {}, undefined, '127.0.0.252')).body;

async function measurePipeline(server: TestServer, target: string, sequential: number, concurrent: number) {
  const tsa = (await server.server.evidence.notary?.describe())?.timestamps ? 'built-in local TSA (TSA_URL unset)' : 'none';
  const client = await captureClient(server.baseUrl, ADMIN_KEY, `bench-latency-${randomBytes(3).toString('hex')}`);
  const ids: string[] = [];
  const one = async () => {
    const id = await client.submit(target);
    await client.waitDone(id);
    ids.push(id);
  };
  await one(); // warm-up: browser launch, first bundle
  await one();
  ids.length = 0;
  const latencies: number[] = [];
  for (let i = 0; i < sequential; i++) latencies.push(await timeMs(one));
  // Where the time goes: the worker's own render figures of the sequential captures (spec 2.3 `render`).
  const renders = await Promise.all(ids.map(async (id) => (await readRecord(server, id)).render));
  const stages: Record<string, number> = {};
  if (renders.length > 0) {
    stages.durationMs = round(percentile(renders.map((r) => r.durationMs), 50));
    for (const name of Object.keys(renders[0].stages ?? {})) stages[name] = round(percentile(renders.map((r) => r.stages[name] ?? 0), 50));
  }
  const ms = await timeMs(async () => {
    const ids = await Promise.all(Array.from({ length: concurrent }, () => client.submit(target)));
    // One poller, in submission order (they finish about in order): polling must not eat the CPU it measures.
    for (const id of ids) await client.waitDone(id, { timeoutMs: 120_000, pollMs: 50 });
  });
  return { tsa, latencies, stages, perSec: concurrent / (ms / 1000), retried429: client.stats.retried429 };
}

/** One capture each of the pages where settle, scroll, consent and stitching have real work to do. */
async function measureWorkloads(server: TestServer, site: Awaited<ReturnType<typeof startFixtureSite>>) {
  const client = await captureClient(server.baseUrl, ADMIN_KEY, 'bench-workloads');
  const pages = ['/consent', '/iframe-consent', '/lazy', '/beacons', '/tall?h=20000'];
  const out: BenchLine[] = [];
  for (const path of pages) {
    let id = '';
    const ms = await timeMs(async () => {
      id = await client.submit(site.url(path));
      await client.waitDone(id, { timeoutMs: 120_000 });
    });
    const record = await readRecord(server, id);
    out.push({
      page: path,
      latencyMs: round(ms),
      settleReason: record.render?.settleReason,
      settleMs: record.render?.settleMs,
      consent: record.captureSettings?.consent ? `${record.captureSettings.consent.cmp}: ${record.captureSettings.consent.result}` : 'none',
      screenshotBefore: Boolean(record.artifacts?.screenshotBefore),
      stages: record.render?.stages,
    });
  }
  return out;
}

async function measureBare(target: string, waitUntil: PuppeteerLifeCycleEvent, sequential: number, concurrent: number, parallel: number) {
  const chromium = await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH });
  try {
    const one = () => bareCapture(chromium.browser, target, waitUntil);
    await one(); // warm-up
    await one();
    const latencies: number[] = [];
    for (let i = 0; i < sequential; i++) latencies.push(await timeMs(one));
    const ms = await timeMs(() => pool(concurrent, parallel, one));
    return { latencies, perSec: concurrent / (ms / 1000) };
  } finally {
    await chromium.close();
  }
}

async function bareCapture(browser: Browser, url: string, waitUntil: PuppeteerLifeCycleEvent): Promise<void> {
  // A context per capture, as the worker's pool does (two pages of one context share a window, and the
  // hidden one never renders a screenshot).
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ ...DEFAULT_VIEWPORT });
    await page.goto(url, { waitUntil, timeout: 30_000 });
    const png = await page.screenshot({ fullPage: true });
    const html = await page.content();
    if (png.byteLength === 0 || html.length === 0) throw new Error('empty bare capture');
  } finally {
    await context.close();
  }
}
