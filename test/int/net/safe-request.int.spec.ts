// safeRequest against real servers on loopback. Allow-list 127.0.0.1/32; 127.0.0.2 must never be reached.
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type tls from 'node:tls';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import { EgressBlockedError, NetworkRequestError, RequestTimeoutError } from '../../../src/net/errors.js';
import { MAX_RESPONSE_BODY_BYTES, safeRequest, type SafeRequestOptions } from '../../../src/net/safe-request.js';
import {
  ALLOWED_IP,
  FORBIDDEN_IP,
  closeServer,
  closedPort,
  listen,
  makeTestCertificate,
  startTripwire,
  stubResolver,
} from './loopback-fixtures.js';

type Seen = { method?: string; url?: string; host?: string; servername?: string; body: string; signature?: string };

describe('safeRequest', () => {
  let server: https.Server;
  let port: number;
  let plain: http.Server;
  let plainPort: number;
  let cert: string;
  let tripwire: Awaited<ReturnType<typeof startTripwire>>;
  const seen: Seen[] = [];
  const hanging = new Set<http.ServerResponse>();

  const policy = createAddressPolicy({ allowCidrs: ['127.0.0.1/32'] });
  const resolve = stubResolver({
    'webhook.test': [ALLOWED_IP],
    'internal.test': [FORBIDDEN_IP],
    'mixed.test': [ALLOWED_IP, FORBIDDEN_IP],
  });
  const base = (extra: Partial<SafeRequestOptions> = {}): SafeRequestOptions => ({
    policy,
    resolve,
    ca: cert,
    timeoutMs: 3_000,
    ...extra,
  });

  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method,
        url: req.url,
        host: req.headers.host,
        servername: (req.socket as tls.TLSSocket).servername || undefined,
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers['x-svc-signature-256'] as string | undefined,
      });
      if (req.url === '/never') {
        hanging.add(res);
        return;
      }
      if (req.url === '/stall-body') {
        res.writeHead(200);
        res.write('start');
        hanging.add(res);
        return;
      }
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/target' });
        res.end('moved');
        return;
      }
      if (req.url === '/big') {
        res.writeHead(200);
        res.end('y'.repeat(200 * 1024));
        return;
      }
      if (req.url === '/gone') {
        res.writeHead(410);
        res.end('gone for good');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('received');
    });
  };

  before(async () => {
    const pair = await makeTestCertificate(['webhook.test']);
    cert = pair.cert;
    server = https.createServer({ key: pair.key, cert: pair.cert }, handler);
    await listen(server, ALLOWED_IP);
    port = (server.address() as net.AddressInfo).port;
    plain = http.createServer(handler);
    await listen(plain, ALLOWED_IP);
    plainPort = (plain.address() as net.AddressInfo).port;
    tripwire = await startTripwire();
  });

  after(async () => {
    for (const res of hanging) res.destroy();
    await Promise.all([closeServer(server), closeServer(plain), tripwire.close()]);
  });

  it('POSTs over https to a host name pinned to its checked address; SNI and Host keep the name', async () => {
    seen.length = 0;
    const body = JSON.stringify({ id: 'evt_1', type: 'ping' });
    const res = await safeRequest(
      `https://webhook.test:${port}/hooks/1?a=b`,
      base({
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-svc-signature-256': 't=1,v1=00' },
      }),
    );
    assert.equal(res.status, 200);
    assert.equal(res.bodyText, 'received');
    assert.ok(Number.isInteger(res.latencyMs) && res.latencyMs >= 0);
    assert.deepEqual(seen, [
      {
        method: 'POST',
        url: '/hooks/1?a=b',
        host: `webhook.test:${port}`,
        servername: 'webhook.test',
        body,
        signature: 't=1,v1=00',
      },
    ]);
  });

  it('works over plain http and with a literal allowed address', async () => {
    const a = await safeRequest(`http://webhook.test:${plainPort}/x`, base());
    assert.equal(a.status, 200);
    const b = await safeRequest(`https://${ALLOWED_IP}:${port}/x`, base());
    assert.equal(b.status, 200);
  });

  it('fails TLS verification without the extra CA', async () => {
    await assert.rejects(
      safeRequest(`https://webhook.test:${port}/`, base({ ca: undefined })),
      (err: unknown) =>
        err instanceof NetworkRequestError && err.code === 'network' && /self[- ]signed/i.test(err.message),
    );
  });

  it('refuses a non-allowed address, literal or resolved, without connecting', async () => {
    for (const url of [
      `http://${FORBIDDEN_IP}:${tripwire.port}/`,
      `https://${FORBIDDEN_IP}:${tripwire.port}/`,
      `http://internal.test:${tripwire.port}/`,
      `https://mixed.test:${tripwire.port}/`,
      `http://[::ffff:127.0.0.2]:${tripwire.port}/`,
    ]) {
      await assert.rejects(safeRequest(url, base()), (err: unknown) => {
        assert.ok(err instanceof EgressBlockedError, `${url}: ${String(err)}`);
        assert.equal(err.code, 'egress_blocked');
        assert.equal(err.retryable, false);
        return true;
      });
    }
    assert.equal(tripwire.connections(), 0);
  });

  it('does not follow redirects', async () => {
    seen.length = 0;
    const res = await safeRequest(`https://webhook.test:${port}/redirect`, base());
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, '/target');
    assert.deepEqual(
      seen.map((s) => s.url),
      ['/redirect'],
    );
  });

  it('returns non-2xx statuses as results', async () => {
    const res = await safeRequest(`https://webhook.test:${port}/gone`, base({ method: 'POST', body: '{}' }));
    assert.equal(res.status, 410);
    assert.equal(res.bodyText, 'gone for good');
  });

  it('keeps only the first 64 KiB of the body', async () => {
    const res = await safeRequest(`https://webhook.test:${port}/big`, base());
    assert.equal(res.status, 200);
    assert.equal(Buffer.byteLength(res.bodyText), MAX_RESPONSE_BODY_BYTES);
  });

  it('times out when no response comes, when the body stalls and when the resolver hangs', async () => {
    for (const [url, extra] of [
      [`https://webhook.test:${port}/never`, {}],
      [`http://webhook.test:${plainPort}/stall-body`, {}],
      ['https://slow-dns.test/', { resolve: () => new Promise<string[]>(() => undefined) }],
    ] as const) {
      const started = Date.now();
      await assert.rejects(safeRequest(url, base({ timeoutMs: 300, ...extra })), (err: unknown) => {
        assert.ok(err instanceof RequestTimeoutError, `${url}: ${String(err)}`);
        assert.equal(err.timeoutMs, 300);
        return true;
      });
      const took = Date.now() - started;
      // Ended by the 300 ms timeout (the endpoints never answer): not early; the upper bound only tells a
      // hang apart from a late timer on a busy machine.
      assert.ok(took >= 280 && took < 30_000, `${url} took ${took} ms`);
    }
  });

  it('reports refused connections and unknown names as network errors', async () => {
    const closed = await closedPort();
    await assert.rejects(
      safeRequest(`http://webhook.test:${closed}/`, base()),
      (err: unknown) => err instanceof NetworkRequestError && err.errno === 'ECONNREFUSED',
    );
    await assert.rejects(
      safeRequest('https://unknown.test/', base()),
      (err: unknown) => err instanceof NetworkRequestError && err.errno === 'ENOTFOUND',
    );
  });
});
