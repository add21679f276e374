import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openApiApp } from '../../support/openapi-document.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The console's serving (docs/console.md): the same HTML shell at /console and every page path under it, with a
 * strict CSP and no inline script or style; the script and stylesheet built by esbuild from src/console/, served
 * with their content types and a strong ETag that answers 304; paths the console does not own are not the shell.
 */
describe('console serving', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.stop();
  });

  const directives = (csp: string) =>
    new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...values]) => [name!, values.join(' ')]),
    );

  for (const path of [
    '/console',
    '/console/',
    '/console/captures',
    '/console/captures/cap_0123',
    '/console/operator/keys',
  ]) {
    it(`${path} answers the shell with a strict CSP`, async () => {
      const r = await s.call('GET', path);
      assert.equal(r.status, 200, r.text);
      assert.match(r.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
      const csp = directives(r.headers.get('content-security-policy') ?? '');
      assert.equal(csp.get('default-src'), "'self'");
      assert.equal(csp.get('script-src'), "'self'");
      assert.equal(csp.get('style-src'), "'self'");
      assert.equal(csp.get('img-src'), "'self' data: blob:");
      assert.equal(csp.get('connect-src'), "'self'");
      assert.equal(csp.get('frame-ancestors'), "'none'");
      assert.equal(csp.get('base-uri'), "'none'");
      assert.equal(csp.get('form-action'), "'self'");
      const frameSrc = csp.get('frame-src') ?? '';
      assert.match(frameSrc, /^https?:\/\/[^\s/]+$/, 'frames from the replay origin only');
      assert.notEqual(new URL(frameSrc).origin, new URL(s.baseUrl).origin, 'the replay origin is another origin');
      assert.equal(r.headers.get('x-frame-options'), 'DENY');
      // Nothing inline: no script body, no style element, no style attribute, no event-handler attribute.
      assert.doesNotMatch(r.text, /<script(?![^>]*\bsrc=)[^>]*>/i);
      assert.doesNotMatch(r.text, /<style\b/i);
      assert.doesNotMatch(r.text, /\sstyle=/i);
      assert.doesNotMatch(r.text, /\son[a-z]+=/i);
      assert.match(r.text, /<script type="module" src="\/console\/assets\/console\.js"><\/script>/);
      assert.match(r.text, /<link rel="stylesheet" href="\/console\/assets\/console\.css">/);
      assert.match(r.text, new RegExp(`<meta name="replay-origin" content="${frameSrc.replace(/[.:/]/g, '\\$&')}">`));
      assert.match(r.text, /<main id="main"/);
      assert.match(r.text, /<nav id="nav"/);
    });
  }

  for (const [path, name, type, marker] of [
    ['/console/assets/console.js', 'JavaScript', /^application\/javascript; charset=utf-8/, /\/console\/session/],
    ['/console/assets/console.css', 'CSS', /^text\/css; charset=utf-8/, /\.skip-link/],
  ] as const) {
    it(`${path} is built, served as ${name}, and revalidates with its ETag`, async () => {
      const r = await s.call('GET', path);
      assert.equal(r.status, 200, r.text.slice(0, 500));
      assert.match(r.headers.get('content-type') ?? '', type);
      assert.match(r.text, marker);
      const etag = r.headers.get('etag') ?? '';
      assert.match(etag, /^"[0-9a-f]{64}"$/, 'a strong validator');
      assert.equal(r.headers.get('cache-control'), 'no-cache');
      const again = await s.call('GET', path, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal(again.raw.length, 0);
      const stale = await s.call('GET', path, { headers: { 'if-none-match': '"0"' } });
      assert.equal(stale.status, 200);
      assert.equal(stale.headers.get('etag'), etag, 'the same bytes on every request');
    });
  }

  it('the script uses no eval and sends no Authorization header (the session cookie authenticates)', async () => {
    const js = (await s.call('GET', '/console/assets/console.js')).text;
    assert.doesNotMatch(js, /\beval\(|new Function\(/);
    assert.doesNotMatch(js, /Authorization/);
    assert.doesNotMatch(js, /localStorage|sessionStorage/);
    assert.match(js, /X-CSRF-Token/);
  });

  it('paths the console does not own are not the shell', async () => {
    for (const path of ['/console/assets/other.js', '/console/assets/']) {
      const r = await s.call('GET', path);
      assert.equal(r.status, 404, path);
      assert.equal(r.body?.status, 404, `${path}: the spec's error body`);
    }
    // /console/session belongs to the sign-in routes: whatever answers it, it is never the console's HTML.
    const session = await s.call('GET', '/console/session');
    assert.doesNotMatch(session.headers.get('content-type') ?? '', /text\/html/);
  });

  it('the console pages are not operations of the OpenAPI document (its sign-in routes are)', async () => {
    const doc = (await s.call('GET', '/openapi.json')).body;
    const consolePaths = Object.keys(doc.paths).filter((p) => p.startsWith('/console'));
    assert.ok(consolePaths.includes('/console/session'));
    assert.deepEqual(
      consolePaths.filter((p) => !/^\/console\/(session|oidc)(\/|$)/.test(p)),
      [],
      'no page or asset path is documented as an operation',
    );
  });

  it("every operation the service documents is in the document the console's types are rendered from", async () => {
    // src/console/openapi-types.ts is rendered from openApiApp's document (ops/openapi/console-api-types.ts).
    const live = (await s.call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const { app, doc } = await openApiApp();
    await app.close();
    for (const [path, item] of Object.entries(live.paths))
      for (const [method, op] of Object.entries(item))
        assert.deepEqual(
          (doc.paths[path] as Record<string, unknown> | undefined)?.[method],
          op,
          `${method.toUpperCase()} ${path}: register its route plugin in test/support/openapi-document.ts`,
        );
  });
});
