import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type FixtureSite, startFixtureSite } from '../../support/fixture-site.js';
import {
  answerChecker,
  type Exchange,
  matchOperation,
  type OpenApiDoc,
  type Operation,
  operationName,
  operations,
  structuralProblems,
} from '../../support/openapi-check.js';
import { ADMIN_KEY, type CallResult, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The OpenAPI document against the real service: every documented operation is exercised —
 * success and error answers — and every real answer must have a status its operation documents, a content
 * type documented for that status, and (for JSON) a body that validates against the documented schema.
 * Real nats-server, Postgres and a Chromium worker; all traffic stays on loopback.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const UNKNOWN_CAPTURE = `cap_${'0'.repeat(32)}`;
const ORIGIN = 'https://app.example';

describe('OpenAPI document against the real service', () => {
  let s: TestServer;
  let site: FixtureSite;
  let doc: OpenApiDoc;
  const exchanges: Exchange[] = [];
  /** The key endpoints allow 5 requests per minute per address: each group of calls comes from its own. */
  let nextAddress = 10;
  const freshAddress = () => `127.0.0.${nextAddress++}`;

  type CallOptions = Parameters<TestServer['call']>[2];
  async function call(method: string, url: string, opts: CallOptions = {}): Promise<CallResult> {
    const r = await s.call(method, url, opts);
    exchanges.push({
      method,
      url,
      status: r.status,
      contentType: r.headers.get('content-type'),
      body: r.body,
      raw: r.raw,
    });
    return r;
  }
  const admin = (method: string, url: string, opts: CallOptions = {}) =>
    call(method, url, { token: ADMIN_KEY, from: freshAddress(), ...opts });
  async function tenantKey(tenantId: string, scopes: string[]): Promise<string> {
    const r = await admin('POST', '/v1/admin/keys', {
      body: { tenantId, scopes, name: `${tenantId} ${scopes.join(' ')}` },
    });
    assert.equal(r.status, 201, r.text);
    return r.body.key;
  }

  let key: string;
  let readKey: string;
  let captureId: string;

  before(async () => {
    site = await startFixtureSite();
    s = await startTestServer({
      ROLES: 'api,projector,worker,sequencer',
      LOG_CHECKPOINT_INTERVAL_MS: '500',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      CAPTURE_TIMEOUT_MS: '8000',
      WORKER_CONCURRENCY: '1',
      BATCH_MAX: '3',
      CORS_ORIGINS: ORIGIN,
      RATE_LIMIT_IP_PER_MIN: '300',
    });
    const d = await s.call('GET', '/openapi.json');
    assert.equal(d.status, 200);
    doc = d.body;
    key = await tenantKey('oas', ['capture']);
    readKey = await tenantKey('oas', ['read']);
    // One complete capture with every artifact (pdf asked for) and a signed, timestamped bundle.
    const submitted = await call('POST', '/v1/captures', {
      token: key,
      body: { url: site.url('/simple'), options: { pdf: true } },
    });
    assert.equal(submitted.status, 202, submitted.text);
    captureId = submitted.body.id;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const st = await s.call('GET', `/v1/captures/${captureId}/status`, { from: '127.0.0.2' });
      if (st.body.status === 'complete') break;
      assert.notEqual(st.body.status, 'failed', st.text);
      if (Date.now() > deadline) throw new Error(`capture ${captureId} still pending`);
      await sleep(300);
    }
  });
  after(async () => {
    await s?.stop();
    await site?.close();
  });

  it('documents every operation structurally (2xx, descriptions, the error body)', () => {
    assert.deepEqual(structuralProblems(doc), []);
  });

  it('answers health, keys and signing keys as documented', async () => {
    await call('GET', '/health');
    // Key endpoints: created, listed, revoked, refused.
    const extra = await admin('POST', '/v1/admin/keys', {
      body: { tenantId: 'oas', scopes: ['read'], name: 'to revoke' },
    });
    await admin('GET', '/v1/admin/keys?tenant=oas&include=revoked');
    await admin('GET', '/v1/admin/keys?include=all');
    await admin('DELETE', `/v1/admin/keys/${extra.body.keyHash}`);
    await admin('DELETE', `/v1/admin/keys/${'f'.repeat(64)}`);
    await admin('POST', '/v1/admin/keys', { body: { tenantId: 'Not Valid', scopes: [], name: '' } });
    await admin('POST', '/v1/admin/keys', { body: 'tenantId=x', headers: { 'content-type': 'text/plain' } });
    await admin('GET', '/v1/admin/keys', { token: 'not-the-admin-key' });
    const from = freshAddress();
    for (let i = 0; i < 6; i++) await call('GET', '/v1/admin/keys', { token: ADMIN_KEY, from });
    assert.equal(exchanges.at(-1)!.status, 429);
    await call('GET', '/.well-known/signing-key');
    await call('GET', '/.well-known/signing-keys');
    await call('GET', '/.well-known/tsa-certificates');
  });

  it('answers the capture endpoints as documented', async () => {
    await call('POST', '/v1/captures', { token: key, body: { url: 'ftp://example.com/' } });
    await call('POST', '/v1/captures', {
      token: key,
      body: { url: site.url('/simple'), options: { delayMs: 10_000_000 } },
    });
    await call('POST', '/v1/captures', { token: key, body: { url: 'http://10.0.0.1/' } });
    await call('POST', '/v1/captures', { body: { url: site.url('/simple') } });
    await call('POST', '/v1/captures', { token: readKey, body: { url: site.url('/simple') } });
    await call('POST', '/v1/captures', { token: key, body: 'url=x', headers: { 'content-type': 'text/plain' } });
    await call('POST', '/v1/captures', { token: key, body: { url: 'x'.repeat(1024 * 1024 + 10) } });
    await call('OPTIONS', '/v1/captures', { headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    await call('OPTIONS', '/v1/captures', {
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    // A batch whose items are all refused (nothing more for the worker): 207 with error bodies.
    const batch = await call('POST', '/v1/captures/batch', {
      token: key,
      body: { urls: [{ url: 'http://10.0.0.1/' }, { nope: 1 }, 'x'] },
    });
    assert.equal(batch.status, 207, batch.text);
    await call('POST', '/v1/captures/batch', { token: key, body: { urls: [] } });
    await call('POST', '/v1/captures/batch', {
      token: key,
      body: { urls: [{ url: 'a' }, { url: 'b' }, { url: 'c' }, { url: 'd' }] },
    });
    await call('GET', '/v1/captures', { token: readKey });
    await call('GET', '/v1/captures?status=complete&sort=created_at&limit=500', { token: readKey });
    await call('GET', '/v1/captures?limit=0', { token: readKey });
    await call('GET', '/v1/captures', { token: 'svc_live_unknown' });
    await call('GET', `/v1/captures/${captureId}/status`);
    await call('GET', `/v1/captures/${UNKNOWN_CAPTURE}/status`);
    await call('GET', `/v1/captures/${captureId}`);
    await call('GET', `/v1/captures/${UNKNOWN_CAPTURE}`);
    for (const name of ['screenshot', 'html', 'headers', 'pdf', 'wacz'])
      await call('GET', `/v1/captures/${captureId}/artifacts/${name}`);
    await call('GET', `/v1/captures/${captureId}/pdf`);
    // Captured without recordSession: the extension's documented 404.
    await call('GET', `/v1/captures/${captureId}/session`);
    await call('GET', `/v1/captures/${captureId}/artifacts/wacz`, { headers: { range: 'bytes=0-99' } });
    await call('GET', `/v1/captures/${captureId}/artifacts/wacz`, { headers: { range: 'bytes=999999999-' } });
    await call('GET', `/v1/captures/${captureId}/artifacts/screenshot-before`);
    await call('GET', `/v1/captures/${captureId}/artifacts/passwords`);
    await call('GET', `/v1/captures/${captureId}/provenance`);
    await call('GET', `/v1/captures/${captureId}/provenance`, { headers: { accept: 'text/html' } });
    await call('GET', `/v1/captures/${UNKNOWN_CAPTURE}/provenance`);
    await call('GET', `/v1/verify/${captureId}`);
    await call('GET', `/v1/verify/${captureId}`, { headers: { accept: 'text/html' } });
    await call('GET', `/v1/verify/${UNKNOWN_CAPTURE}`);
    await call('GET', `/v1/captures/${captureId}/certificate`);
    await call('GET', `/v1/captures/${UNKNOWN_CAPTURE}/certificate`);
    await call('POST', '/v1/verify/certificate', {
      body: '%PDF-1.3 not a certificate',
      headers: { 'content-type': 'application/pdf' },
    });
    await call('POST', '/v1/verify/certificate', { body: '', headers: { 'content-type': 'application/pdf' } });
    // The per-address limit of unauthenticated endpoints (RATE_LIMIT_IP_PER_MIN=300).
    const from = freshAddress();
    for (let i = 0; i < 301; i++) await s.call('GET', '/v1/captures/nonsense/status', { from });
    await call('GET', '/v1/captures/nonsense/status', { from });
    assert.equal(exchanges.at(-1)!.status, 429);
  });

  it('answers the transparency log endpoints as documented', async () => {
    // The capture's leaf under a published checkpoint (the sequencer runs in this server).
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await s.call('GET', `/v1/log/proof/inclusion?captureId=${captureId}`, { from: '127.0.0.3' });
      if (r.status === 200) break;
      if (Date.now() > deadline) throw new Error(`no inclusion proof for ${captureId}: ${r.text}`);
      await sleep(300);
    }
    await call('GET', '/v1/log/checkpoint');
    await call('GET', '/v1/log/checkpoint.json');
    await call('GET', '/v1/log/key');
    await call('GET', '/v1/log/witnesses');
    // The tile path as a generated client sends the documented `{path}` parameter: its slashes encoded.
    const tile = async (path: string) => {
      const r = await call('GET', `/v1/log/tile/${encodeURIComponent(path)}`);
      const plain = await s.call('GET', `/v1/log/tile/${path}`);
      assert.equal(r.status, plain.status, `${path}: the encoded and the plain tile path answer alike`);
      assert.deepEqual(r.raw, plain.raw, path);
      return r;
    };
    assert.equal((await tile('0/000.p/1')).status, 200);
    assert.equal((await tile('entries/000.p/1')).status, 200);
    assert.equal((await tile('0/x001/000')).status, 404);
    assert.equal((await tile('0/1')).status, 400);
    await call('GET', `/v1/log/proof/inclusion?captureId=${captureId}`);
    await call('GET', '/v1/log/proof/inclusion?leafIndex=0&treeSize=1');
    await call('GET', `/v1/log/proof/inclusion?captureId=${UNKNOWN_CAPTURE}`);
    await call('GET', '/v1/log/proof/inclusion?leafIndex=-1');
    await call('GET', '/v1/log/proof/consistency?first=1');
    await call('GET', '/v1/log/proof/consistency?first=1&second=999999');
    await call('GET', '/v1/log/proof/consistency');
  });

  it('answers the console OpenID Connect endpoints as documented (no provider configured here)', async () => {
    const providers = await call('GET', '/console/oidc/providers', { from: freshAddress() });
    assert.deepEqual(providers.body, { data: [] });
    for (const step of ['start', 'callback']) {
      const r = await call('GET', `/console/oidc/unknown/${step}`, { from: freshAddress() });
      assert.equal(r.status, 303, r.text);
      assert.equal(r.headers.get('location'), '/console/sign-in?error=oidc_unknown_provider');
    }
  });

  it('answers quota refusals with the documented error body', async () => {
    const token = await tenantKey('oas-quota', ['capture']);
    await admin('PUT', '/v1/admin/tenants/oas-quota/config', { body: { quotas: { capturesPerMonth: 0 } } });
    const single = await call('POST', '/v1/captures', { token, body: { url: site.url('/simple') } });
    assert.equal(single.body.limitType, 'quota');
    const batch = await call('POST', '/v1/captures/batch', {
      token,
      body: { urls: [{ url: site.url('/simple') }, { url: site.url('/simple') }] },
    });
    assert.equal(batch.body.quota.requested, 2);
  });

  it('answers schedules, usage and tenant configuration as documented', async () => {
    const created = await call('POST', '/v1/schedules', {
      token: key,
      body: { url: site.url('/simple'), name: 'weekly', cron: '0 6 * * 1', options: { fullPage: false } },
    });
    assert.equal(created.status, 201, created.text);
    await call('POST', '/v1/schedules', {
      token: key,
      body: { url: site.url('/simple'), name: 'too often', cron: '*/5 * * * *' },
    });
    await call('POST', '/v1/schedules', {
      token: key,
      body: { url: 'http://10.0.0.1/', name: 'private', cron: '0 6 * * 1' },
    });
    await call('POST', '/v1/schedules', { token: key, body: 'x', headers: { 'content-type': 'text/plain' } });
    await call('GET', '/v1/schedules', { token: readKey });
    await call('GET', `/v1/schedules/${created.body.id}`, { token: readKey });
    await call('GET', `/v1/schedules/sch_${'0'.repeat(32)}`, { token: readKey });
    await call('DELETE', `/v1/schedules/${created.body.id}`, { token: readKey });
    await call('DELETE', `/v1/schedules/${created.body.id}`, { token: key });
    await call('DELETE', `/v1/schedules/${created.body.id}`, { token: key });
    // The starter tier's active-schedule maximum (limitType 'schedules').
    const limited = await tenantKey('oas-schedules', ['capture']);
    for (let i = 0; i < 10 && exchanges.at(-1)?.status !== 429; i++) {
      await call('POST', '/v1/schedules', {
        token: limited,
        body: { url: site.url('/simple'), name: `run ${i}`, cron: '0 6 * * 1' },
      });
    }
    assert.equal(exchanges.at(-1)!.status, 429);

    await call('GET', '/v1/schedules/preview?cron=0%206%20*%20*%201', { token: readKey });
    await call('GET', '/v1/schedules/preview?cron=*/5%20*%20*%20*%20*', { token: readKey });

    await call('GET', '/v1/account/usage', { token: readKey });
    await call('GET', '/v1/account/usage');
    await call('GET', '/v1/account/usage/daily', { token: readKey });
    await call('GET', '/v1/account/usage/daily?period=2026-13', { token: readKey });
    await admin('GET', '/v1/admin/tenants?limit=2');
    await admin('GET', '/v1/admin/tenants?limit=0');
    await admin('GET', '/v1/admin/capacity');
    await admin('GET', '/v1/admin/checks');
    await admin('POST', '/v1/admin/checks/log-monitor');
    await admin('GET', '/v1/admin/webhooks/dead-letters?limit=5');
    await admin('GET', '/v1/admin/webhooks/dead-letters?tenant=oas&cursor=bm90LWEtY3Vyc29y');
    await admin('GET', '/v1/admin/reports/captures-per-day');
    await admin('GET', '/v1/admin/reports/failures-by-reason?format=csv');
    await admin('GET', '/v1/admin/reports/capture-latency?from=2024-02-30');
    await admin('GET', '/v1/admin/reports/nope');
    await admin('GET', '/v1/admin/usage?tenant=oas');
    await admin('GET', '/v1/admin/usage?tenant=oas&period=2020-01');
    await admin('GET', '/v1/admin/usage?tenant=oas&period=2026-13');
    await admin('GET', '/v1/admin/usage');
    await admin('GET', '/v1/admin/usage?tenant=nobody-here');
    await admin('GET', '/v1/admin/usage?tenant=oas', { token: 'wrong' });
    await admin('GET', '/v1/admin/tenants/oas/config');
    await admin('GET', '/v1/admin/tenants/nobody-here/config');
    await admin('PUT', '/v1/admin/tenants/oas/config', {
      body: { quotas: { capturesPerMonth: 1000, storageBytes: null }, tier: 'pro' },
    });
    await admin('PUT', '/v1/admin/tenants/oas/config', { body: { quotas: { capturesPerMonth: -1 } } });
    await admin('PUT', '/v1/admin/tenants/Bad%20Id/config', { body: {} });
    await admin('PUT', '/v1/admin/tenants/oas/config', { body: 'x', headers: { 'content-type': 'text/plain' } });
  });

  it('answers the webhook endpoints as documented', async () => {
    const token = await tenantKey('oas-webhooks', ['capture']);
    // Nothing listens there: the ping answers 200 with success false.
    const hook = (i: number) => ({
      url: `https://127.0.0.1:9/hook-${i}`,
      events: ['capture.complete'],
      name: `hook ${i}`,
    });
    const first = await call('POST', '/v1/webhooks', { token, body: hook(0) });
    assert.equal(first.status, 201, first.text);
    for (let i = 1; i < 5; i++) await call('POST', '/v1/webhooks', { token, body: hook(i) });
    await call('POST', '/v1/webhooks', { token, body: hook(5) });
    assert.equal(exchanges.at(-1)!.status, 409);
    await call('POST', '/v1/webhooks', { token, body: { url: 'http://127.0.0.1/plain', events: [], name: '' } });
    await call('POST', '/v1/webhooks', { token: readKey, body: hook(6) });
    await call('GET', '/v1/webhooks', { token });
    await call('GET', '/v1/webhooks');
    await call('POST', `/v1/webhooks/${first.body.id}/ping`, { token });
    await call('POST', `/v1/webhooks/whk_${'0'.repeat(32)}/ping`, { token });
    await admin('GET', `/v1/admin/webhooks/${first.body.id}/deliveries`);
    await admin('GET', `/v1/admin/webhooks/${first.body.id}/deliveries?limit=0`);
    await admin('GET', `/v1/admin/webhooks/whk_${'0'.repeat(32)}/deliveries`);
    await call('GET', `/v1/webhooks/${first.body.id}/deliveries`, { token });
    await call('GET', `/v1/webhooks/${first.body.id}/deliveries?limit=0`, { token });
    await call('GET', `/v1/webhooks/whk_${'0'.repeat(32)}/deliveries`, { token });
    await call('DELETE', `/v1/webhooks/${first.body.id}`, { token });
    await call('DELETE', `/v1/webhooks/${first.body.id}`, { token });
  });

  it('refuses credentials, media types and body sizes on every operation documenting them', async () => {
    // Refusals that come before any handler, so a placeholder for each path parameter will do.
    const adminOnly = await tenantKey('oas-admin-scope', ['admin']);
    const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x_placeholder');
    for (const o of operations(doc)) {
      const statuses = Object.keys(o.op.responses ?? {});
      const operator = (o.op.tags as string[] | undefined)?.includes('admin') ?? false;
      const url = concrete(o.path);
      const from = freshAddress();
      const withBody = (extra: CallOptions = {}) => ({ from, body: {}, ...extra });
      if (statuses.includes('401')) await call(o.method, url, { from, token: 'svc_live_not-a-key' });
      if (statuses.includes('403') && !operator)
        await call(o.method, url, { from, token: adminOnly, headers: { origin: 'https://elsewhere.example' } });
      const token = operator ? ADMIN_KEY : key;
      if (statuses.includes('415'))
        await call(o.method, url, withBody({ token, body: 'x', headers: { 'content-type': 'text/plain' } }));
      if (statuses.includes('413'))
        await call(o.method, url, withBody({ token, body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }) }));
    }
  });

  /** One request to another instance of the service (same NATS and Postgres), recorded like the others. */
  async function callOn(other: TestServer, o: Operation, opts: CallOptions): Promise<number> {
    const url = o.path.replace(/\{[^}]+\}/g, 'x_placeholder');
    const r = await other.call(o.method, url, { ...opts, ...(['POST', 'PUT'].includes(o.method) ? { body: {} } : {}) });
    exchanges.push({
      method: o.method,
      url,
      status: r.status,
      contentType: r.headers.get('content-type'),
      body: r.body,
      raw: r.raw,
    });
    return r.status;
  }
  const isOperator = (o: Operation) => (o.op.tags as string[] | undefined)?.includes('admin') ?? false;
  const documents = (o: Operation, status: number) => Object.keys(o.op.responses ?? {}).includes(String(status));

  it('answers 503 on every operator endpoint when the admin API is not configured', async () => {
    const unconfigured = await startTestServer(
      { ADMIN_KEY: '', ROLES: 'api' },
      { infra: s.infra, databaseUrl: s.databaseUrl },
    );
    try {
      for (const o of operations(doc).filter((op) => isOperator(op) && documents(op, 503))) {
        assert.equal(await callOn(unconfigured, o, { token: 'anything', from: freshAddress() }), 503, operationName(o));
      }
    } finally {
      await unconfigured.stop();
    }
  });

  it('answers 429 on every endpoint documenting a rate limit, once the limit is reached', async () => {
    // The same tenant keys against an instance allowing one request a minute per tenant and per address.
    const limited = await startTestServer(
      { ROLES: 'api', RATE_LIMIT_TENANT_PER_MIN: '1', RATE_LIMIT_IP_PER_MIN: '1' },
      { infra: s.infra, databaseUrl: s.databaseUrl },
    );
    try {
      for (const o of operations(doc).filter((op) => documents(op, 429))) {
        // The operator's valid key is limited on the key endpoints only (spec 4.11); elsewhere its 429 is the
        // operator limit on failed credentials (spec 8.1: the per-address limit is for unauthenticated requests).
        const operatorKey = o.path.startsWith('/v1/admin/keys') ? ADMIN_KEY : 'not-the-admin-key';
        const opts = { token: isOperator(o) ? operatorKey : key, from: freshAddress() };
        let status = 0;
        // The key endpoints have their own limit: 5 a minute per address.
        for (let i = 0; i < 6 && status !== 429; i++) status = await callOn(limited, o, opts);
        assert.equal(status, 429, operationName(o));
      }
    } finally {
      await limited.stop();
    }
  });

  it('every answer has a documented status, content type and body', () => {
    const check = answerChecker(doc);
    const problems = exchanges.flatMap(check);
    assert.deepEqual(problems, []);
  });

  it('exercises every documented operation, and most documented statuses', (t) => {
    const seen = new Map<string, Set<string>>();
    for (const ex of exchanges) {
      const o = matchOperation(doc, ex.method, ex.url);
      if (o) seen.set(operationName(o), (seen.get(operationName(o)) ?? new Set()).add(String(ex.status)));
    }
    const unexercised = operations(doc)
      .map(operationName)
      .filter((name) => !seen.has(name));
    assert.deepEqual(unexercised, [], 'operations without a request in this test');
    // Statuses not provoked here (capacity, storage failures, …) are listed, not failed.
    const missing = operations(doc).flatMap((o) =>
      Object.keys(o.op.responses ?? {})
        .filter((status) => !seen.get(operationName(o))?.has(status))
        .map((status) => `${operationName(o)} ${status}`),
    );
    const documented = operations(doc).reduce((n, o) => n + Object.keys(o.op.responses ?? {}).length, 0);
    t.diagnostic(
      `${documented - missing.length} of ${documented} documented statuses provoked; not provoked: ${missing.join('; ')}`,
    );
    assert.ok(
      documented - missing.length >= 135,
      `only ${documented - missing.length} of ${documented} documented statuses provoked`,
    );
  });

  it('can fail: an undocumented status, content type or field is reported', () => {
    const status404 = exchanges.find((ex) => ex.url === `/v1/captures/${UNKNOWN_CAPTURE}/status`)!;
    const record = exchanges.find((ex) => ex.url === `/v1/captures/${captureId}` && ex.status === 200)!;
    const png = exchanges.find((ex) => ex.url.endsWith('/artifacts/screenshot') && ex.status === 200)!;
    const mutated = structuredClone(doc) as OpenApiDoc;
    delete mutated.paths['/v1/captures/{captureId}/status']!.get!.responses!['404'];
    delete mutated.paths['/v1/captures/{captureId}/artifacts/{name}']!.get!.responses!['200']!.content!['image/png'];
    const recordSchema = mutated.paths['/v1/captures/{captureId}']!.get!.responses!['200']!.content![
      'application/json'
    ]!.schema as {
      required: string[];
      properties: Record<string, unknown>;
    };
    recordSchema.properties.notThere = { type: 'string' };
    recordSchema.required.push('notThere');
    const check = answerChecker(mutated);
    assert.match(check(status404).join(), /status not documented/);
    assert.match(check(png).join(), /content type 'image\/png' not documented/);
    assert.match(check(record).join(), /must have required property 'notThere'/);
    assert.deepEqual(answerChecker(doc)(record), []);
  });
});
