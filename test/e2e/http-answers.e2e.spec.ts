import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkEveryRequestAnswered } from '../support/http-surface-checks.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';

describe('every request gets an HTTP answer (one process)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s?.stop());

  it('answers wrong methods, unknown routes and oversized bodies with the error body, never a reset', async () => {
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'answers', scopes: ['capture', 'read'], name: 'answers' },
    });
    assert.equal(created.status, 201, created.text);
    await checkEveryRequestAnswered(s.baseUrl, created.body.key);
  });
});
