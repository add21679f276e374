// The service's own listen addresses are never a target, whatever ALLOW_PRIVATE_TARGETS says: the
// egress proxy refuses them at fetch time, as the URL check does at submission. 127.0.0.1 is allow-listed here
// and stands for both the service (a listener the tenant must not reach) and a page it may capture.
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import { startEgressProxy, type EgressProxy } from '../../../src/net/egress-proxy.js';
import { createOwnListeners } from '../../../src/net/own-listeners.js';
import { checkTargetUrl } from '../../../src/net/url-policy.js';
import { ALLOWED_IP, closeServer, listen } from './loopback-fixtures.js';

/** An HTTP server on 127.0.0.1 that counts who reached it. */
async function counter(body: string) {
  let reached = 0;
  const server = http.createServer((_req, res) => {
    reached++;
    res.end(body);
  });
  await listen(server, ALLOWED_IP);
  return { server, port: (server.address() as net.AddressInfo).port, reached: () => reached };
}

function get(proxy: EgressProxy, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: proxy.port, path: target, headers: { host: new URL(target).host }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function connect(proxy: EgressProxy, authority: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: proxy.port,
      method: 'CONNECT',
      path: authority,
      headers: { host: authority },
      agent: false,
    });
    req.on('connect', (res: http.IncomingMessage, socket: net.Socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe("the service's own listen addresses", () => {
  let service: Awaited<ReturnType<typeof counter>>;
  let page: Awaited<ReturnType<typeof counter>>;
  let proxy: EgressProxy;
  const own = createOwnListeners();
  const policy = createAddressPolicy({ allowCidrs: ['127.0.0.1/32'], ownListeners: own });

  before(async () => {
    service = await counter('capture_ledger_http_requests_total 1');
    page = await counter('a page');
    own.add(ALLOWED_IP, service.port);
    proxy = await startEgressProxy({ policy });
  });
  after(async () => {
    await proxy?.close();
    await closeServer(service.server);
    await closeServer(page.server);
  });

  it('are refused at submission, by address and by localhost, while the rest of the allow-list still works', async () => {
    for (const url of [
      `http://127.0.0.1:${service.port}/metrics`,
      `http://localhost:${service.port}/metrics`,
      `http://0.0.0.0:${service.port}/metrics`,
    ]) {
      const r = await checkTargetUrl(url, { policy });
      assert.equal(r.ok, false, url);
      assert.equal(!r.ok && r.reason, 'private_address', url);
    }
    const refused = await checkTargetUrl(`http://127.0.0.1:${service.port}/metrics`, { policy });
    assert.match(!refused.ok ? refused.detail : '', /this service's own address/);
    assert.deepEqual(await checkTargetUrl(`http://127.0.0.1:${page.port}/`, { policy }), {
      ok: true,
      url: `http://127.0.0.1:${page.port}/`,
    });
  });

  it('are refused by the egress proxy at fetch time (plain HTTP and CONNECT); nothing reaches the service', async () => {
    const plain = await get(proxy, `http://127.0.0.1:${service.port}/metrics`);
    assert.equal(plain.status, 403);
    assert.equal(await connect(proxy, `127.0.0.1:${service.port}`), 403);
    assert.equal(await connect(proxy, `localhost:${service.port}`), 403);
    assert.equal(service.reached(), 0);
    const allowed = await get(proxy, `http://127.0.0.1:${page.port}/`);
    assert.equal(allowed.status, 200);
    assert.equal(allowed.body, 'a page');
  });

  it('a listener on every interface (0.0.0.0) covers every local address with its port, and only that port', () => {
    const every = createOwnListeners();
    every.add('0.0.0.0', 8080);
    const p = createAddressPolicy({ allowCidrs: ['127.0.0.0/8', '::1/128'], ownListeners: every });
    for (const ip of ['127.0.0.1', '127.0.0.9', '::1', '0.0.0.0', '::ffff:127.0.0.1'])
      assert.equal(p.check(ip, 8080).allowed, false, ip);
    assert.equal(p.check('127.0.0.1', 8081).allowed, true);
    assert.equal(p.check('127.0.0.1').allowed, true, 'without a port only the address is judged');
    // A port of 0 (not bound yet) covers nothing until the bound one is added.
    const unbound = createOwnListeners();
    unbound.add('127.0.0.1', 0);
    assert.equal(
      createAddressPolicy({ allowCidrs: ['127.0.0.1/32'], ownListeners: unbound }).check('127.0.0.1', 0).allowed,
      true,
    );
  });
});
