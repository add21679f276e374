// The egress proxy against real servers on loopback. Allow-list 127.0.0.1/32: 127.0.0.1 stands for the
// public internet, 127.0.0.2 for a private address that must never be reached.
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import { startEgressProxy, type EgressProxy } from '../../../src/net/egress-proxy.js';
import {
  ALLOWED_IP,
  FORBIDDEN_IP,
  closeServer,
  closedPort,
  listen,
  makeTestCertificate,
  sleep,
  startEcho,
  startTripwire,
  stubResolver,
} from './loopback-fixtures.js';

type Reply = { status: number; headers: http.IncomingHttpHeaders; body: string };

function viaProxy(
  proxy: EgressProxy,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {},
): Promise<Reply & { socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: proxy.port,
        method: options.method ?? 'GET',
        path: target,
        headers: { host: new URL(target).host, 'proxy-connection': 'keep-alive', ...options.headers },
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            socket: res.socket as net.Socket,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function connectVia(
  proxy: EgressProxy,
  authority: string,
): Promise<{ status: number; socket: net.Socket; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: proxy.port,
      method: 'CONNECT',
      path: authority,
      headers: { host: authority },
      agent: false,
    });
    req.on('connect', (res: http.IncomingMessage, socket: net.Socket, head: Buffer) =>
      resolve({ status: res.statusCode ?? 0, socket, head }),
    );
    req.on('error', reject);
    req.end();
  });
}

function readAll(socket: net.Socket, head: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [head];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('egress proxy', () => {
  let proxy: EgressProxy;
  let upstream: http.Server;
  let upstreamPort: number;
  let tlsServer: https.Server;
  let tlsPort: number;
  let cert: string;
  let echo: Awaited<ReturnType<typeof startEcho>>;
  let tripwire: Awaited<ReturnType<typeof startTripwire>>;
  const upstreamClosedRequests: string[] = [];

  before(async () => {
    upstream = http.createServer((req, res) => {
      if (req.url === '/slow') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        req.on('close', () => upstreamClosedRequests.push('/slow'));
        return; // never ends
      }
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/elsewhere' });
        res.end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.stringify({
          method: req.method,
          url: req.url,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, {
          'content-type': 'application/json',
          'x-upstream': 'yes',
          connection: 'keep-alive, x-hop',
          'x-hop': 'private',
        });
        res.end(body);
      });
    });
    await listen(upstream, ALLOWED_IP);
    upstreamPort = (upstream.address() as net.AddressInfo).port;

    const pair = await makeTestCertificate(['fixture.test']);
    cert = pair.cert;
    tlsServer = https.createServer({ key: pair.key, cert: pair.cert }, (req, res) => {
      res.end(`tls ok ${(req.socket as tls.TLSSocket).servername ?? ''}`);
    });
    await listen(tlsServer, ALLOWED_IP);
    tlsPort = (tlsServer.address() as net.AddressInfo).port;

    echo = await startEcho();
    tripwire = await startTripwire();
    proxy = await startEgressProxy({
      policy: createAddressPolicy({ allowCidrs: ['127.0.0.1/32'] }),
      resolve: stubResolver({
        'fixture.test': [ALLOWED_IP],
        'internal.test': [FORBIDDEN_IP],
        'mixed.test': [ALLOWED_IP, FORBIDDEN_IP],
      }),
      connectTimeoutMs: 2_000,
    });
  });

  after(async () => {
    await proxy.close();
    await Promise.all([closeServer(upstream), closeServer(tlsServer), echo.close(), tripwire.close()]);
  });

  it('forwards a plain HTTP request to an allowed address', async () => {
    const reply = await viaProxy(proxy, `http://${ALLOWED_IP}:${upstreamPort}/hello?x=1`, {
      headers: {
        'x-custom': 'kept',
        'proxy-authorization': 'Basic c2VjcmV0',
        connection: 'keep-alive, x-drop-me',
        'x-drop-me': '1',
      },
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['x-upstream'], 'yes');
    assert.equal(reply.headers['x-hop'], undefined, 'a response field named by Connection is dropped');
    const seen = JSON.parse(reply.body) as { method: string; url: string; headers: Record<string, string> };
    assert.equal(seen.method, 'GET');
    assert.equal(seen.url, '/hello?x=1');
    assert.equal(seen.headers['host'], `${ALLOWED_IP}:${upstreamPort}`);
    assert.equal(seen.headers['x-custom'], 'kept');
    assert.equal(seen.headers['proxy-authorization'], undefined);
    assert.equal(seen.headers['proxy-connection'], undefined);
    assert.equal(seen.headers['x-drop-me'], undefined, 'a field named by Connection is hop-by-hop');
  });

  it('streams a request body to a host name resolved by the proxy, keeping the Host header', async () => {
    const body = 'x'.repeat(200_000);
    const reply = await viaProxy(proxy, `http://fixture.test:${upstreamPort}/upload`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(reply.status, 200);
    const seen = JSON.parse(reply.body) as { method: string; headers: Record<string, string>; body: string };
    assert.equal(seen.method, 'POST');
    assert.equal(seen.headers['host'], `fixture.test:${upstreamPort}`);
    assert.equal(seen.body.length, body.length);
  });

  it('keeps the client connection alive across requests and passes redirects through unfollowed', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await viaProxy(proxy, `http://${ALLOWED_IP}:${upstreamPort}/one`, { agent });
      const second = await viaProxy(proxy, `http://${ALLOWED_IP}:${upstreamPort}/redirect`, { agent });
      assert.equal(first.status, 200);
      assert.equal(second.status, 302);
      assert.equal(second.headers.location, '/elsewhere');
      assert.equal(first.socket, second.socket, 'same proxy connection reused');
    } finally {
      agent.destroy();
    }
  });

  it('tunnels CONNECT to an allowed address (TCP echo)', async () => {
    const { status, socket, head } = await connectVia(proxy, `${ALLOWED_IP}:${echo.port}`);
    assert.equal(status, 200);
    const received = new Promise<string>((resolve) => {
      let text = head.toString();
      socket.on('data', (c: Buffer) => {
        text += c.toString();
        if (text.length >= 9) resolve(text);
      });
    });
    socket.write('ping pong');
    assert.equal(await received, 'ping pong');
    socket.destroy();
  });

  it('tunnels TLS through CONNECT to a host name, the certificate checked end to end', async () => {
    const { status, socket } = await connectVia(proxy, `fixture.test:${tlsPort}`);
    assert.equal(status, 200);
    const text = await new Promise<string>((resolve, reject) => {
      const req = https.request(
        {
          host: 'fixture.test',
          port: tlsPort,
          path: '/',
          ca: cert,
          createConnection: () => tls.connect({ socket, servername: 'fixture.test', ca: cert }),
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(text, 'tls ok fixture.test');
    socket.destroy();
  });

  it('refuses a non-allowed literal address with 403 and never connects to it', async () => {
    const reply = await viaProxy(proxy, `http://${FORBIDDEN_IP}:${tripwire.port}/`);
    assert.equal(reply.status, 403);
    assert.match(reply.body, /127\.0\.0\.2 is a loopback address/);
    const tunnel = await connectVia(proxy, `${FORBIDDEN_IP}:${tripwire.port}`);
    assert.equal(tunnel.status, 403);
    assert.match(await readAll(tunnel.socket, tunnel.head), /not a public internet address/);
    assert.equal(tripwire.connections(), 0);
    assert.deepEqual(proxy.explain(`http://${FORBIDDEN_IP}:${tripwire.port}/x`), {
      kind: 'blocked',
      reason: '127.0.0.2 is a loopback address, not a public internet address',
      retryable: false,
    });
  });

  it('refuses a host name that resolves to a non-allowed address, even among allowed ones', async () => {
    for (const host of ['internal.test', 'mixed.test']) {
      const reply = await viaProxy(proxy, `http://${host}:${tripwire.port}/`);
      assert.equal(reply.status, 403, host);
      assert.match(reply.body, new RegExp(`${host.replace('.', '\\.')} resolves to an address that is not allowed`));
      assert.doesNotMatch(reply.body, /127\.0\.0\.2/, 'the refusal names no resolved address');
      const tunnel = await connectVia(proxy, `${host}:${tripwire.port}`);
      assert.equal(tunnel.status, 403, host);
      tunnel.socket.destroy();
    }
    assert.equal(tripwire.connections(), 0);
    const why = proxy.explain(`https://internal.test/page`);
    assert.equal(why?.kind, 'blocked');
    assert.equal(why?.retryable, false);
    assert.match(why?.reason ?? '', /internal\.test resolves to an address that is not allowed/);
    assert.equal(proxy.explain(`http://fixture.test:${upstreamPort}/`), undefined);
  });

  it('answers 502 for an unreachable upstream or an unknown name, and explains it as retryable', async () => {
    const port = await closedPort();
    const reply = await viaProxy(proxy, `http://${ALLOWED_IP}:${port}/`);
    assert.equal(reply.status, 502);
    assert.match(reply.body, /ECONNREFUSED/);
    assert.equal(proxy.explain(`http://${ALLOWED_IP}:${port}/`)?.kind, 'connect');
    assert.equal(proxy.explain(`http://${ALLOWED_IP}:${port}/`)?.retryable, true);

    const tunnel = await connectVia(proxy, `nowhere.test:443`);
    assert.equal(tunnel.status, 502);
    tunnel.socket.destroy();
    assert.deepEqual(
      {
        kind: proxy.explain('https://nowhere.test/')?.kind,
        retryable: proxy.explain('https://nowhere.test/')?.retryable,
      },
      { kind: 'dns', retryable: true },
    );
  });

  it('rejects requests that are not proxy requests', async () => {
    const reply = await new Promise<number>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: proxy.port, path: '/not-absolute', agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    assert.equal(reply, 400);
    const tunnel = await connectVia(proxy, 'no-port-here');
    assert.equal(tunnel.status, 400);
    tunnel.socket.destroy();
  });

  it('closes the upstream when the client goes away mid-response, and leaks no sockets', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: proxy.port,
          path: `http://${ALLOWED_IP}:${upstreamPort}/slow`,
          headers: { host: `${ALLOWED_IP}:${upstreamPort}` },
          agent: false,
        },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', () => undefined);
      req.on('close', () => resolve());
      req.end();
      setTimeout(() => reject(new Error('no data')), 2000).unref();
    });
    for (let i = 0; i < 50 && upstreamClosedRequests.length === 0; i++) await sleep(20);
    assert.deepEqual(upstreamClosedRequests, ['/slow']);

    for (let i = 0; i < 100; i++) {
      const s = proxy.stats();
      if (s.openUpstreamSockets === 0 && s.openClientSockets === 0 && s.openTunnels === 0) break;
      await sleep(20);
    }
    const stats = proxy.stats();
    assert.equal(stats.openUpstreamSockets, 0, 'upstream sockets closed');
    assert.equal(stats.openTunnels, 0, 'tunnels closed');
    assert.equal(stats.openClientSockets, 0, 'client sockets closed');
    assert.ok(stats.blocked >= 6);
    assert.equal(tripwire.connections(), 0);
  });
});
