import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CAPTURE_JOB_SUBJECT } from '../../src/ledger/streams.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';

/**
 * The MCP server (docs/mcp.md) with the SDK's own Client over Streamable HTTP against the real service:
 * NATS, Postgres, a Chromium worker and a loopback fixture site. Every refusal is compared with what the REST
 * endpoint answers for the same request: same status, same detail.
 */

describe('MCP server over Streamable HTTP (SDK Client, real service)', () => {
  let s: TestServer;
  let site: FixtureSite;
  let captureKey: string;
  let readKey: string;
  const clients: Client[] = [];

  const connect = async (key: string | null): Promise<Client> => {
    const client = new Client({ name: 'capture-ledger-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${s.baseUrl}/mcp`), {
      requestInit: key ? { headers: { Authorization: `Bearer ${key}` } } : {},
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  /** A tool error: its first text is the detail, its second the REST error body. */
  const errorBody = (r: CallToolResult) => {
    assert.equal(r.isError, true, `expected a tool error, got ${JSON.stringify(r)}`);
    const [detail, body] = r.content as Array<{ type: 'text'; text: string }>;
    const parsed = JSON.parse(body!.text);
    assert.equal(detail!.text, parsed.detail);
    return parsed;
  };
  const mkKey = async (tenantId: string, scopes: string[]) =>
    (
      await s.call('POST', '/v1/admin/keys', {
        token: ADMIN_KEY,
        from: '127.0.0.50',
        body: { tenantId, scopes, name: scopes.join(' ') },
      })
    ).body.key as string;

  before(async () => {
    site = await startFixtureSite();
    s = await startTestServer({
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      // One render at a time: on a machine shared with other work, fewer renderers compete for the cores.
      WORKER_CONCURRENCY: '1',
      BATCH_MAX: '3',
    });
    captureKey = await mkKey('acme', ['capture']);
    readKey = await mkKey('acme', ['read']);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await s.stop();
    await site.close();
  });

  it('lists the tools, each described by its REST schema', async () => {
    const client = await connect(readKey);
    assert.equal(client.getServerVersion()?.name, 'capture-ledger');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      'capture_batch',
      'capture_url',
      'create_schedule',
      'delete_schedule',
      'get_capture',
      'get_certificate',
      'get_usage',
      'list_captures',
      'list_schedules',
      'verify_capture',
    ]);
    const capture = tools.find((t) => t.name === 'capture_url')!;
    const options = (capture.inputSchema.properties as any).options;
    assert.equal(options.properties.viewport.properties.width.maximum, 3840);
    assert.equal(options.properties.delayMs.maximum, 10000);
    assert.deepEqual(Object.keys(options.properties).sort(), [
      'behaviorTimeout',
      'behaviors',
      'corroborate',
      'delayMs',
      'deviceScaleFactor',
      'fullPage',
      'pdf',
      'profile',
      'recordBoxes',
      'recordSession',
      'recordTextBoxes',
      'vantage',
      'viewport',
      'waitForSelector',
    ]);
    const list = tools.find((t) => t.name === 'list_captures')!;
    assert.deepEqual(Object.keys(list.inputSchema.properties!).sort(), [
      'created_after',
      'created_before',
      'limit',
      'offset',
      'schedule_id',
      'sort',
      'status',
      'url',
    ]);
    assert.deepEqual((list.inputSchema.properties as any).status.enum, ['pending', 'complete', 'failed']);
    // get_certificate answers an embedded application/pdf resource, not structured content: it has no output schema.
    assert.ok(
      tools.filter((t) => t.name !== 'get_certificate').every((t) => t.outputSchema?.type === 'object'),
      'every structured tool declares its output',
    );
    assert.equal(tools.find((t) => t.name === 'get_certificate')?.outputSchema, undefined);
  });

  it('captures a loopback page with options, waits for complete via get_capture, and verifies it', async () => {
    const client = await connect(captureKey);
    // As an agent would: submit, poll through get_capture, and submit again while a failure says it is
    // retryable (spec 2.1) — on a machine shared with other work a capture can fail for the host, which
    // is not what this test is about. The limit only tells a hang from a slow machine.
    type Got = { status: string; record?: any; error?: string; retryable?: boolean };
    const failures: string[] = [];
    let accepted: { id: string; statusUrl: string; quota: { limit: number; used: number; remaining: number } };
    let got: Got;
    for (;;) {
      const submitted = await call(client, 'capture_url', {
        url: site.url('/simple'),
        options: { viewport: { width: 800, height: 600 }, fullPage: false },
      });
      assert.equal(submitted.isError, undefined, JSON.stringify(submitted));
      accepted = submitted.structuredContent as typeof accepted;
      assert.match(accepted.id, /^cap_[0-9a-f]{32}$/);
      assert.equal(accepted.statusUrl, `${s.server.ctx.config.PUBLIC_BASE_URL}/v1/captures/${accepted.id}/status`);
      assert.equal(accepted.quota.used + accepted.quota.remaining, accepted.quota.limit);
      assert.ok(accepted.quota.used >= 1);
      const deadline = Date.now() + 180_000;
      for (;;) {
        got = (await call(client, 'get_capture', { captureId: accepted.id })).structuredContent as Got;
        if (got.status !== 'pending') break;
        if (Date.now() > deadline) throw new Error(`capture ${accepted.id} still pending`);
        await new Promise((r) => setTimeout(r, 300));
      }
      if (got.status !== 'failed' || !got.retryable || failures.length === 2) break;
      failures.push(got.error ?? '');
    }
    assert.equal(got.status, 'complete', [...failures, got.error].join('; '));
    assert.equal(got.record.id, accepted.id);
    assert.equal(got.record.url, site.url('/simple'));
    assert.equal(got.record.captureSettings.viewport.width, 800);
    assert.equal(got.record.captureSettings.fullPage, false);
    assert.match(got.record.wacz.bundleHash, /^sha256:[0-9a-f]{64}$/);
    // The same record REST answers.
    assert.deepEqual(got.record, (await s.call('GET', `/v1/captures/${accepted.id}`)).body);

    const verified = await call(client, 'verify_capture', { captureId: accepted.id });
    const result = verified.structuredContent as {
      verified: boolean;
      checks: Array<{ name: string; status: string }>;
      signing: { bundleHash: string };
    };
    assert.equal(result.verified, true, JSON.stringify(result.checks));
    assert.deepEqual(
      result.checks.map((c) => [c.name, c.status]),
      [
        ['artifactHashes', 'pass'],
        ['bundleHash', 'pass'],
        ['signature', 'pass'],
        ['timestamp', 'pass'],
      ],
    );
    assert.equal(result.signing.bundleHash, got.record.wacz.bundleHash);
    assert.deepEqual(result, (await s.call('GET', `/v1/verify/${accepted.id}`)).body);

    // The certificate: the bytes REST answers, as an embedded PDF resource; an unknown capture is the REST 404.
    const cert = await call(client, 'get_certificate', { captureId: accepted.id });
    assert.notEqual(cert.isError, true, JSON.stringify(cert.content));
    const resource = (cert.content as Array<{ type: string; resource?: { mimeType: string; blob: string } }>).find(
      (c) => c.type === 'resource',
    )!.resource!;
    assert.equal(resource.mimeType, 'application/pdf');
    const rest = await fetch(`${s.baseUrl}/v1/captures/${accepted.id}/certificate`);
    assert.equal(rest.status, 200);
    assert.deepEqual(Buffer.from(resource.blob, 'base64'), Buffer.from(await rest.arrayBuffer()));
    assert.equal(errorBody(await call(client, 'get_certificate', { captureId: `cap_${'0'.repeat(32)}` })).status, 404);

    const listed = (await call(client, 'list_captures', { status: 'complete', limit: 5 })).structuredContent as {
      data: Array<{ id: string }>;
      pagination: { limit: number };
    };
    assert.ok(listed.data.some((c) => c.id === accepted.id));
    assert.equal(listed.pagination.limit, 5);
  });

  it('submits a batch: one answer per URL, refusals with the REST body', async () => {
    const client = await connect(captureKey);
    const r = await call(client, 'capture_batch', {
      urls: [{ url: site.url('/simple') }, { url: 'ftp://example.org/' }, 'not an object'],
    });
    const out = r.structuredContent as {
      items: Array<{ status: number; id?: string; error?: { status: number; detail: string } }>;
      summary: unknown;
    };
    assert.deepEqual(
      out.items.map((i) => i.status),
      [202, 422, 400],
    ); // spec 7.2: an unsupported scheme is 422 for a batch item
    assert.match(out.items[0]!.id!, /^cap_/);
    assert.equal(out.items[2]!.error!.detail, 'urls[2] must be an object with a url field.');
    assert.deepEqual(out.summary, { total: 3, accepted: 1, failed: 2 });
  });

  it('refuses a tool whose scope the key lacks with the REST 403 words, and lets the key use what it has', async () => {
    const client = await connect(readKey);
    const refused = errorBody(await call(client, 'capture_url', { url: site.url('/simple') }));
    const rest = await s.call('POST', '/v1/captures', { token: readKey, body: { url: site.url('/simple') } });
    assertProblem(rest.body, 403);
    assert.deepEqual(refused, rest.body);
    assert.equal(
      errorBody(await call(client, 'create_schedule', { url: site.url('/simple'), name: 'n', cron: '0 6 * * *' }))
        .status,
      403,
    );
    assert.equal(errorBody(await call(client, 'delete_schedule', { scheduleId: `sch_${'0'.repeat(32)}` })).status, 403);
    // read is enough to list and see usage
    assert.equal((await call(client, 'list_captures')).isError, undefined);
    const usage = (await call(client, 'get_usage')).structuredContent as { tenantId: string };
    assert.deepEqual(usage, (await s.call('GET', '/v1/account/usage', { token: readKey })).body);
  });

  it('answers bad input with the 400 detail of the REST endpoint', async () => {
    const client = await connect(captureKey);
    const badOption = { url: site.url('/simple'), options: { delayMs: 99_999 } };
    const tool = errorBody(await call(client, 'capture_url', badOption));
    const rest = await s.call('POST', '/v1/captures', { token: captureKey, body: badOption });
    assertProblem(rest.body, 400);
    assert.equal(tool.status, 400);
    assert.equal(tool.detail, rest.body.detail);
    assert.match(tool.detail, /options\.delayMs/);

    const badUrl = errorBody(await call(client, 'capture_url', { url: 'ftp://example.org/' }));
    assert.equal(
      badUrl.detail,
      (await s.call('POST', '/v1/captures', { token: captureKey, body: { url: 'ftp://example.org/' } })).body.detail,
    );

    const badList = errorBody(await call(client, 'list_captures', { limit: 0 }));
    assert.equal(badList.detail, (await s.call('GET', '/v1/captures?limit=0', { token: captureKey })).body.detail);

    const unknown = `cap_${'0'.repeat(32)}`;
    const missing = errorBody(await call(client, 'get_capture', { captureId: unknown }));
    assert.deepEqual(missing, (await s.call('GET', `/v1/captures/${unknown}/status`)).body);
    assert.equal(errorBody(await call(client, 'get_capture', {})).status, 400);
    assert.equal(errorBody(await call(client, 'verify_capture', { captureId: unknown })).status, 404);
  });

  it('reports an exhausted quota as the REST 429 does: limitType quota, the quota object, the same detail', async () => {
    const key = await mkKey('quota-mcp', ['capture']);
    const config = await s.call('PUT', '/v1/admin/tenants/quota-mcp/config', {
      token: ADMIN_KEY,
      from: '127.0.0.51',
      body: { quotas: { capturesPerMonth: 0 } },
    });
    assert.equal(config.status, 200, config.text);
    const client = await connect(key);
    const tool = errorBody(await call(client, 'capture_url', { url: site.url('/simple') }));
    const rest = await s.call('POST', '/v1/captures', { token: key, body: { url: site.url('/simple') } });
    assertProblem(rest.body, 429);
    assert.equal(tool.status, 429);
    assert.equal(tool.limitType, 'quota');
    assert.equal(tool.detail, rest.body.detail);
    assert.deepEqual(tool.quota, rest.body.quota);
    assert.equal(tool.quota.remaining, 0);
    assert.equal(tool.retryAfter, rest.headers.get('retry-after'));
  });

  it('creates, lists and deletes a schedule', async () => {
    const client = await connect(captureKey);
    const created = (
      await call(client, 'create_schedule', {
        url: site.url('/simple'),
        name: 'daily',
        cron: '0 6 * * *',
        options: { pdf: true },
      })
    ).structuredContent as {
      id: string;
      options: unknown;
    };
    assert.match(created.id, /^sch_/);
    assert.deepEqual(created.options, { pdf: true });
    const listed = (await call(client, 'list_schedules')).structuredContent as { data: Array<{ id: string }> };
    assert.ok(listed.data.some((x) => x.id === created.id));
    assert.deepEqual((await call(client, 'delete_schedule', { scheduleId: created.id })).structuredContent, {
      id: created.id,
      deleted: true,
    });
    const again = errorBody(await call(client, 'delete_schedule', { scheduleId: created.id }));
    assert.deepEqual(again, (await s.call('DELETE', `/v1/schedules/${created.id}`, { token: captureKey })).body);
    const tooOften = errorBody(
      await call(client, 'create_schedule', { url: site.url('/simple'), name: 'often', cron: '*/5 * * * *' }),
    );
    assert.equal(tooOften.status, 400);
  });

  it('refuses a missing or unknown key before MCP with 403 (not 401: no OAuth here), as a JSON-RPC error with the detail', async () => {
    await assert.rejects(connect(null), (err: Error) => /Missing Authorization header/.test(err.message));
    await assert.rejects(connect(`svc_live_${'0'.repeat(64)}`), (err: Error) =>
      /Invalid or revoked API key/.test(err.message),
    );
    const init = {
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const r = await s.call('POST', '/mcp', { body: init, headers: { accept: 'application/json, text/event-stream' } });
    assert.equal(r.status, 403);
    assert.equal(r.headers.get('www-authenticate'), null);
    assert.equal(r.body.jsonrpc, '2.0');
    assert.equal(r.body.id, 7);
    assertProblem(r.body.error.data, 403);
    assert.equal(r.body.error.message, r.body.error.data.detail);
    assert.equal(r.body.error.data.detail, (await s.call('GET', '/v1/captures')).body.detail);
    // A page of another origin may not drive the endpoint with a key it got hold of (DNS rebinding).
    const foreign = await s.call('POST', '/mcp', {
      token: captureKey,
      body: init,
      headers: { accept: 'application/json, text/event-stream', origin: 'http://evil.test' },
    });
    assert.equal(foreign.status, 403);
    assertProblem(foreign.body.error.data, 403);
  });

  it('is stateless: GET and DELETE answer 405 with the error body', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await s.call(method, '/mcp', { token: captureKey });
      assert.equal(r.status, 405);
      assert.equal(r.headers.get('allow'), 'POST');
      assertProblem(r.body, 405);
    }
    // No session id is handed out.
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const r = await s.call('POST', '/mcp', {
      token: captureKey,
      body: init,
      headers: { accept: 'application/json, text/event-stream' },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('mcp-session-id'), null);
    assert.equal(r.body.result.serverInfo.name, 'capture-ledger');
  });
});

describe('MCP server at capacity', () => {
  it('answers a capture with the REST 503 words and its Retry-After when the job backlog is full', async () => {
    // No worker in this server: the work queue is filled as a backlog would fill it.
    const s = await startTestServer({ ALLOW_PRIVATE_TARGETS: '127.0.0.1/32', CAPTURE_BACKLOG_MAX: '2' });
    const client = new Client({ name: 'capture-ledger-e2e', version: '1.0.0' });
    try {
      const key = (
        await s.call('POST', '/v1/admin/keys', {
          token: ADMIN_KEY,
          body: { tenantId: 'busy', scopes: ['capture'], name: 'k' },
        })
      ).body.key;
      for (let i = 0; i < 2; i++)
        await s.server.nats.js.publish(
          CAPTURE_JOB_SUBJECT,
          new TextEncoder().encode(JSON.stringify({ captureId: `cap_${i}` })),
        );
      // The backlog figure is refreshed at most once a second: wait until REST sees it.
      const deadline = Date.now() + 60_000;
      let rest = await s.call('POST', '/v1/captures', { token: key, body: { url: 'http://127.0.0.1:9/' } });
      while (rest.status !== 503) {
        if (Date.now() > deadline) throw new Error(`REST never answered 503: ${rest.status} ${rest.text}`);
        await new Promise((r) => setTimeout(r, 200));
        rest = await s.call('POST', '/v1/captures', { token: key, body: { url: 'http://127.0.0.1:9/' } });
      }
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${s.baseUrl}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${key}` } },
        }),
      );
      const r = (await client.callTool({
        name: 'capture_url',
        arguments: { url: 'http://127.0.0.1:9/' },
      })) as CallToolResult;
      assert.equal(r.isError, true);
      const body = JSON.parse((r.content[1] as { text: string }).text);
      assert.equal(body.status, 503);
      assert.equal(body.detail, rest.body.detail);
      assert.equal(body.retryAfter, rest.headers.get('retry-after'));
    } finally {
      await client.close().catch(() => undefined);
      await s.stop();
    }
  });
});
