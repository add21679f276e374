import { loadavg } from 'node:os';
import { launchChromium } from '../src/capture/browser-launch.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { withMakeRunService } from './support/make-run-service.js';
import { bareCapture } from './capture-latency.bench.js';
import type { BenchLine } from './registry.js';
import { httpCall } from '../test/support/test-server.js';
import { captureClient, envCount, round, sleep } from './support/bench-kit.js';
import { watchTreeCpu } from './support/process-cpu.js';
import { startStaticPages } from './support/static-pages.js';

/**
 * The part wall clocks cannot show on a shared host: CPU time per capture, the service's
 * against bare puppeteer's on the same page. Two at a time on two cores is CPU-bound, so every
 * CPU-millisecond a capture spends beyond bare's is throughput lost. The service runs as in
 * BENCH=capture-latency (its own process, `make run`'s defaults), and the client polls status once a second
 * (POLL_MS), as a black-box script does; its whole process tree is counted for the whole of each capture, from
 * the POST to the poll that sees it complete: the service's node process, its Chromium by process type, its
 * nats-server and Postgres. Bare: Chromium's processes only (its puppeteer client is in the bench process,
 * beside the fixture site and the sampling).
 *
 * BENCH_CPU_CAPTURES (default 10): sequential captures per page and side, after two warm-ups.
 * BENCH_CPU_PAGES (default /plain.html,/simple,/article): the pages measured — /plain.html (the plain static page of
 * bench/support/static-pages.ts, the black-box page) and the fixture site's.
 * BENCH_CPU_POLLS (default 100): status polls measured back to back, for the CPU of one.
 * BENCH_CPU_SERVICE_ONLY: the service's captures only (no bare side, no idle or poll figures).
 * BENCH_CPU_PROF (a directory): the service's node process writes a V8 CPU profile there at exit.
 */
const PAGES = (process.env.BENCH_CPU_PAGES?.split(',') ?? ['/plain.html', '/simple', '/article']) as readonly string[];
const POLLS = envCount('BENCH_CPU_POLLS', 100);
/** How often the client polls a capture's status: once a second, as a black-box client does. */
const POLL_MS = 1000;

export async function captureCpuBench(): Promise<BenchLine[]> {
  const count = envCount('BENCH_CPU_CAPTURES', 10);
  const fixtures = await startFixtureSite();
  const plain = await startStaticPages();
  const site = { url: (path: string) => (path === '/plain.html' ? plain.url : fixtures.url(path)) };
  const lines: BenchLine[] = [];
  try {
    const measured = await measure(site, count);
    for (const path of PAGES) {
      const { service: ours, bare: theirs = {}, load, polls } = measured.pages[path]!;
      const chromium = (figures: Record<string, number>) => sum(figures, (kind) => kind.startsWith('chromium'));
      lines.push({
        figure: 'CPU ms per capture (sequential)',
        page: path,
        captures: count,
        pollsPerCapture: round(polls, 1),
        serviceNode: round(ours.root ?? 0),
        serviceChromium: round(chromium(ours)),
        serviceOther: round(
          sum(ours, (kind) => kind !== 'root' && !kind.startsWith('chromium') && !kind.startsWith('thread:')),
        ),
        serviceTotal: round(sum(ours, (kind) => !kind.startsWith('thread:'))),
        bareChromium: round(chromium(theirs)),
        ratio: round(sum(ours, (kind) => !kind.startsWith('thread:')) / chromium(theirs), 2),
        ratioIs: 'service tree / bare Chromium, CPU per capture',
        loadAverage: load,
        service: roundAll(ours),
        bare: roundAll(theirs),
      });
    }
    if (process.env.BENCH_CPU_SERVICE_ONLY) return lines;
    const idle = measured.idle!;
    lines.push({
      figure: 'CPU ms per second, idle',
      serviceNode: round(idle.root ?? 0, 1),
      serviceTotal: round(
        sum(idle, (kind) => !kind.startsWith('thread:')),
        1,
      ),
      service: roundAll(idle),
    });
    const poll = measured.poll!;
    lines.push({
      figure: 'CPU ms per status poll',
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
type Figures = Record<string, number>;
interface Measured {
  /** Per page: CPU ms per capture by kind of process, the load average over its captures, status polls per capture. */
  pages: Record<string, { service: Figures; bare?: Figures; load: string; polls: number }>;
  idle?: Figures;
  poll?: Figures;
}

/** Each page's service side, then its bare side right after, with the service still up (as a black-box run has them). */
async function measure(site: Pages, count: number): Promise<Measured> {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const bare = process.env.BENCH_CPU_SERVICE_ONLY
    ? null
    : await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH });
  try {
    return await withMakeRunService(
      'cpu',
      async (service, adminKey) => {
        const client = await captureClient(service.baseUrl, adminKey, 'bench-cpu');
        let polls = 0;
        const one = async (url: string) => {
          const id = await client.submit(url);
          await client.waitDone(id, { timeoutMs: 600_000, pollMs: POLL_MS, onPoll: () => polls++ });
        };
        const out: Measured = { pages: {} };
        for (const path of PAGES) {
          const loadBefore = loadavg()[0]!;
          await one(site.url(path));
          await one(site.url(path));
          polls = 0;
          const ours = await perCapture(service.child.pid!, count, () => one(site.url(path)));
          const pollsPerCapture = polls / count;
          let theirs: Figures | undefined;
          if (bare) {
            const bareOne = () => bareCapture(bare.browser, site.url(path));
            await bareOne();
            await bareOne();
            theirs = await perCapture(bare.pid!, count, bareOne, 'chromium:browser');
          }
          const load = `${loadBefore.toFixed(1)}–${loadavg()[0]!.toFixed(1)}`;
          out.pages[path] = { service: ours, bare: theirs, load, polls: pollsPerCapture };
          // Each page's figures as soon as they are known: a long run stopped later keeps them.
          process.stderr.write(`capture-cpu ${path}: ${JSON.stringify(out.pages[path])}\n`);
        }
        if (process.env.BENCH_CPU_SERVICE_ONLY) return out;
        // What the service spends with nothing to do (background loops), per second.
        out.idle = await perCapture(service.child.pid!, 10, () => sleep(1000));
        // What one status poll costs (the client asks about once a second of a capture, and once more at its end).
        const id = await client.submit(site.url(PAGES[0]!));
        await client.waitDone(id, { timeoutMs: 600_000, pollMs: POLL_MS });
        out.poll = await perCapture(service.child.pid!, POLLS, () =>
          httpCall(`${service.baseUrl}/v1/captures/${id}/status`, 'GET', {}, undefined, '127.0.0.2'),
        );
        return out;
      },
      profile,
    );
  } finally {
    await bare?.close();
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
  await sleep(300);
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
