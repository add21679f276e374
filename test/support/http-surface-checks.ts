import assert from 'node:assert/strict';
import { assertProblem } from './test-server.js';
import { rawExchange } from './raw-http.js';

/**
 * Every request gets an HTTP answer, whatever its body: a wrong method or an unknown route its 404 error body,
 * a body over the 1 MiB limit on a route that takes one its 413 — on real sockets, so a server that answers
 * and closes while the client is still sending shows up as EPIPE/ECONNRESET. Shared by the one-process
 * and the cluster tests (`baseUrl` may be the load balancer).
 */
export async function checkEveryRequestAnswered(baseUrl: string, tenantKey: string): Promise<void> {
  const sizes = [0, 70_000, 1_100_000, 2 * 1024 * 1024];
  const cases: Array<{
    method: string;
    path: string;
    expect: (size: number) => number;
    headers?: Record<string, string>;
  }> = [
    { method: 'PATCH', path: '/v1/captures/batch', expect: () => 404 },
    { method: 'DELETE', path: '/v1/captures/batch', expect: () => 404 },
    { method: 'PUT', path: '/v1/nowhere', expect: () => 404 },
    { method: 'POST', path: '/health', expect: () => 404 },
    // Credentials are checked before the body is read: 401 whatever follows.
    { method: 'POST', path: '/v1/captures/batch', expect: () => 401 },
    // A route that takes a body, with a valid key: over the 1 MiB limit 413, under it 400 (not JSON).
    {
      method: 'POST',
      path: '/v1/captures',
      expect: (size) => (size > 1024 * 1024 ? 413 : 400),
      headers: { authorization: `Bearer ${tenantKey}` },
    },
  ];
  for (const size of sizes) {
    const body = Buffer.alloc(size, 0x7b); // '{{{…': not JSON either, so a parser that ran would say 400
    for (const c of cases) {
      for (let round = 0; round < 3; round++) {
        const r = await rawExchange(baseUrl, c.method, c.path, body, c.headers);
        const what = `${c.method} ${c.path} with ${size} bytes (round ${round})`;
        assert.equal(r.error, null, `${what}: the socket failed (${r.error}) — answered ${r.status ?? 'nothing'}`);
        assert.equal(r.status, c.expect(size), `${what}: ${r.status} ${r.body.slice(0, 200)}`);
        assertProblem(JSON.parse(r.body), c.expect(size));
      }
    }
  }
}

/** The edges of the HTTP surface: a path segment too long for any resource (414), a request line over 16 KiB (431). */
export async function checkHttpEdges(baseUrl: string): Promise<void> {
  const long = await fetch(`${baseUrl}/v1/captures/${'a'.repeat(300)}`);
  assert.equal(long.status, 414);
  assertProblem(await long.json(), 414);
  const huge = await fetch(`${baseUrl}/v1/captures?url=${'a'.repeat(20_000)}`);
  assert.equal(huge.status, 431);
  assertProblem(await huge.json(), 431);
}
