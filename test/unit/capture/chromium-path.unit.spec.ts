import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ChromiumNotFoundError, resolveChromiumPath } from '../../../src/capture/chromium-path.js';
import { chromiumArgs } from '../../../src/capture/browser-launch.js';

describe('resolveChromiumPath', () => {
  const only =
    (...present: string[]) =>
    (path: string) =>
      present.includes(path);

  it('uses the configured path when it is executable', () => {
    assert.equal(
      resolveChromiumPath({ explicitPath: '/opt/chrome', isExecutable: only('/opt/chrome', '/usr/bin/chromium') }),
      '/opt/chrome',
    );
  });

  it('refuses a configured path that does not exist instead of falling back', () => {
    assert.throws(
      () => resolveChromiumPath({ explicitPath: '/nope/chrome', isExecutable: only('/usr/bin/chromium') }),
      (error: unknown) => error instanceof ChromiumNotFoundError && /CHROMIUM_PATH=\/nope\/chrome/.test(error.message),
    );
  });

  it('prefers the real Debian binary over the wrapper script', () => {
    assert.equal(
      resolveChromiumPath({ isExecutable: only('/usr/lib/chromium/chromium', '/usr/bin/chromium') }),
      '/usr/lib/chromium/chromium',
    );
    assert.equal(resolveChromiumPath({ isExecutable: only('/usr/bin/chromium') }), '/usr/bin/chromium');
  });

  it('names what to install when nothing is found', () => {
    assert.throws(() => resolveChromiumPath({ isExecutable: only() }), /apt-get install -y chromium/);
  });
});

describe('chromiumArgs', () => {
  it('sends even loopback through the egress proxy when one is set', () => {
    const args = chromiumArgs({ proxyServer: 'http://127.0.0.1:8899' });
    assert.ok(args.includes('--proxy-server=http://127.0.0.1:8899'));
    assert.ok(args.includes('--proxy-bypass-list=<-loopback>'));
    assert.ok(args.includes('--disable-quic'));
  });

  it('has no proxy flags without a proxy', () => {
    assert.ok(!chromiumArgs({}).some((a) => a.startsWith('--proxy')));
  });
});
