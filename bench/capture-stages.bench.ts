import { loadavg } from 'node:os';
import { launchChromium } from '../src/capture/browser-launch.js';
import { capturePage, type PageCaptureResult } from '../src/capture/page-capture.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import type { BenchLine } from './registry.js';
import { envCount, percentile, round, timeMs } from './support/bench-kit.js';
import { bareCapture } from './capture-latency.bench.js';

/**
 * Where one capture's render time goes, page by page: the capture engine (`capturePage`, as the worker runs
 * it, default options, consent handling on) in the bench process against one Chromium, a warm-up and then
 * BENCH_STAGES_CAPTURES (default 7) sequential captures of each page; the p50 of each of the record's render
 * stages (spec 2.3 `render.stages`), of `render.durationMs` (navigation start to the screenshot), and what one
 * capture's behaviors and consent detection found and cost (captureSettings.behaviors, consentDetection).
 * No service, no bundle: the figure is the render alone. The baseline, alternated with it on the same browser:
 * bare puppeteer's `goto(networkidle0)`, full-page screenshot and `content()` in a new context (`bareP50Ms`),
 * against capturePage's whole time (`captureP50Ms`, its context opened in it too).
 *
 * BENCH_STAGES_PAGES (default /scripted-tall): fixture-site paths (test/support/fixture-site.ts).
 */
export async function captureStagesBench(): Promise<BenchLine[]> {
  const count = envCount('BENCH_STAGES_CAPTURES', 7);
  const pages = process.env.BENCH_STAGES_PAGES?.split(',') ?? ['/scripted-tall'];
  const site = await startFixtureSite();
  const chromium = await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH });
  const lines: BenchLine[] = [];
  try {
    for (const path of pages) {
      const capture = () => capturePage(chromium.browser, site.url(path), { timeoutMs: 30_000 });
      await capture();
      await bareCapture(chromium.browser, site.url(path));
      const results: PageCaptureResult[] = [];
      const captureMs: number[] = [];
      const bareMs: number[] = [];
      const loadBefore = loadavg()[0]!;
      for (let i = 0; i < count; i++) {
        captureMs.push(await timeMs(async () => results.push(await capture())));
        bareMs.push(await timeMs(() => bareCapture(chromium.browser, site.url(path))));
      }
      const p50 = (pick: (r: PageCaptureResult) => number | undefined) =>
        round(
          percentile(
            results.map((r) => pick(r) ?? 0),
            50,
          ),
        );
      const stages = Object.keys(results[0]!.render.stages) as Array<keyof PageCaptureResult['render']['stages']>;
      const last = results.at(-1)!;
      lines.push({
        figure: 'render stages p50 ms, capturePage (default options)',
        page: path,
        captures: count,
        captureP50Ms: round(percentile(captureMs, 50)),
        bareP50Ms: round(percentile(bareMs, 50)),
        ratio: round(percentile(captureMs, 50) / percentile(bareMs, 50), 2),
        durationMs: p50((r) => r.render.durationMs),
        ...Object.fromEntries(stages.map((stage) => [stage, p50((r) => r.render.stages[stage])])),
        behaviors: last.behaviors?.ran.map((r) => ({ name: r.name, ms: r.ms, found: r.found, did: r.did })),
        consent: last.consent ? `${last.consent.cmp ?? 'none'}: ${last.consent.result}` : 'off',
        consentDetection: last.consentDetection,
        loadAverage: `${loadBefore.toFixed(1)}–${loadavg()[0]!.toFixed(1)}`,
      });
    }
    return lines;
  } finally {
    await chromium.close();
    await site.close();
  }
}
