// Chromium makes no connection of its own (DESIGN decision 6, README "Capture under load"): over a run of
// captures through the real egress proxy, the proxy is asked only for the fixture's addresses — no update,
// account, metrics, safe-browsing or hint host of the browser's vendor. Names are answered by a resolver
// that only records them: nothing leaves the machine.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBrowserPool, type BrowserPool } from '../../../src/capture/browser-pool.js';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import { createConnectionLog } from '../../../src/net/connection-log.js';
import { startEgressProxy, type EgressProxy } from '../../../src/net/egress-proxy.js';
import { startFixtureSite, type FixtureSite } from '../../support/fixture-site.js';

describe('egress of the browser itself', () => {
  let site: FixtureSite;
  let proxy: EgressProxy;
  let browsers: BrowserPool;
  const namesAsked: string[] = [];
  const connected: string[] = [];
  const logged: string[] = [];

  before(async () => {
    site = await startFixtureSite();
    const connections = createConnectionLog({ probeTls: false });
    proxy = await startEgressProxy({
      policy: createAddressPolicy({ allowCidrs: ['127.0.0.0/8'] }),
      resolve: async (host) => {
        namesAsked.push(host);
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
      connections: {
        record: (event) => {
          connected.push(event.host);
          connections.record(event);
        },
        observed: (hosts, since) => connections.observed(hosts, since),
      },
      log: { info: (obj) => logged.push(JSON.stringify(obj)), warn: (obj) => logged.push(JSON.stringify(obj)) },
    });
    browsers = createBrowserPool({ concurrency: 2, proxyServer: proxy.url });
  });
  after(async () => {
    await browsers?.close();
    await proxy?.close();
    await site?.close();
  });

  it('asks the proxy only for the pages and their subresources over a run of captures', {
    timeout: 300_000,
  }, async () => {
    for (const path of ['/simple', '/article', '/consent', '/lazy', '/iframe-consent']) {
      const result = await browsers.capture(site.url(path), { timeoutMs: 60_000 });
      assert.ok(result.screenshot.length > 0, path);
    }
    // Background fetches of a browser start within seconds of its start and of its first pages.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    assert.deepEqual(namesAsked, [], `Chromium asked for names of its own: ${namesAsked.join(', ')}`);
    const foreign = connected.filter((host) => !/^127\.\d+\.\d+\.\d+$/.test(host));
    assert.deepEqual(foreign, [], `connections beyond the fixture: ${foreign.join(', ')}`);
    assert.ok(connected.length > 0, 'the captures went through the proxy');
  });
});
