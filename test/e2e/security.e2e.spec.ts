import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkHttpEdges } from '../support/http-surface-checks.js';
import { assertProblem, startTestServer, type TestServer } from '../support/test-server.js';

/** Edges of the HTTP surface: every answer is the spec's error body; /metrics is not public. */
describe('HTTP surface hardening', () => {
  let s: TestServer;
  const METRICS_TOKEN = 'metrics-token-0123456789';
  before(async () => {
    s = await startTestServer({ METRICS_TOKEN });
  });
  after(async () => s?.stop());

  it('answers a path segment too long for any resource with 414, a request line over 16 KiB with 431, in the spec error body', async () => {
    await checkHttpEdges(s.baseUrl);
  });

  it('answers a large body sent to a path without that method instead of resetting the connection', async () => {
    const body = Buffer.alloc(5 * 1024 * 1024, 0x61);
    for (const [method, path] of [
      ['POST', '/health'],
      ['PUT', '/nowhere'],
    ] as const) {
      const r = await fetch(`${s.baseUrl}${path}`, { method, body, headers: { 'content-type': 'application/json' } });
      assert.ok([404, 405, 413].includes(r.status), `${method} ${path}: ${r.status}`);
      assertProblem(await r.json(), r.status);
    }
  });

  it('serves /metrics only with METRICS_TOKEN when one is set', async () => {
    const bare = await fetch(`${s.baseUrl}/metrics`);
    assert.equal(bare.status, 401);
    assertProblem(await bare.json(), 401);
    const wrong = await fetch(`${s.baseUrl}/metrics`, { headers: { authorization: 'Bearer not-the-token-000000' } });
    assert.equal(wrong.status, 401);
    await wrong.arrayBuffer();
    const ok = await fetch(`${s.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /capture_ledger_/);
  });
});
