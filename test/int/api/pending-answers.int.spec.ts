import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PENDING_RETRY_AFTER_S } from '../../../src/domain/errors.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * A capture still running answers "wait", which a client or an agent can tell from "gone". Spec 4.9 keeps
 * its 404 for verify (the detail says pending); the certificate (ours) and the MCP tools answer 409 with the status and
 * Retry-After. No worker runs here, so a submitted capture stays pending.
 */
describe('a pending capture on verify, certificate and MCP', () => {
  let s: TestServer;
  let key: string;
  let pendingId: string;
  const unknownId = `cap_${'0'.repeat(26)}`;

  before(async () => {
    s = await startTestServer({ ALLOW_PRIVATE_TARGETS: '127.0.0.1/32' });
    const k = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'waiting', scopes: ['capture', 'read'], name: 'pending answers' },
    });
    assert.equal(k.status, 201, k.text);
    key = k.body.key;
    const sub = await s.call('POST', '/v1/captures', { token: key, body: { url: 'http://127.0.0.1:9/never' } });
    assert.equal(sub.status, 202, sub.text);
    pendingId = sub.body.id;
    const deadline = Date.now() + 30_000;
    while ((await s.call('GET', `/v1/captures/${pendingId}/status`)).status !== 200) {
      assert.ok(Date.now() < deadline, 'the capture never reached the projection');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => s?.stop());

  it('verify keeps the spec 404, says the capture is still pending and when to ask again', async () => {
    const r = await s.call('GET', `/v1/verify/${pendingId}`, { headers: { accept: 'application/json' } });
    assertProblem(r.body, 404);
    assert.match(r.body.detail, /still pending/);
    assert.equal(r.headers.get('retry-after'), String(PENDING_RETRY_AFTER_S));
    const unknown = await s.call('GET', `/v1/verify/${unknownId}`, { headers: { accept: 'application/json' } });
    assertProblem(unknown.body, 404);
    assert.doesNotMatch(unknown.body.detail, /pending/);
  });

  it('the certificate answers 409 with captureStatus pending and Retry-After; an unknown capture stays 404', async () => {
    const r = await s.call('GET', `/v1/captures/${pendingId}/certificate`);
    assertProblem(r.body, 409);
    assert.equal(r.body.captureStatus, 'pending');
    assert.match(r.body.detail, /still pending/);
    assert.equal(r.headers.get('retry-after'), String(PENDING_RETRY_AFTER_S));
    assertProblem((await s.call('GET', `/v1/captures/${unknownId}/certificate`)).body, 404);
  });

  it('the MCP tools say pending with retryAfter, not unknown', async () => {
    const call = async (name: string) => {
      const r = await s.call('POST', '/mcp', {
        token: key,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { captureId: pendingId } } },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.result.isError, true, r.text);
      return JSON.parse(r.body.result.content[1].text);
    };
    const certificate = await call('get_certificate');
    assert.equal(certificate.status, 409);
    assert.equal(certificate.captureStatus, 'pending');
    assert.match(certificate.detail, /still pending/);
    assert.equal(certificate.retryAfter, String(PENDING_RETRY_AFTER_S));
    const verify = await call('verify_capture');
    assert.equal(verify.status, 404);
    assert.match(verify.detail, /still pending/);
  });
});
