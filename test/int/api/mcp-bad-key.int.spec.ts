import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertProblem, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * A bad key over MCP reaches the user as "invalid or revoked key", not as an OAuth flow. The SDK's client
 * transport with an authProvider — as the MCP Inspector builds it — starts OAuth discovery on any 401; this server does
 * not use MCP authorization (OAuth), so it refuses a key with 403 and the reason.
 */
describe('MCP with a bad key, as an OAuth-capable SDK client sees it', () => {
  let s: TestServer;
  const unknownKey = `svc_live_${'0'.repeat(64)}`;

  before(async () => {
    s = await startTestServer();
  });
  after(async () => s?.stop());

  /** An OAuth client provider as the Inspector's: it records whether the transport ever asked it for anything OAuth. */
  function recordingProvider(asked: string[]): OAuthClientProvider {
    return {
      get redirectUrl() {
        return 'http://127.0.0.1:1/oauth/callback';
      },
      get clientMetadata() {
        return { redirect_uris: ['http://127.0.0.1:1/oauth/callback'], client_name: 'test' };
      },
      clientInformation: () => {
        asked.push('clientInformation');
        return undefined;
      },
      saveClientInformation: () => void asked.push('saveClientInformation'),
      tokens: () => undefined,
      saveTokens: () => void asked.push('saveTokens'),
      redirectToAuthorization: () => void asked.push('redirectToAuthorization'),
      saveCodeVerifier: () => void asked.push('saveCodeVerifier'),
      codeVerifier: () => {
        asked.push('codeVerifier');
        return '';
      },
    };
  }

  it('gets an error saying "Invalid or revoked API key" and never starts OAuth', async () => {
    const asked: string[] = [];
    const fetched: string[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(`${s.baseUrl}/mcp`), {
      authProvider: recordingProvider(asked),
      requestInit: { headers: { Authorization: `Bearer ${unknownKey}` } },
      fetch: (url, init) => {
        fetched.push(String(url));
        return fetch(url, init);
      },
    });
    const client = new Client({ name: 'bad-key-test', version: '1.0.0' });
    await assert.rejects(client.connect(transport), (err: Error) => {
      assert.match(err.message, /Invalid or revoked API key/);
      // The Inspector starts OAuth on an error that mentions 401 or Unauthorized (its is401Error).
      assert.doesNotMatch(err.message, /401|Unauthorized/);
      return true;
    });
    await client.close();
    assert.deepEqual(asked, [], 'the OAuth provider was never asked for anything');
    assert.deepEqual(
      fetched.map((u) => new URL(u).pathname),
      ['/mcp'],
      'nothing but the MCP endpoint was fetched (no .well-known discovery, no registration)',
    );
  });

  it('answers 403 with the JSON-RPC error carrying the body, and no WWW-Authenticate', async () => {
    const r = await s.call('POST', '/mcp', {
      token: unknownKey,
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
    });
    assert.equal(r.status, 403);
    assert.equal(r.headers.get('www-authenticate'), null);
    assert.equal(r.body.id, 3);
    assertProblem(r.body.error.data, 403);
    assert.equal(r.body.error.message, 'Invalid or revoked API key.');
    // REST keeps spec 7.2's 401 for the same key.
    assert.equal((await s.call('GET', '/v1/captures', { token: unknownKey })).status, 401);
  });
});
