import assert from 'node:assert/strict';
import http from 'node:http';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { parseVantages } from '../../../src/config/vantages.js';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import {
  startVantageEgress,
  type VantageEgress,
  VantageUnavailableError,
} from '../../../src/vantages/vantage-egress.js';
import { type HttpsFixture, startHttpsFixture } from '../../support/https-fixture.js';
import {
  type CallerSite,
  startCallerSite,
  startUpstreamProxy,
  type UpstreamProxy,
} from '../../support/vantage-fixtures.js';

/** GET through a forward proxy; resolves to status and body. */
function viaProxy(proxyUrl: string, target: string): Promise<{ status: number; body: string }> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: proxy.hostname, port: Number(proxy.port), path: target, headers: { host: new URL(target).host } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('vantage egress: chained through an upstream proxy, the address policy still first', () => {
  let site: CallerSite;
  let connectProxy: UpstreamProxy;
  let socksProxy: UpstreamProxy;
  let egress: VantageEgress;
  const policy = createAddressPolicy({ allowCidrs: ['127.0.0.1/32'] });

  before(async () => {
    site = await startCallerSite();
    connectProxy = await startUpstreamProxy('http', '127.0.0.10');
    socksProxy = await startUpstreamProxy('socks5', '127.0.0.11');
    const parsed = parseVantages(
      JSON.stringify([
        { id: 'ten', label: 'Ten', region: 'DE', upstream: connectProxy.url, exitProbeUrl: site.url('/whoami') },
        { id: 'eleven', label: 'Eleven', region: 'FR', upstream: socksProxy.url, exitProbeUrl: site.url('/whoami') },
        { id: 'unprobed', label: 'No probe', region: 'NL', upstream: socksProxy.url },
        {
          id: 'misplaced',
          label: 'Expected elsewhere',
          region: 'US-CA',
          upstream: connectProxy.url,
          expectedExit: '127.0.0.99',
          exitProbeUrl: site.url('/whoami'),
        },
        { id: 'down', label: 'Down', region: 'SE', upstream: 'http://127.0.0.1:1', exitProbeUrl: site.url('/whoami') },
      ]),
    );
    assert.ok('vantages' in parsed, JSON.stringify(parsed));
    egress = await startVantageEgress({ vantages: parsed.vantages, policy });
  });

  after(async () => {
    await egress?.close();
    await Promise.all([site?.close(), connectProxy?.close(), socksProxy?.close()]);
  });

  it('leaves through the HTTP CONNECT upstream and observes its exit', async () => {
    const route = egress.route('ten')!;
    const answer = await viaProxy(route.proxyUrl, site.url('/by-caller'));
    assert.equal(answer.status, 200);
    assert.match(answer.body, /Seen from 127\.0\.0\.10/);
    const exit = await route.observeExit();
    assert.equal(exit.observedAddress, '127.0.0.10');
    assert.equal(exit.method, 'exit-probe');
    const connections = await route.observedConnections(['127.0.0.1'], Date.now() - 60_000);
    assert.ok(connections.length > 0 && connections.every((c) => c.address === '127.0.0.1'));
  });

  it('leaves through the SOCKS5 upstream and observes its exit', async () => {
    const route = egress.route('eleven')!;
    const answer = await viaProxy(route.proxyUrl, site.url('/by-caller'));
    assert.match(answer.body, /Seen from 127\.0\.0\.11/);
    assert.equal((await route.observeExit()).observedAddress, '127.0.0.11');
  });

  it('says "not observed" for a vantage without an exit probe, after checking its upstream answers', async () => {
    const exit = await egress.route('unprobed')!.observeExit();
    assert.deepEqual(exit, {
      observedAddress: null,
      method: 'not observed',
      probeUrl: null,
      observedAt: null,
      expectedAddress: null,
    });
  });

  it('refuses a vantage that exits elsewhere than configured', async () => {
    await assert.rejects(egress.route('misplaced')!.observeExit(), (err: Error) => {
      assert.ok(err instanceof VantageUnavailableError);
      assert.match(err.message, /exits from 127\.0\.0\.10, not from 127\.0\.0\.99/);
      return true;
    });
  });

  it('refuses a private destination before asking the upstream', async () => {
    const before = socksProxy.asked.length;
    const answer = await viaProxy(egress.route('eleven')!.proxyUrl, 'http://127.0.0.2:9/');
    assert.equal(answer.status, 403);
    assert.equal(socksProxy.asked.length, before, 'the upstream was never asked');
  });

  it('tunnels https through the upstream, and probes the TLS certificate through it too', async () => {
    const secure: HttpsFixture = await startHttpsFixture();
    try {
      const route = egress.route('eleven')!;
      const since = Date.now();
      const before = socksProxy.asked.length;
      const target = new URL(secure.origin);
      // CONNECT through the vantage's egress proxy, then TLS end to end, as Chromium does.
      const body = await new Promise<string>((resolve, reject) => {
        const proxy = new URL(route.proxyUrl);
        const req = http.request({
          host: proxy.hostname,
          port: Number(proxy.port),
          method: 'CONNECT',
          path: target.host,
        });
        req.on('connect', (res, socket) => {
          assert.equal(res.statusCode, 200);
          const secureSocket = tls.connect({ socket, rejectUnauthorized: false });
          const get = http.request(
            { path: '/page', headers: { host: target.host }, createConnection: () => secureSocket },
            (answer) => {
              let text = '';
              answer.on('data', (c: Buffer) => (text += c.toString()));
              answer.on('end', () => resolve(text));
            },
          );
          get.on('error', reject);
          get.end();
        });
        req.on('error', reject);
        req.end();
      });
      assert.match(body, /Served over TLS/);
      const connections = await route.observedConnections(['127.0.0.1'], since);
      const tunnel = connections.find((c) => c.port === Number(target.port));
      assert.ok(tunnel?.tls, JSON.stringify(connections));
      assert.equal(tunnel.tls.certificateChainPem[0]!.trim(), secure.certPem.trim());
      // The page's tunnel and the TLS probe both went through the upstream: nothing left directly.
      assert.deepEqual(socksProxy.asked.slice(before), [`127.0.0.1:${target.port}`, `127.0.0.1:${target.port}`]);
    } finally {
      await secure.close();
    }
  });

  it('a vantage whose upstream is down is unavailable, never a direct connection', async () => {
    const route = egress.route('down')!;
    const answer = await viaProxy(route.proxyUrl, site.url('/by-caller'));
    assert.equal(answer.status, 502);
    assert.equal(route.explain(site.url('/by-caller'))?.kind, 'vantage');
    await assert.rejects(route.observeExit(), VantageUnavailableError);
  });
});
