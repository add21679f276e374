import { launchChromium } from '../src/capture/browser-launch.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { withMakeRunService } from './support/make-run-service.js';
import { bareCapture } from './capture-latency.bench.js';
import type { BenchLine } from './registry.js';
import { httpCall } from '../test/support/test-server.js';
import { captureClient, envCount, round } from './support/bench-kit.js';
import { watchTreeCpu } from './support/process-cpu.js';
import { startStaticPages } from './support/static-pages.js';

/**
 * The part wall clocks cannot show on a shared host: CPU time per capture, the service's
 * against bare puppeteer's on the same page. Two at a time on two cores is CPU-bound, so every
 * CPU-millisecond a capture spends beyond bare's is throughput lost. The service runs as in
 * BENCH=capture-latency (its own process, `make run`'s defaults, a client polling status every 25 ms);
 * its whole process tree is counted: the service's node process, its Chromium by process type, its
 * nats-server and Postgres. Bare: Chromium's processes only (its puppeteer client is in the bench process,
 * beside the fixture site and the sampling).
 *
 * BENCH_CPU_CAPTURES (default 10): sequential captures per page and side, after two warm-ups.
 * BENCH_CPU_PAGES (default /simple,/article): the pages measured — the fixture site's, and /plain.html (the plain
 * static page of bench/support/static-pages.ts, BENCH=capture-latency's black-box page).
 * BENCH_CPU_POLLS (default 200): status polls measured.
 * BENCH_CPU_SERVICE_ONLY: the service's captures only (no bare side, no idle or poll figures).
 * BENCH_CPU_PROF (a directory): the service's node process writes a V8 CPU profile there at exit.
 */
const PAGES = (process.env.BENCH_CPU_PAGES?.split(',') ?? ['/simple', '/article']) as readonly string[];
const POLLS = envCount('BENCH_CPU_POLLS', 200);

export async function captureCpuBench(): Promise<BenchLine[]> {
  const count = envCount('BENCH_CPU_CAPTURES', 10);
  const fixtures = await startFixtureSite();
  const plain = await startStaticPages();
  const site = { url: (path: string) => (path === '/plain.html' ? plain.url : fixtures.url(path)) };
  const lines: BenchLine[] = [];
  try {
    const service = await serviceCpu(site, count);
    const bare = process.env.BENCH_CPU_SERVICE_ONLY ? {} : await bareCpu(site, count);
    for (const path of PAGES) {
      const ours = service[path]!;
      const theirs = bare[path] ?? {};
      const chromium = (figures: Record<string, number>) => sum(figures, (kind) => kind.startsWith('chromium'));
      lines.push({
        figure: 'CPU ms per capture (sequential)',
        page: path,
        captures: count,
        serviceNode: round(ours.root ?? 0),
        serviceChromium: round(chromium(ours)),
        serviceOther: round(
          sum(ours, (kind) => kind !== 'root' && !kind.startsWith('chromium') && !kind.startsWith('thread:')),
        ),
        serviceTotal: round(sum(ours, (kind) => !kind.startsWith('thread:'))),
        bareChromium: round(chromium(theirs)),
        ratio: round(sum(ours, (kind) => !kind.startsWith('thread:')) / chromium(theirs), 2),
        ratioIs: 'service tree / bare Chromium, CPU per capture',
        service: roundAll(ours),
        bare: roundAll(theirs),
      });
    }
    if (process.env.BENCH_CPU_SERVICE_ONLY) return lines;
    const idle = service.idle!;
    lines.push({
      figure: 'CPU ms per second, idle',
      serviceNode: round(idle.root ?? 0, 1),
      serviceTotal: round(
        sum(idle, (kind) => !kind.startsWith('thread:')),
        1,
      ),
      service: roundAll(idle),
    });
    const poll = service.poll!;
    lines.push({
      figure: 'CPU ms per status poll (one every 25 ms)',
      polls: POLLS,
      serviceNode: round(poll.root ?? 0, 2),
      serviceTotal: round(
        sum(poll, (kind) => !kind.startsWith('thread:')),
        2,
      ),
      service: roundAll(poll),
    });
    return lines;
  } finally {
    await fixtures.close();
    await plain.close();
  }
}

type Pages = { url(path: string): string };

async function serviceCpu(site: Pages, count: number): Promise<Record<string, Record<string, number>>> {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return withMakeRunService(
    'cpu',
    async (service, adminKey) => {
      const client = await captureClient(service.baseUrl, adminKey, 'bench-cpu');
      const one = async (url: string) => client.waitDone(await client.submit(url), { timeoutMs: 120_000 });
      const out: Record<string, Record<string, number>> = {};
      for (const path of PAGES) {
        await one(site.url(path));
        await one(site.url(path));
        out[path] = await perCapture(service.child.pid!, count, () => one(site.url(path)));
      }
      if (process.env.BENCH_CPU_SERVICE_ONLY) return out;
      // What the service spends with nothing to do (background loops), per second.
      out.idle = await perCapture(service.child.pid!, 10, () => new Promise((resolve) => setTimeout(resolve, 1000)));
      // What one status poll costs (a client polling every 25 ms asks ~40 times during a capture).
      const id = await client.submit(site.url('/simple'));
      await client.waitDone(id, { timeoutMs: 120_000 });
      out.poll = await perCapture(service.child.pid!, POLLS, async () => {
        await httpCall(`${service.baseUrl}/v1/captures/${id}/status`, 'GET', {}, undefined, '127.0.0.2');
        await new Promise((resolve) => setTimeout(resolve, 25));
      });
      return out;
    },
    profile,
  );
}

async function bareCpu(site: Pages, count: number): Promise<Record<string, Record<string, number>>> {
  const chromium = await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH });
  try {
    const out: Record<string, Record<string, number>> = {};
    for (const path of PAGES) {
      const one = () => bareCapture(chromium.browser, site.url(path));
      await one();
      await one();
      out[path] = await perCapture(chromium.pid!, count, one, 'chromium:browser');
    }
    return out;
  } finally {
    await chromium.close();
  }
}

/** CPU ms per capture of each kind of process in the tree under `root`, over `count` sequential captures. */
async function perCapture(
  root: number,
  count: number,
  one: () => Promise<unknown>,
  rootKind = 'root',
): Promise<Record<string, number>> {
  const watch = await watchTreeCpu(root, { rootKind, threads: rootKind === 'root' });
  for (let i = 0; i < count; i++) await one();
  // The last capture's context closes after its outcome; let its processes finish.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const spent = await watch.stop();
  return Object.fromEntries(Object.entries(spent).map(([kind, ms]) => [kind, ms / count]));
}

function sum(figures: Record<string, number>, take: (kind: string) => boolean): number {
  return Object.entries(figures).reduce((total, [kind, ms]) => total + (take(kind) ? ms : 0), 0);
}

function roundAll(figures: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(figures)
      .filter(([, ms]) => ms >= 0.05)
      .map(([kind, ms]) => [kind, round(ms)]),
  );
}
