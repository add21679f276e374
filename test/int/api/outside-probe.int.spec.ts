import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { makeBundle } from '../../../src/archive/bundle.js';
import { MAX_CERTIFICATE_BYTES } from '../../../src/api/routes/certificates.js';
import { MAX_BATCH_MESSAGES } from '../../../src/api/mcp/mcp-routes.js';
import { newId } from '../../../src/domain/ids.js';
import { MAX_ENVELOPE_BYTES, splitCertificate } from '../../../packages/verifier/src/index.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { completeWithBundle } from '../../support/logged-capture.js';
import { ADMIN_KEY, assertProblem, httpCall, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * An outside probe of the newer surfaces, as an attacker with a tenant key (or none) would
 * run it, against the real service (NATS, Postgres, a signer with the built-in TSA). 127.0.0.1 is allow-listed, as
 * an operator's intranet range might cover the service's own address.
 */

const TENANT_LIMIT = 30;
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('outside probe of the newer surfaces', () => {
  let s: TestServer;
  let captureId: string;
  let certificate: Buffer;
  let nextAddress = 100;
  const freshAddress = () => `127.0.0.${nextAddress++}`;
  const mkKey = async (tenantId: string, scopes: string[]) => {
    const r = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      from: freshAddress(),
      body: { tenantId, scopes, name: 'probe' },
    });
    assert.equal(r.status, 201, r.text);
    return r.body.key as string;
  };
  const rpc = (key: string, body: unknown, from = '127.0.0.1') =>
    s.call('POST', '/mcp', { token: key, body, headers: MCP_HEADERS, from });
  const upload = (pdf: Buffer) =>
    httpCall(`${s.baseUrl}/v1/verify/certificate`, 'POST', { 'content-type': 'application/pdf' }, pdf);
  const message = (id: number, method: string, params: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method,
    params,
  });

  before(async () => {
    s = await startTestServer({
      ROLES: 'api,projector,signer',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      RATE_LIMIT_TENANT_PER_MIN: String(TENANT_LIMIT),
    });
    captureId = newId('cap');
    await completeWithBundle(
      s.server,
      'probe',
      captureId,
      (await makeBundle(sampleCapture({ captureId }), s.server.evidence.notary!))!,
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await s.call('GET', `/v1/captures/${captureId}/certificate`);
      if (r.status === 200) {
        certificate = r.raw;
        break;
      }
      if (Date.now() > deadline) throw new Error(`no certificate: ${r.status} ${r.text}`);
      await sleep(200);
    }
  });
  after(async () => s?.stop());

  describe('§2 POST /v1/verify/certificate', () => {
    it('a real certificate is far below the body limit, and still verifies', async (t) => {
      const envelope = splitCertificate(certificate).envelopeJson.length;
      t.diagnostic(
        `certificate ${certificate.length} bytes, its attachment ${envelope} bytes; limits ${MAX_CERTIFICATE_BYTES} and ${MAX_ENVELOPE_BYTES}`,
      );
      assert.ok(certificate.length * 3 < MAX_CERTIFICATE_BYTES);
      assert.ok(envelope * 3 < MAX_ENVELOPE_BYTES);
      const r = await upload(certificate);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.verified, true, r.text);
    });

    it('refuses a body over the limit with 413 naming the limit, and an attachment of nested brackets as a failed envelope', async () => {
      const big = Buffer.concat([certificate, Buffer.alloc(MAX_CERTIFICATE_BYTES, 0x5b)]);
      const r = await upload(big);
      assert.equal(r.status, 413);
      assertProblem(r.body, 413);
      assert.equal(r.body.detail, `The request body is larger than ${MAX_CERTIFICATE_BYTES / 1024 / 1024} MiB.`);
      // The JSON endpoints keep their 1 MiB, and say so.
      const json = await s.call('POST', '/v1/captures', {
        token: await mkKey('big-body', ['capture']),
        body: `{"url":"${'a'.repeat(1024 * 1024)}"}`,
      });
      assert.equal(json.status, 413);
      assert.equal(json.body.detail, 'The request body is larger than 1 MiB.');

      const { document } = splitCertificate(certificate);
      const nested = Buffer.alloc(200 * 1024, 0x5b);
      const update = Buffer.concat([
        Buffer.from(
          `%capture-ledger certificate signature v1\n999 0 obj\n<<\n/Type /EmbeddedFile\n/Subtype /application#2Fjson\n/Length ${nested.length}\n>>\nstream\n`,
          'latin1',
        ),
        nested,
      ]);
      const hostile = await upload(Buffer.concat([document, update]));
      assert.equal(hostile.status, 200, hostile.text);
      assert.equal(hostile.body.verified, false);
      assert.match(hostile.body.checks[0].detail, /at most 65536/);
    });

    it('answers a browser preflight, so a page of any origin can upload a PDF', async () => {
      const r = await s.call('OPTIONS', '/v1/verify/certificate', {
        headers: {
          origin: 'https://elsewhere.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      assert.equal(r.status, 204);
      assert.equal(r.headers.get('access-control-allow-origin'), '*');
      assert.match(r.headers.get('access-control-allow-methods') ?? '', /POST/);
      assert.match(r.headers.get('access-control-allow-headers') ?? '', /content-type/i);
    });
  });

  describe('§3 MCP', () => {
    it('charges every JSON-RPC message a tenant token: after REST is refused, tools/list and ping are refused too', async () => {
      const key = await mkKey('mcp-spent', ['read']);
      let rest = await s.call('GET', '/v1/captures', { token: key });
      while (rest.status !== 429) rest = await s.call('GET', '/v1/captures', { token: key });
      for (const method of ['tools/list', 'ping']) {
        const r = await rpc(key, message(1, method));
        assert.equal(r.status, 429, `${method}: ${r.text}`);
        assert.equal(r.body.error.data.limitType, 'tenant');
        assert.ok(Number(r.headers.get('retry-after')) >= 1);
      }
    });

    it('a batch costs one token per message and carries at most MAX_BATCH_MESSAGES', async () => {
      const key = await mkKey('mcp-batch', ['read']);
      const batch = (n: number) => Array.from({ length: n }, (_, i) => message(i + 1, i % 2 ? 'ping' : 'tools/list'));
      const tooMany = await rpc(key, batch(MAX_BATCH_MESSAGES + 1));
      assert.equal(tooMany.status, 400, tooMany.text);
      assert.equal(tooMany.body.error.code, -32600);
      assertProblem(tooMany.body.error.data, 400);
      for (let spent = 0; spent + MAX_BATCH_MESSAGES <= TENANT_LIMIT; spent += MAX_BATCH_MESSAGES) {
        const r = await rpc(key, batch(MAX_BATCH_MESSAGES));
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.length, MAX_BATCH_MESSAGES);
      }
      assert.equal((await rpc(key, message(1, 'ping'))).status, 429);
    });

    it('tools/call without a name is InvalidParams (-32602), not an internal error', async () => {
      const key = await mkKey('mcp-params', ['read']);
      const r = await rpc(key, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: {} });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.id, 5);
      assert.equal(r.body.error.code, -32602);
    });
  });

  describe('§4 the admin credential', () => {
    for (const [method, path, body] of [
      ['GET', '/v1/admin/usage?tenant=probe', undefined],
      ['PUT', '/v1/admin/tenants/probe/config', { quotas: {} }],
      ['GET', `/v1/admin/webhooks/whk_${'0'.repeat(32)}/deliveries`, undefined],
    ] as const) {
      it(`${method} ${path.split('?')[0]}: 5 failed credentials per minute from an address, then 429 before the credential is compared`, async () => {
        const from = freshAddress();
        for (let i = 0; i < 5; i++) {
          const r = await s.call(method, path, { token: `wrong-admin-key-${i}`, from, ...(body ? { body } : {}) });
          assert.equal(r.status, 401, r.text);
        }
        const refused = await s.call(method, path, { token: ADMIN_KEY, from, ...(body ? { body } : {}) });
        assert.equal(refused.status, 429, refused.text);
        assertProblem(refused.body, 429);
        assert.ok(Number(refused.headers.get('retry-after')) >= 1);
        // Another address with the right credential is not affected, however often it asks.
        const other = freshAddress();
        for (let i = 0; i < 7; i++)
          assert.notEqual(
            (await s.call(method, path, { token: ADMIN_KEY, from: other, ...(body ? { body } : {}) })).status,
            429,
          );
      });
    }
  });

  describe('§5 no unbounded echo', () => {
    it('MCP get_capture refuses an id no URL could carry with the 400 of the schema, not a 404 quoting it twice', async () => {
      const key = await mkKey('mcp-echo', ['read']);
      const id = `cap_${'a'.repeat(900 * 1024)}`;
      const r = await rpc(key, message(1, 'tools/call', { name: 'get_capture', arguments: { captureId: id } }));
      assert.equal(r.status, 200);
      assert.ok(r.raw.length < 4096, `${r.raw.length} bytes answered`);
      const body = JSON.parse(r.body.result.content[1].text);
      assert.equal(body.status, 400);
      assert.match(body.detail, /params\.captureId: must be at most 100 characters/);
    });
  });

  describe('second probe: odd ids, MCP at the door, one admin limit, the TSA, safe diff reads', () => {
    it('answers 404 for an id no store key can hold on every route that takes one, never a 500', async () => {
      const doc = (await s.call('GET', '/openapi.json')).body as {
        paths: Record<string, Record<string, unknown>>;
      };
      const keys = [await mkKey('odd-ids-1', ['capture', 'read']), await mkKey('odd-ids-2', ['capture', 'read'])];
      let asked = 0;
      for (const [template, item] of Object.entries(doc.paths)) {
        const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
        const ids = params.filter((p) => ['captureId', 'scheduleId', 'webhookId', 'keyHash', 'tenantId'].includes(p));
        if (ids.length === 0) continue;
        for (const method of Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
          const path = template.replace(/\{(\w+)\}/g, (_, p: string) => (ids.includes(p) ? '%00' : 'html'));
          const query = template.includes('/diff') ? `?base=${captureId}` : '';
          const admin = template.startsWith('/v1/admin/');
          const r = await s.call(method.toUpperCase(), `${path}${query}`, {
            token: admin ? ADMIN_KEY : keys[asked++ % keys.length]!,
            from: freshAddress(),
            ...(['post', 'put', 'patch'].includes(method) ? { body: {} } : {}),
          });
          const where = `${method.toUpperCase()} ${template}: ${r.text}`;
          assert.ok(r.status < 500, where);
          // A tenant id names a tenant only when its config is read (404); writes and the retention routes check it
          // as a field (400).
          if (!ids.includes('tenantId') || (template.endsWith('/config') && method === 'get')) {
            assert.equal(r.status, 404, where);
            assertProblem(r.body, 404);
          }
        }
      }
      assert.ok(asked >= 15, `${asked} tenant routes with ids asked`);
      for (const odd of ['cap_a%20b', 'cap_..', 'cap_a.b', '%E2%98%83', 'cap_%0A']) {
        const r = await s.call('GET', `/v1/captures/${odd}/corroboration`, { token: keys[0]!, from: freshAddress() });
        assert.equal(r.status, 404, `${odd}: ${r.text}`);
        assert.equal(r.body.detail, 'No capture has this id.');
      }
      // Ids in a query reach Postgres, whose text holds no NUL: refused, or naming nothing, before it is asked.
      const bySchedule = await s.call('GET', '/v1/captures?schedule_id=%00', { token: keys[0]!, from: freshAddress() });
      assert.equal(bySchedule.status, 400, bySchedule.text);
      assert.match(bySchedule.body.detail, /schedule_id: must be a schedule id/);
      const byUrl = await s.call('GET', '/v1/captures?url=http%00', { token: keys[1]!, from: freshAddress() });
      assert.equal(byUrl.status, 400, byUrl.text);
      const keysOf = await s.call('GET', '/v1/admin/keys?tenant=%00', { token: ADMIN_KEY, from: freshAddress() });
      assert.equal(keysOf.status, 200, keysOf.text);
      assert.deepEqual(keysOf.body.data, []);
      // MCP takes the same schemas: the tool's error body is the 404, not an internal error.
      const mcp = await rpc(
        await mkKey('odd-ids-mcp', ['read']),
        message(1, 'tools/call', { name: 'get_capture', arguments: { captureId: 'cap_\u0000' } }),
      );
      assert.equal(mcp.status, 200, mcp.text);
      assert.equal(mcp.body.result.isError, true);
      assert.equal(JSON.parse(mcp.body.result.content[1].text).status, 404);
    });

    it('an MCP tools/call whose params fail validation pays its token at the door like any message', async () => {
      const key = await mkKey('mcp-bad-params', ['read']);
      const bad = (i: number) =>
        message(i, 'tools/call', { name: 'get_capture', arguments: 'not an object', _meta: 'nor this' });
      const statuses: number[] = [];
      for (let post = 0; post < 6 && statuses.at(-1) !== 429; post++)
        statuses.push(
          (
            await rpc(
              key,
              Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => bad(i + 1)),
            )
          ).status,
        );
      // 30 tokens a minute: three batches of ten (the SDK refuses their params), then refused at the door.
      assert.equal(statuses.length, 4, statuses.join(' '));
      assert.ok(
        statuses.slice(0, 3).every((st) => st !== 429),
        statuses.join(' '),
      );
      assert.equal(statuses[3], 429);
    });

    it('counts failed admin credentials once: guesses on the key endpoints and on other routes add up to 5 a minute', async () => {
      const from = freshAddress();
      for (let i = 0; i < 3; i++)
        assert.equal((await s.call('GET', '/v1/admin/keys', { token: `wrong-${i}`, from })).status, 401);
      for (let i = 0; i < 2; i++)
        assert.equal(
          (await s.call('GET', '/v1/admin/usage?tenant=probe', { token: `wrong-more-${i}`, from })).status,
          401,
        );
      const refused = await s.call('GET', '/v1/admin/usage?tenant=probe', { token: ADMIN_KEY, from });
      assert.equal(refused.status, 429, refused.text);
      assert.match(refused.body.detail, /failed admin credentials/);
      assert.equal((await s.call('GET', '/v1/admin/keys', { token: ADMIN_KEY, from })).status, 429);
    });

    it("refuses the built-in TSA's listener as a capture target, and names the TSA by its published CA, not that address", async () => {
      const [tsa] = s.server.evidence.listeners;
      assert.ok(tsa, 'the signer runs the built-in TSA here');
      const key = await mkKey('tsa-target', ['capture']);
      const r = await s.call('POST', '/v1/captures', {
        token: key,
        body: { url: `http://127.0.0.1:${tsa.port}/` },
        from: freshAddress(),
      });
      assert.equal(r.status, 422, r.text);
      assert.match(r.body.detail, /this service's own address/);
      const verified = await s.call('GET', `/v1/verify/${captureId}`, { from: freshAddress() });
      assert.equal(verified.status, 200, verified.text);
      const named = verified.body.signing.timestamp.tsa as string;
      assert.equal(named, `${s.server.ctx.config.PUBLIC_BASE_URL}/.well-known/tsa-certificates`);
      assert.ok(!named.includes(`:${tsa.port}`), named);
    });
  });

  describe('§6 smaller findings', () => {
    it("refuses the service's own address as a capture target although the allow-list covers it", async () => {
      const key = await mkKey('own-address', ['capture']);
      const port = new URL(s.baseUrl).port;
      const r = await s.call('POST', '/v1/captures', { token: key, body: { url: `http://127.0.0.1:${port}/metrics` } });
      assert.equal(r.status, 422, r.text);
      assert.match(r.body.detail, /this service's own address/);
      const named = await s.call('POST', '/v1/captures', {
        token: key,
        body: { url: `http://localhost:${port}/metrics` },
      });
      assert.equal(named.status, 422, named.text);
    });

    it('answers Vary: Accept where JSON or HTML is negotiated, and X-Frame-Options DENY beside frame-ancestors none', async () => {
      for (const path of [
        `/v1/verify/${captureId}`,
        `/v1/captures/${captureId}/provenance`,
        `/v1/verify/cap_${'0'.repeat(32)}`,
      ]) {
        const r = await s.call('GET', path);
        assert.match(r.headers.get('vary') ?? '', /\bAccept\b/, path);
      }
      const page = await s.call('GET', `/v1/verify/${captureId}`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.equal((await s.call('GET', '/health')).headers.get('x-frame-options'), 'SAMEORIGIN');
    });
  });
});
