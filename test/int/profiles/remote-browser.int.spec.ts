import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAddressPolicy } from '../../../src/net/address-policy.js';
import { type EgressProxy, startEgressProxy } from '../../../src/net/egress-proxy.js';
import type { Viewer } from '../../../src/profiles/remote-browser/browser-session.js';
import {
  createRemoteBrowsers,
  type Connection,
  type RemoteBrowsers,
  type SessionOwner,
} from '../../../src/profiles/remote-browser/remote-browsers.js';
import { createSharedBrowser } from '../../../src/profiles/remote-browser/shared-browser.js';
import type { ServiceMessage } from '../../../src/profiles/remote-browser/viewer-messages.js';
import { memoryProfileStates, type MemoryProfileStates } from '../../support/memory-profile-states.js';
import { loginFieldCentres, MEMBER, type SignInSite, startSignInSite } from '../../support/sign-in-site.js';
import { launchChromium } from '../../../src/capture/browser-launch.js';
import { eventually } from '../../support/eventually.js';

/**
 * The remote browser below its routes, in the real Chromium behind the real egress proxy: a viewer gets frames,
 * signs in by input messages alone, and Save hands the site's session cookie and localStorage to ProfileStates;
 * file:, chrome: and devtools: addresses are refused, a private address not allowed is refused by the proxy, a popup
 * opens in the one tab, and the idle limit ends a session. Conditions are waited for, never timed.
 */

interface TestViewer extends Viewer {
  frames: number;
  messages: ServiceMessage[];
  ended: string | null;
  end(reason: string): void;
  last<T extends ServiceMessage['t']>(t: T): Extract<ServiceMessage, { t: T }> | undefined;
}
function testViewer(): TestViewer {
  const v: TestViewer = {
    frames: 0,
    messages: [],
    ended: null,
    frame(_jpeg, taken) {
      v.frames++;
      taken();
    },
    send(m) {
      v.messages.push(m);
    },
    end(reason) {
      v.ended = reason;
    },
    last: (t) => v.messages.filter((m) => m.t === t).at(-1) as never,
  };
  return v;
}

describe('remote browser sessions', () => {
  let site: SignInSite;
  let proxy: EgressProxy;
  let states: MemoryProfileStates;
  let browsers: RemoteBrowsers;
  const owner: SessionOwner = { tenantId: 'tenant-a', holder: 'console:a', actor: 'key:a' };

  before(async () => {
    site = await startSignInSite();
    proxy = await startEgressProxy({ policy: createAddressPolicy({ allowCidrs: [`127.0.0.1/32`] }) });
    states = memoryProfileStates();
    browsers = createRemoteBrowsers({
      browser: createSharedBrowser({ proxyServer: async () => proxy.url }),
      states,
      limits: { idleMs: 600_000, maxMs: 600_000, perTenant: 2, total: 3 },
      viewport: { width: 1280, height: 800 },
    });
  });
  after(async () => {
    await browsers?.stop();
    await proxy?.close();
    await site?.close();
  });

  async function open(startPath?: string) {
    const opened = await browsers.open(owner, startPath ? { startUrl: site.url(startPath) } : {});
    const viewer = testViewer();
    const connection = await browsers.connect(owner, opened.id, viewer);
    return { id: opened.id, viewer, connection };
  }
  const atPage = (viewer: TestViewer, path: string) =>
    eventually(`the page ${path}`, () => viewer.last('location')?.url === site.url(path));

  /** Clicks at a point and types, as the console sends a person's input. */
  async function clickAndType(c: Connection, x: number, y: number, text: string) {
    c.message({ t: 'mouse', kind: 'down', x, y, button: 'left', clickCount: 1, modifiers: 0 });
    c.message({ t: 'mouse', kind: 'up', x, y, button: 'left', clickCount: 1, modifiers: 0 });
    for (const ch of text) {
      c.message({
        t: 'key',
        kind: 'down',
        key: ch,
        code: '',
        keyCode: ch.toUpperCase().charCodeAt(0),
        text: ch,
        modifiers: 0,
      });
      c.message({ t: 'key', kind: 'up', key: ch, code: '', keyCode: ch.toUpperCase().charCodeAt(0), modifiers: 0 });
    }
  }

  it('streams frames, signs in by input alone, and saves the session cookie and localStorage', {
    timeout: 180_000,
  }, async () => {
    const { id, viewer, connection } = await open('/login');
    assert.deepEqual(viewer.messages[0], { t: 'viewport', width: 1280, height: 800 });
    await atPage(viewer, '/login');
    await eventually('a frame', () => viewer.frames > 0);
    // Where the form's fields are, read from the site's page at the remote browser's size.
    const probe = await launchChromium();
    const layout = await loginFieldCentres(probe.browser, site).finally(() => probe.close());
    await clickAndType(connection, layout.user.x, layout.user.y, MEMBER.user);
    await clickAndType(connection, layout.password.x, layout.password.y, MEMBER.password);
    connection.message({ t: 'key', kind: 'down', key: 'Enter', code: 'Enter', keyCode: 13, text: '\r', modifiers: 0 });
    connection.message({ t: 'key', kind: 'up', key: 'Enter', code: 'Enter', keyCode: 13, modifiers: 0 });
    await atPage(viewer, '/members');
    assert.equal(site.signIns(), 1);
    const saved = await browsers.save(owner, id, { name: 'Members' });
    assert.equal(saved.name, 'Members');
    const { state, actor } = states.saved.at(-1)!;
    assert.equal(actor, 'key:a');
    const cookie = state.cookies.find((c) => c.name === 'member_session');
    assert.ok(cookie, JSON.stringify(state.cookies));
    assert.equal(cookie.value, site.sessionValue);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    assert.ok(cookie.expires > Date.now() / 1000);
    assert.deepEqual(state.origins, [
      { origin: site.origin, localStorage: [{ name: 'member_theme', value: site.storageValue }] },
    ]);
    assert.match(viewer.ended ?? '', /Saved as version 1/);
    assert.equal(browsers.has(owner, id), false);

    // Refresh: a new session starts from the saved contents (its cookie and, once a page of the origin opens, its
    // localStorage: /login sets none itself), and Save makes version 2.
    const refreshed = await browsers.open(owner, { profileId: saved.id, startUrl: site.url('/login') });
    const v2 = testViewer();
    await browsers.connect(owner, refreshed.id, v2);
    await eventually('the sign-in page title', () => v2.last('location')?.title === 'Sign in');
    const again = await browsers.save(owner, refreshed.id, {});
    assert.equal(again.version, 2);
    const second = states.saved.at(-1)!.state;
    assert.equal(second.cookies.find((c) => c.name === 'member_session')?.value, cookie.value);
    assert.deepEqual(second.origins, state.origins);
  });

  it('refuses file:, chrome: and devtools: addresses, and the proxy refuses a private address', {
    timeout: 120_000,
  }, async () => {
    const { id, viewer, connection } = await open();
    for (const url of [
      'file:///etc/passwd',
      'chrome://settings',
      'devtools://devtools/bundled/inspector.html',
      'javascript:alert(1)',
    ]) {
      connection.message({ t: 'navigate', url });
      await eventually(`the refusal of ${url}`, () =>
        viewer.messages.some((m) => m.t === 'refused' && m.reason.includes(new URL(url).protocol)),
      );
    }
    // 10.0.0.1 is private and not allowed: the egress proxy refuses it, so no page of it is shown.
    connection.message({ t: 'navigate', url: 'http://10.0.0.1/' });
    await eventually('the refusal at the proxy', () => proxy.explain('http://10.0.0.1/')?.kind === 'blocked');
    await browsers.end(owner, id);
  });

  it('keeps one tab: a link to a new tab opens in the tab', { timeout: 120_000 }, async () => {
    const { id, viewer, connection } = await open('/popup');
    await atPage(viewer, '/popup');
    await eventually('a frame', () => viewer.frames > 0);
    connection.message({ t: 'mouse', kind: 'down', x: 100, y: 70, button: 'left', clickCount: 1, modifiers: 0 });
    connection.message({ t: 'mouse', kind: 'up', x: 100, y: 70, button: 'left', clickCount: 1, modifiers: 0 });
    await atPage(viewer, '/members');
    await browsers.end(owner, id);
  });

  it('is reachable by its tenant and holder only, and counts against the limits', { timeout: 120_000 }, async () => {
    const { id } = await open();
    assert.equal(browsers.has({ ...owner, tenantId: 'tenant-b' }, id), false);
    assert.equal(browsers.has({ ...owner, holder: 'console:other' }, id), false);
    await assert.rejects(browsers.connect({ ...owner, tenantId: 'tenant-b' }, id, testViewer()), { code: 'not_found' });
    await assert.rejects(browsers.end({ ...owner, tenantId: 'tenant-b' }, id), { code: 'not_found' });
    const second = await browsers.open(owner, {});
    await assert.rejects(browsers.open(owner, {}), { code: 'tenant_limit' });
    const other = await browsers.open({ ...owner, tenantId: 'tenant-b' }, {});
    await assert.rejects(browsers.open({ ...owner, tenantId: 'tenant-c' }, {}), { code: 'busy' });
    await assert.rejects(browsers.open({ ...owner, tenantId: 'tenant-c' }, { profileId: 'prf_x' }), { code: 'busy' });
    for (const [o, s] of [
      [owner, id],
      [owner, second.id],
      [{ ...owner, tenantId: 'tenant-b' }, other.id],
    ] as const)
      await browsers.end(o, s);
    await assert.rejects(browsers.open(owner, { profileId: 'prf_unknown' }), { code: 'unknown_profile' });
  });

  it('starts the screencast again when frame acknowledgements fail, instead of freezing the picture', {
    timeout: 120_000,
  }, async () => {
    // A lost acknowledgement, injected where the session sends it: Chromium sends no frame beyond those in flight.
    const shared = createSharedBrowser({ proxyServer: async () => proxy.url });
    const warnings: string[] = [];
    const faulty = createRemoteBrowsers({
      browser: shared,
      states,
      limits: { idleMs: 600_000, maxMs: 600_000, perTenant: 1, total: 1 },
      viewport: { width: 800, height: 600 },
      log: { info() {}, warn: (_obj, msg) => void warnings.push(msg) },
    });
    const { browser } = await shared.acquire();
    const probe = await (await browser.pages())[0]!.createCDPSession();
    const cdpSession = Object.getPrototypeOf(probe) as { send: (method: string, params?: object) => Promise<unknown> };
    await probe.detach();
    const send = cdpSession.send;
    let toFail = 0;
    cdpSession.send = function (this: unknown, method: string, params?: object) {
      if (method === 'Page.screencastFrameAck' && toFail > 0) {
        toFail--;
        return Promise.reject(new Error('injected: the acknowledgement was lost'));
      }
      return send.call(this, method, params);
    };
    try {
      const opened = await faulty.open(owner, { startUrl: site.url('/animate') });
      const viewer = testViewer();
      await faulty.connect(owner, opened.id, viewer);
      await eventually('frames of the animation', () => viewer.frames > 5);
      toFail = 5;
      await eventually('the failed acknowledgements', () => toFail === 0);
      const after = viewer.frames;
      await eventually('frames after the failed acknowledgements', () => viewer.frames > after + 5);
      assert.ok(
        warnings.some((w) => /restarting the screencast/.test(w)),
        `warnings: ${warnings.join('; ')}`,
      );
    } finally {
      cdpSession.send = send;
      await faulty.stop();
    }
  });

  it('ends a session after the idle limit', { timeout: 120_000 }, async () => {
    const short = createRemoteBrowsers({
      browser: createSharedBrowser({ proxyServer: async () => proxy.url }),
      states,
      limits: { idleMs: 1500, maxMs: 600_000, perTenant: 1, total: 1 },
      viewport: { width: 800, height: 600 },
    });
    try {
      const opened = await short.open(owner, {});
      const viewer = testViewer();
      await short.connect(owner, opened.id, viewer);
      await eventually('the idle end', () => viewer.ended);
      assert.match(viewer.ended!, /idle/);
      assert.equal(short.count(), 0);
    } finally {
      await short.stop();
    }
  });
});
