import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  captureWithService,
  checkCase,
  fidelityCases,
  type FidelityCase,
  type FidelityObservation,
} from '../support/fidelity-cases.js';
import { startFidelitySite, type FidelitySite } from '../support/fidelity-site.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The fidelity suite through the whole service: each hard page kind of test/support/fidelity-site.ts
 * captured by POST /v1/captures, and its expectation on the PNG, the rendered HTML and the WACZ's WARC records
 * checked. The comparison with bare puppeteer is BENCH=fidelity. The captures run one after another (as in the
 * bench) and each is checked as it finishes.
 */
describe('fidelity: hard pages through the service', () => {
  let s: TestServer;
  let site: FidelitySite;
  let cases: FidelityCase[];
  const observations = new Map<string, Promise<FidelityObservation>>();

  before(async () => {
    site = await startFidelitySite();
    s = await startTestServer({
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32,127.0.0.3/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: 'none',
      WORKER_CONCURRENCY: '1',
      RATE_LIMIT_IP_PER_MIN: '100000',
    });
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'fidelity', scopes: ['capture'], name: 'fidelity e2e' },
    });
    assert.equal(created.status, 201, created.text);
    cases = fidelityCases(site);
    // One capture at a time, each polled alone: a busy machine is not made busier by the test itself.
    let previous: Promise<unknown> = Promise.resolve();
    for (const c of cases) {
      const observed = previous.then(() => captureWithService(s, created.body.key, site.url(c.path), 300_000));
      observed.catch(() => {}); // awaited by its test
      previous = observed.catch(() => {});
      observations.set(c.name, observed);
    }
  });
  after(async () => {
    await s?.stop();
    await site?.close();
  });

  it('has at least 16 kinds of page', () => {
    assert.ok(cases.length >= 16, `${cases.length} cases`);
  });

  for (const c of fidelityCases({ origin: '', crossOrigin: '', url: (p) => p, close: async () => {} })) {
    it(`${c.name}: ${c.kind}`, async () => {
      const real = cases.find((x) => x.name === c.name)!;
      const observed = await observations.get(c.name)!;
      const expectation = real.underLoad ? { ...real, ...real.underLoad } : real;
      assert.deepEqual(checkCase(site, expectation, observed), []);
    });
  }

  it('records a 404 subresource and says when a body is missing (WARC-Truncated), never a record passed off as complete', async () => {
    const observed = await observations.get('huge-image-beside-404')!;
    const missing = observed.responses.filter((r) => r.url === site.url('/f/missing.png'));
    assert.equal(missing.length, 1, JSON.stringify(observed.responses));
    assert.equal(missing[0]!.status, 404);
    for (const r of observed.responses)
      assert.ok(
        r.truncated === undefined || ['length', 'time', 'disconnect', 'unspecified'].includes(r.truncated),
        JSON.stringify(r),
      );
  });
});
