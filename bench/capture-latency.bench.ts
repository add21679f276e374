import { randomBytes } from 'node:crypto';
import type { Browser } from 'puppeteer-core';
import { launchChromium } from '../src/capture/browser-launch.js';
import { DEFAULT_VIEWPORT } from '../src/capture/page-capture.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { ADMIN_KEY, httpCall, startTestServer } from '../test/support/test-server.js';
import type { BenchLine } from './registry.js';
import { captureClient, envCount, percentile, pool, round, timeMs } from './support/bench-kit.js';

/**
 * Issue 3 §9a: latency and throughput of capturing the fixture's /simple page through the whole pipeline
 * (submit → projector → job feeder → worker → bundle with timestamp → completed → status says complete) versus
 * a bare puppeteer capture of the same page in the same run (launchChromium flags, goto `load`, full-page
 * screenshot, content). The pipeline's settle phase (quiet window 500 ms) is part of its price.
 *
 * BENCH_CAPTURE_SEQUENTIAL (default 12): sequential captures for p50/p95 latency (status polled every 25 ms).
 * BENCH_CAPTURE_CONCURRENT (default 12): captures submitted at once for throughput (both with 2 in parallel).
 */
export async function captureLatencyBench(): Promise<BenchLine[]> {
  const sequential = envCount('BENCH_CAPTURE_SEQUENTIAL', 12);
  const concurrent = envCount('BENCH_CAPTURE_CONCURRENT', 12);
  const workerConcurrency = 2;
  const site = await startFixtureSite();
  const target = site.url('/simple');
  const lines: BenchLine[] = [];
  try {
    const pipeline = await measurePipeline(target, sequential, concurrent, workerConcurrency);
    const bare = await measureBare(target, sequential, concurrent, workerConcurrency);
    const counts = { sequential, concurrent, parallel: workerConcurrency, tsa: pipeline.tsa, retried429: pipeline.retried429 };
    lines.push({
      figure: 'latency ms (sequential)',
      ...counts,
      pipelineP50: round(percentile(pipeline.latencies, 50)),
      pipelineP95: round(percentile(pipeline.latencies, 95)),
      bareP50: round(percentile(bare.latencies, 50)),
      bareP95: round(percentile(bare.latencies, 95)),
      ratio: round(percentile(pipeline.latencies, 50) / percentile(bare.latencies, 50), 2),
      ratioIs: 'pipeline p50 / bare p50',
      workerRenderMsP50: pipeline.render.durationP50,
      workerSettleMsP50: pipeline.render.settleP50,
    });
    lines.push({
      figure: 'throughput captures/s',
      ...counts,
      pipelinePerSec: round(pipeline.perSec, 2),
      barePerSec: round(bare.perSec, 2),
      ratio: round(bare.perSec / pipeline.perSec, 2),
      ratioIs: 'bare / pipeline',
    });
    return lines;
  } finally {
    await site.close();
  }
}

async function measurePipeline(target: string, sequential: number, concurrent: number, workerConcurrency: number) {
  // TSA_URL '' is unset for the config: the built-in local TSA, so every bundle is v0.2.0 (timestamped).
  const server = await startTestServer({
    ROLES: 'api,projector,worker',
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    SIGNING_KEY: randomBytes(32).toString('base64'),
    TSA_URL: '',
    WORKER_CONCURRENCY: String(workerConcurrency),
    RATE_LIMIT_IP_PER_MIN: '10000000',
    RATE_LIMIT_TENANT_PER_MIN: '10000000',
  });
  try {
    const tsa = server.server.evidence.timestamper ? 'built-in local TSA (TSA_URL unset)' : 'none';
    const client = await captureClient(server.baseUrl, ADMIN_KEY, 'bench-latency');
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
    const renders = await Promise.all(ids.map(async (id) => (await httpCall(`${server.baseUrl}/v1/captures/${id}`, 'GET', {}, undefined, '127.0.0.252')).body.render));
    const render = { durationP50: round(percentile(renders.map((r) => r.durationMs), 50)), settleP50: round(percentile(renders.map((r) => r.settleMs ?? 0), 50)) };
    const ms = await timeMs(async () => {
      const ids = await Promise.all(Array.from({ length: concurrent }, () => client.submit(target)));
      // One poller, in submission order (they finish about in order): polling must not eat the CPU it measures.
      for (const id of ids) await client.waitDone(id, { timeoutMs: 120_000, pollMs: 50 });
    });
    return { tsa, latencies, render, perSec: concurrent / (ms / 1000), retried429: client.stats.retried429 };
  } finally {
    await server.stop();
  }
}

async function measureBare(target: string, sequential: number, concurrent: number, parallel: number) {
  const chromium = await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH });
  try {
    const one = () => bareCapture(chromium.browser, target);
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

async function bareCapture(browser: Browser, url: string): Promise<void> {
  // A context per capture, as the worker's pool does (two pages of one context share a window, and the
  // hidden one never renders a screenshot).
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ ...DEFAULT_VIEWPORT });
    await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
    const png = await page.screenshot({ fullPage: true });
    const html = await page.content();
    if (png.byteLength === 0 || html.length === 0) throw new Error('empty bare capture');
  } finally {
    await context.close();
  }
}
