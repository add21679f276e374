// Real Chromium through the egress proxy: nothing the page does — subresources, fetch, iframes, redirects,
// a host name that resolves to a private address — reaches 127.0.0.2 (the stand-in private address).
// The proxy's resolver is a stub, so Chromium's own background requests end at the stub, not at DNS.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import http from 'node:http';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { resolveChromiumPath } from '../../../src/capture/chromium-path.js';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import { startEgressProxy, type EgressProxy } from '../../../src/net/egress-proxy.js';
import { ALLOWED_IP, FORBIDDEN_IP, closeServer, listen, startTripwire, stubResolver } from './loopback-fixtures.js';

function chromiumAvailable(): boolean {
  try {
    resolveChromiumPath({ explicitPath: process.env['CHROMIUM_PATH'] });
    return true;
  } catch {
    return false;
  }
}

describe('Chromium behind the egress proxy', { skip: chromiumAvailable() ? false : 'Chromium not installed' }, () => {
  let proxy: EgressProxy;
  let chromium: LaunchedChromium;
  let site: http.Server;
  let sitePort: number;
  let tripwire: Awaited<ReturnType<typeof startTripwire>>;
  const siteRequests: string[] = [];

  before(async () => {
    tripwire = await startTripwire();
    const t = tripwire.port;
    site = http.createServer((req, res) => {
      siteRequests.push(req.url ?? '');
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://${FORBIDDEN_IP}:${t}/after-redirect` });
        res.end();
        return;
      }
      if (req.url === '/favicon.ico') {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>fixture</title><body><p id="t">public page</p>
        <img src="http://${FORBIDDEN_IP}:${t}/img.png">
        <img src="http://rebind.test:${t}/img.png">
        <iframe src="https://${FORBIDDEN_IP}:${t}/frame"></iframe>
        <script>
          fetch('http://${FORBIDDEN_IP}:${t}/fetch').catch(() => {});
          fetch('http://[::ffff:127.0.0.2]:${t}/mapped').catch(() => {});
          fetch('http://2130706434:${t}/decimal').catch(() => {});
          new WebSocket('ws://${FORBIDDEN_IP}:${t}/ws');
        </script></body>`);
    });
    await listen(site, ALLOWED_IP);
    sitePort = (site.address() as net.AddressInfo).port;
    proxy = await startEgressProxy({
      policy: createAddressPolicy({ allowCidrs: [`${ALLOWED_IP}/32`] }),
      resolve: stubResolver({ 'site.test': [ALLOWED_IP], 'rebind.test': [FORBIDDEN_IP] }),
      connectTimeoutMs: 2_000,
    });
    chromium = await launchChromium({ chromiumPath: process.env['CHROMIUM_PATH'], proxyServer: proxy.url });
  });

  after(async () => {
    await chromium?.close();
    await proxy?.close();
    await Promise.all([site ? closeServer(site) : undefined, tripwire?.close()]);
  });

  it('loads an allowed page while every private subresource is refused', async () => {
    const page = await chromium.browser.newPage();
    try {
      const res = await page.goto(`http://site.test:${sitePort}/`, { waitUntil: 'networkidle0', timeout: 15_000 });
      assert.equal(res?.status(), 200);
      assert.equal(await page.$eval('#t', (el) => el.textContent), 'public page');
    } finally {
      await page.close();
    }
    assert.ok(proxy.stats().blocked >= 4, `blocked ${proxy.stats().blocked}`);
    assert.equal(tripwire.connections(), 0);
  });

  it('refuses a redirect to a private address and a name that resolves to one', async () => {
    const page = await chromium.browser.newPage();
    try {
      const redirected = await page.goto(`http://site.test:${sitePort}/redirect`, { timeout: 15_000 });
      assert.equal(redirected?.status(), 403);
      const rebound = await page.goto(`http://rebind.test:${tripwire.port}/`, { timeout: 15_000 });
      assert.equal(rebound?.status(), 403);
      await assert.rejects(
        page.goto(`https://rebind.test:${tripwire.port}/`, { timeout: 15_000 }),
        /ERR_TUNNEL_CONNECTION_FAILED/,
      );
    } finally {
      await page.close();
    }
    assert.equal(proxy.explain(`https://rebind.test:${tripwire.port}/`)?.kind, 'blocked');
    assert.equal(proxy.explain(`http://${FORBIDDEN_IP}:${tripwire.port}/after-redirect`)?.retryable, false);
    assert.equal(tripwire.connections(), 0);
  });

  it('sends no UDP outside the proxy: a page that gathers WebRTC candidates against a STUN server reaches nothing', async () => {
    const stun = dgram.createSocket('udp4');
    let datagrams = 0;
    stun.on('message', () => datagrams++);
    await new Promise<void>((resolve) => stun.bind(0, FORBIDDEN_IP, resolve));
    const stunPort = stun.address().port;
    const page = await chromium.browser.newPage();
    try {
      await page.goto(`http://site.test:${sitePort}/`, { timeout: 15_000 });
      const gathered = await page.evaluate(async (port) => {
        const pc = new RTCPeerConnection({ iceServers: [{ urls: `stun:127.0.0.2:${port}` }] });
        pc.createDataChannel('probe');
        await pc.setLocalDescription(await pc.createOffer());
        // ICE gathering ends within a few seconds; its STUN binding requests would be sent right away.
        await new Promise<void>((resolve) => {
          if (pc.iceGatheringState === 'complete') return resolve();
          pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
          setTimeout(resolve, 8_000);
        });
        const candidates = (pc.localDescription?.sdp ?? '')
          .split('\n')
          .filter((l) => l.startsWith('a=candidate')).length;
        pc.close();
        return candidates;
      }, stunPort);
      assert.equal(datagrams, 0, `the STUN server got ${datagrams} datagrams (${gathered} candidates gathered)`);
    } finally {
      await page.close();
      stun.close();
    }
  });
});
