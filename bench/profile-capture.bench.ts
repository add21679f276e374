import { loadavg } from 'node:os';
import { httpCall } from '../test/support/test-server.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import type { BenchLine } from './registry.js';
import { startStaticPages } from './support/static-pages.js';
import { withMakeRunService } from './support/make-run-service.js';
import { captureClient, envCount, percentile, round, timeMs } from './support/bench-kit.js';

/**
 * What a browser profile adds to a capture, as a client sees it (docs/profiles.md, In a capture). The service runs
 * as `make run` starts it (bench/support/make-run-service.ts); a tenant uploads a profile in Playwright's
 * storageState shape — BENCH_PROFILE_COOKIES (default 30) host-only cookies for 127.0.0.1, where the pages are
 * served, and 20 localStorage items of 1 KiB for each page's origin — then, page by page, captures the same page
 * with `options.profile` and without, alternating (with, without, with, …) so that the host's drift falls on both
 * sides alike, each timed from `POST /v1/captures` to `status: complete` (status polled every 25 ms, as the
 * capture-latency bench polls). Two kinds of page: static text (/plain.html, bench/support/static-pages.ts) and a
 * scripted tall page (the fixture site's /scripted-tall).
 *
 * Per page: p50/p90 with and without, `addedMs` (the median of the paired differences, with − without, each pair
 * taken back to back; `addedP25P75` says how far the pairs spread) and the profile step's own time from the records
 * (`render.stages.profileMs`: what opening the sealed profile and loading it added before navigation, p50/p90),
 * with the load average before and after.
 *
 * BENCH_PROFILE_PAIRS (default 15): pairs per page. BENCH_PROFILE_PAGES (default plain,scripted): the pages.
 */
const PAGE_PATHS = { plain: '/plain.html', scripted: '/scripted-tall' } as const;
type PageKind = keyof typeof PAGE_PATHS;

export async function profileCaptureBench(): Promise<BenchLine[]> {
  const pairs = envCount('BENCH_PROFILE_PAIRS', 15);
  const cookieCount = envCount('BENCH_PROFILE_COOKIES', 30);
  const kinds = (process.env.BENCH_PROFILE_PAGES?.split(',') ?? ['plain', 'scripted']) as PageKind[];
  for (const kind of kinds) if (!(kind in PAGE_PATHS)) throw new Error(`BENCH_PROFILE_PAGES: unknown page ${kind}`);
  const site = await startFixtureSite();
  const plain = await startStaticPages();
  const urlOf = (kind: PageKind) => (kind === 'plain' ? plain.url : site.url(PAGE_PATHS[kind]));
  try {
    return await withMakeRunService('profile', async ({ baseUrl }, adminKey) => {
      const client = await captureClient(baseUrl, adminKey, 'bench-profile');
      const contents = storageStateFor(
        kinds.map((kind) => new URL(urlOf(kind)).origin),
        cookieCount,
      );
      const profile = await client.call('POST', '/v1/profiles', { name: 'bench profile', contents });
      const readRecord = async (id: string) =>
        (await httpCall(`${baseUrl}/v1/captures/${id}`, 'GET', {}, undefined, '127.0.0.252')).body;
      const capture = async (url: string, withProfile: boolean) => {
        let id = '';
        const ms = await timeMs(async () => {
          id = await client.submit(url, withProfile ? { profile: profile.id } : undefined);
          await client.waitDone(id, { timeoutMs: 120_000 });
        });
        return { id, ms };
      };
      const lines: BenchLine[] = [];
      for (const kind of kinds) {
        const url = urlOf(kind);
        // Warm-up: the browser, the first bundle, the tenant's data key.
        for (const withProfile of [true, false]) await capture(url, withProfile);
        const loadBefore = loadavg()[0]!;
        const withMs: number[] = [];
        const withoutMs: number[] = [];
        const withIds: string[] = [];
        for (let i = 0; i < pairs; i++) {
          // Which side goes first alternates too, so neither always follows the other.
          const order = i % 2 === 0 ? [true, false] : [false, true];
          for (const withProfile of order) {
            const { id, ms } = await capture(url, withProfile);
            (withProfile ? withMs : withoutMs).push(ms);
            if (withProfile) withIds.push(id);
          }
        }
        const loadAfter = loadavg()[0]!;
        const records = await Promise.all(withIds.map(readRecord));
        const signedIn = records.filter((r) => r.captureSettings?.signedIn?.profile?.id === profile.id).length;
        if (signedIn !== records.length)
          throw new Error(`${signedIn} of ${records.length} captures with the profile say they were signed in`);
        const stepMs = records
          .map((r) => r.render?.stages?.profileMs)
          .filter((ms): ms is number => typeof ms === 'number');
        const added = withMs.map((ms, i) => ms - withoutMs[i]!);
        lines.push({
          figure: 'added ms of a capture with a profile, POST to complete',
          page: PAGE_PATHS[kind],
          pairs,
          profile: { cookies: cookieCount, origins: contents.origins.length, itemsPerOrigin: 20 },
          withP50: round(percentile(withMs, 50)),
          withP90: round(percentile(withMs, 90)),
          withoutP50: round(percentile(withoutMs, 50)),
          withoutP90: round(percentile(withoutMs, 90)),
          addedMs: round(percentile(added, 50)),
          addedIs: 'median of paired differences, with − without (goal ≤ 100)',
          addedP25P75: [round(percentile(added, 25)), round(percentile(added, 75))],
          profileStepP50Ms: stepMs.length > 0 ? round(percentile(stepMs, 50)) : null,
          profileStepP90Ms: stepMs.length > 0 ? round(percentile(stepMs, 90)) : null,
          profileStepIs: 'render.stages.profileMs: what opening and loading the profile added before navigation',
          loadAverage: `${loadBefore.toFixed(1)}–${loadAfter.toFixed(1)}`,
        });
      }
      return lines;
    });
  } finally {
    await site.close();
    await plain.close();
  }
}

/** A signed-in browser's state as a tenant uploads it: `cookieCount` cookies for 127.0.0.1, 20 items per origin. */
function storageStateFor(origins: string[], cookieCount: number) {
  const unique = [...new Set(origins)];
  return {
    cookies: Array.from({ length: cookieCount }, (_, i) => ({
      name: `bench_cookie_${i}`,
      value: `v${i}-${'x'.repeat(60)}`,
      domain: '127.0.0.1',
      path: '/',
      expires: Math.floor(Date.now() / 1000) + 86_400,
      httpOnly: i % 2 === 0,
      secure: false,
      sameSite: 'Lax',
    })),
    origins: unique.map((origin) => ({
      origin,
      localStorage: Array.from({ length: 20 }, (_, i) => ({ name: `bench_item_${i}`, value: 'y'.repeat(1024) })),
    })),
  };
}
