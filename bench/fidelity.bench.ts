import { randomBytes } from 'node:crypto';
import { launchChromium } from '../src/capture/browser-launch.js';
import {
  captureWithBarePuppeteer,
  captureWithService,
  checkCase,
  fidelityCases,
  type FidelityObservation,
} from '../test/support/fidelity-cases.js';
import { startFidelitySite } from '../test/support/fidelity-site.js';
import { ADMIN_KEY, startTestServer } from '../test/support/test-server.js';
import type { BenchLine } from './registry.js';

/**
 * The fidelity suite (test/support/fidelity-cases.ts, pages of test/support/fidelity-site.ts),
 * each case captured once through the whole service (POST /v1/captures; PNG, HTML and the WACZ's WARC
 * records as a tenant gets them) and once by bare puppeteer in the same run (goto networkidle0, full-page
 * screenshot, content(); the responses it saw stand in for WARC records). One line per case with pass/fail
 * and what was missed, then the two scores. BENCH_FIDELITY_CASES: comma-separated case names to run.
 */
export async function fidelityBench(): Promise<BenchLine[]> {
  const site = await startFidelitySite();
  const only = (process.env.BENCH_FIDELITY_CASES ?? '').split(',').filter(Boolean);
  const cases = fidelityCases(site).filter((c) => only.length === 0 || only.includes(c.name));
  const service = new Map<string, { problems: string[]; ms: number }>();
  const bare = new Map<string, { problems: string[]; ms: number }>();
  try {
    const server = await startTestServer({
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32,127.0.0.3/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      WORKER_CONCURRENCY: '1',
      RATE_LIMIT_IP_PER_MIN: '10000000',
      RATE_LIMIT_TENANT_PER_MIN: '10000000',
    });
    try {
      const created = await server.call('POST', '/v1/admin/keys', {
        token: ADMIN_KEY,
        body: { tenantId: 'fidelity', scopes: ['capture'], name: 'fidelity bench' },
      });
      if (created.status !== 201) throw new Error(`key: ${created.status} ${created.text}`);
      for (const c of cases) {
        const started = performance.now();
        const observed = await captureWithService(server, created.body.key, site.url(c.path)).catch(
          (error: unknown): FidelityObservation => ({ failed: `harness: ${String(error)}`, responses: [] }),
        );
        service.set(c.name, { problems: checkCase(site, c, observed), ms: Math.round(performance.now() - started) });
      }
    } finally {
      await server.stop();
    }
    // Bare puppeteer as puppeteer.launch() starts it: automation switch on (navigator.webdriver true).
    const chromium = await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH, asAutomatedBrowser: true });
    try {
      for (const c of cases) {
        const started = performance.now();
        const observed = await captureWithBarePuppeteer(chromium.browser, site.url(c.path));
        bare.set(c.name, { problems: checkCase(site, c, observed), ms: Math.round(performance.now() - started) });
      }
    } finally {
      await chromium.close();
    }
  } finally {
    await site.close();
  }
  const lines: BenchLine[] = cases.map((c) => {
    const s = service.get(c.name)!;
    const b = bare.get(c.name)!;
    return {
      figure: 'fidelity case',
      case: c.name,
      kind: c.kind,
      service: s.problems.length === 0 ? 'pass' : 'fail',
      bare: b.problems.length === 0 ? 'pass' : 'fail',
      serviceMs: s.ms,
      bareMs: b.ms,
      ...(s.problems.length ? { serviceMissed: s.problems } : {}),
      ...(b.problems.length ? { bareMissed: b.problems } : {}),
    };
  });
  const passed = (m: Map<string, { problems: string[] }>) =>
    [...m.values()].filter((r) => r.problems.length === 0).length;
  lines.push({
    figure: 'fidelity score',
    cases: cases.length,
    service: passed(service),
    bare: passed(bare),
    baselineIs: 'bare puppeteer: goto networkidle0, full-page screenshot, content(); responses it saw as WARC records',
  });
  return lines;
}
