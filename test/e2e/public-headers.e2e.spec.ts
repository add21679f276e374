import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HSTS, KEY_DOCUMENT_MAX_AGE } from '../../src/api/response-headers.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Public endpoints behave like public endpoints (README, "Public endpoints"): CORS `*` on the credential-free
 * reads and only there, Cache-Control on the key documents, security headers on every answer (errors too),
 * HSTS only behind https. On the real server.
 */
describe('public endpoints: CORS, caching and security headers', () => {
  let s: TestServer;
  before(async () => {
    // A signing key so /.well-known/signing-key answers 200; TRUST_PROXY so X-Forwarded-Proto counts.
    s = await startTestServer({
      ROLES: 'api,projector,signer',
      SIGNING_KEY: Buffer.alloc(32, 7).toString('base64'),
      TRUST_PROXY: 'true',
    });
  });
  after(async () => s?.stop());

  const securityHeaders = (headers: Headers, what: string) => {
    assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
    assert.equal(headers.get('referrer-policy'), 'no-referrer', what);
    assert.equal(headers.get('x-frame-options'), 'SAMEORIGIN', what);
    assert.match(headers.get('content-security-policy') ?? '', /frame-ancestors '(self|none)'/, what);
  };

  it('every answer carries the security headers: 200, 404, 401, an unknown route', async () => {
    for (const [path, status, token] of [
      ['/health', 200, undefined],
      ['/v1/captures/cap_00000000000000000000000000', 404, undefined],
      ['/v1/captures', 401, undefined],
      ['/nowhere', 404, undefined],
      ['/v1/admin/keys', 200, ADMIN_KEY],
    ] as const) {
      const r = await s.call('GET', path, token ? { token } : {});
      assert.equal(r.status, status, `${path}: ${r.text}`);
      securityHeaders(r.headers, path);
      assert.equal(r.headers.get('strict-transport-security'), null, `${path} over plain http has no HSTS`);
    }
  });

  it('HSTS when a trusted proxy says the request came over https', async () => {
    const r = await s.call('GET', '/health', { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('strict-transport-security'), HSTS);
  });

  it('the public reads answer any origin, errors included; the key documents say how long to cache them', async () => {
    const origin = { origin: 'https://somebody-else.example' };
    for (const path of ['/.well-known/signing-key', '/.well-known/signing-keys', '/.well-known/tsa-certificates']) {
      const r = await s.call('GET', path, { headers: origin });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      assert.equal(r.headers.get('access-control-allow-origin'), '*', path);
      assert.equal(r.headers.get('cache-control'), `public, max-age=${KEY_DOCUMENT_MAX_AGE}`, path);
    }
    const unknown = 'cap_00000000000000000000000000';
    for (const path of [
      `/v1/verify/${unknown}`,
      `/v1/captures/${unknown}`,
      `/v1/captures/${unknown}/status`,
      `/v1/captures/${unknown}/certificate`,
      `/v1/captures/${unknown}/artifacts/wacz`,
    ]) {
      const r = await s.call('GET', path, { headers: origin });
      assert.equal(r.status, 404, `${path}: ${r.text}`);
      assert.equal(r.headers.get('access-control-allow-origin'), '*', path);
      assert.equal(r.headers.get('cache-control'), null, `${path}: an error is not cached`);
    }
  });

  it('authenticated and operator routes get no wildcard CORS', async () => {
    const origin = { origin: 'https://somebody-else.example' };
    for (const [path, token] of [
      ['/v1/captures', undefined],
      ['/v1/admin/keys', ADMIN_KEY],
      ['/v1/account/usage', undefined],
    ] as const) {
      const r = await s.call('GET', path, { headers: origin, ...(token ? { token } : {}) });
      assert.equal(r.headers.get('access-control-allow-origin'), null, path);
    }
  });
});
