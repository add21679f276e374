/**
 * Watch lists (docs/watch.md): the time to diff two captures of a 1280 × 20,000 px page (goal: p50 ≤ 2 s)
 * and the memory it takes. What is timed is diffCaptures as GET /v1/captures/{id}/diff runs it — both PNGs
 * decoded, pixels compared band by band, the visible text of two 2,000-paragraph pages diffed, headers — against
 * the baseline of only decoding the two PNGs, the floor any pixel diff pays. The diff image (diff.png) is timed
 * apart. BENCH_DIFF_RUNS (default 5), BENCH_DIFF_HEIGHT (default 20000).
 */
import { loadavg } from 'node:os';
import { PNG } from 'pngjs';
import { type CaptureSide, diffCaptures } from '../src/watch/capture-diff.js';
import { decodePng, diffImage, encodePng } from '../src/watch/diff-image.js';
import { NO_DIFF_OPTIONS } from '../src/watch/diff-options.js';
import type { BenchLine } from './registry.js';
import { envCount, mb, percentile, round, timeMs } from './support/bench-kit.js';

const WIDTH = 1280;

/** A page-like screenshot: white, grey "text lines" every 24 px, a coloured block every 1,000 px; `edits` changes a few. */
function screenshot(height: number, edits: boolean): Uint8Array {
  const png = new PNG({ width: WIDTH, height });
  const d = png.data;
  d.fill(255);
  for (let y = 0; y < height; y++) {
    const line = y % 24 < 14 && y % 24 > 2;
    const block = y % 1000 < 300;
    for (let x = 0; x < WIDTH; x++) {
      const p = (y * WIDTH + x) * 4;
      if (block && x > 100 && x < 700) {
        d[p] = (y / 1000) % 2 ? 40 : 200;
        d[p + 1] = 90;
        d[p + 2] = 160;
      } else if (line && x > 80 && x < 1200 && (x * 7 + y) % 11 < 6) {
        d[p] = d[p + 1] = d[p + 2] = 60;
      }
      if (edits && ((y > 5000 && y < 5200 && x > 200 && x < 900) || (y > 15000 && y < 15040 && x > 80 && x < 600)))
        d[p] = 255 - d[p]!;
    }
  }
  return new Uint8Array(PNG.sync.write(png));
}

function html(paragraphs: number, edited: boolean): string {
  const body = Array.from(
    { length: paragraphs },
    (_, i) => `<p>Paragraph ${i} of the page, ${edited && i % 400 === 7 ? 'rewritten' : 'as it was'} today.</p>`,
  ).join('\n');
  return `<!doctype html><html><head><title>t</title></head><body><h1>Tall page</h1>${body}</body></html>`;
}

export async function diffBench(): Promise<BenchLine[]> {
  const runs = envCount('BENCH_DIFF_RUNS', 5);
  const height = envCount('BENCH_DIFF_HEIGHT', 20_000);
  const rssBefore = process.memoryUsage().rss;
  const side = (id: string, edited: boolean): CaptureSide => ({
    captureId: id,
    url: 'https://example.org/tall',
    completedAt: new Date().toISOString(),
    bundleHash: null,
    html: html(2000, edited),
    headers: { 'content-type': 'text/html', date: new Date().toUTCString() },
    screenshot: screenshot(height, edited),
    wacz: null,
  });
  const base = side('cap_base', false);
  const next = side('cap_next', true);

  const decodeMs: number[] = [];
  const diffMs: number[] = [];
  const diffCpuMs: number[] = [];
  let changedRatio = 0;
  let regions = 0;
  for (let i = 0; i < runs; i++) {
    decodeMs.push(
      await timeMs(async () => {
        decodePng(base.screenshot!);
        decodePng(next.screenshot!);
      }),
    );
    const cpu = process.cpuUsage();
    diffMs.push(
      await timeMs(async () => {
        const d = await diffCaptures(base, next, NO_DIFF_OPTIONS);
        changedRatio = d.screenshot!.changedRatio;
        regions = d.screenshot!.regionCount;
      }),
    );
    const used = process.cpuUsage(cpu);
    diffCpuMs.push((used.user + used.system) / 1000);
  }
  let pngBytes = 0;
  const imageMs = await timeMs(async () => {
    pngBytes = encodePng(diffImage(decodePng(base.screenshot!), decodePng(next.screenshot!))).byteLength;
  });
  const p50 = percentile(diffMs, 50);
  return [
    {
      page: `${WIDTH}x${height}`,
      runs,
      diffP50Ms: round(p50),
      diffMaxMs: round(Math.max(...diffMs)),
      // CPU time of the diff: what it costs whatever else the machine runs (wall time counts the waiting too).
      diffCpuP50Ms: round(percentile(diffCpuMs, 50)),
      goalP50Ms: 2000,
      loadAverage1m: round(loadavg()[0]!, 1),
      baselineDecodeP50Ms: round(percentile(decodeMs, 50)),
      ratio: round(p50 / percentile(decodeMs, 50), 2),
      diffImageMs: round(imageMs),
      diffImageMb: mb(pngBytes),
      changedRatio: round(changedRatio, 5),
      regions,
      rssBeforeMb: mb(rssBefore),
      peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    },
  ];
}
