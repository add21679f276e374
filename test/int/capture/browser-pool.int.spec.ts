import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaptureError } from '../../../src/capture/capture-error.js';
import { classify } from '../../../src/capture/capture-worker.js';
import { createBrowserPool, type BrowserPool } from '../../../src/capture/browser-pool.js';
import { wallClockHostLoad } from '../../../src/capture/host-load.js';
import { startFixtureSite, type FixtureSite } from '../../support/fixture-site.js';

// Generous: a busy machine makes captures slower (DESIGN decision 13); only a hang should reach it.
const T = { timeout: 300_000 };
const QUICK = { timeoutMs: 5000, handleConsent: false, settleCapMs: 1000, quietWindowMs: 100 };

async function waitFor(condition: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('browser pool (real Chromium)', () => {
  let site: FixtureSite;
  const pools: BrowserPool[] = [];
  const pool = (options: Parameters<typeof createBrowserPool>[0]) => {
    const created = createBrowserPool(options);
    pools.push(created);
    return created;
  };

  before(async () => {
    site = await startFixtureSite();
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await site?.close();
  });

  it('runs captures concurrently and replaces the browser after N captures', T, async () => {
    const browsers = pool({ concurrency: 2, maxCapturesPerBrowser: 2 });
    const first = await Promise.all([
      browsers.capture(site.url('/simple'), QUICK),
      browsers.capture(site.url('/simple'), QUICK),
    ]);
    assert.ok(first.every((r) => r.renderQuality === 'full'));
    const firstPid = browsers.stats().browserPid;
    assert.equal(browsers.stats().launches, 1);
    assert.equal(browsers.stats().capturesOnBrowser, 2);

    const third = await browsers.capture(site.url('/simple'), QUICK);
    assert.equal(third.mainStatus, 200);
    const stats = browsers.stats();
    assert.equal(stats.launches, 2);
    assert.equal(stats.capturesOnBrowser, 1);
    assert.equal(stats.totalCaptures, 3);
    assert.notEqual(stats.browserPid, firstPid);
    await waitFor(() => !processAlive(firstPid!));
  });

  it('queues captures beyond the concurrency limit', T, async () => {
    const browsers = pool({ concurrency: 1 });
    const running = browsers.capture(site.url('/slow-image'), { ...QUICK, timeoutMs: 1500 });
    const queued = browsers.capture(site.url('/simple'), QUICK);
    await waitFor(() => browsers.stats().queued === 1);
    assert.equal(browsers.stats().running, 1);
    assert.equal((await running).renderQuality, 'partial');
    assert.equal((await queued).renderQuality, 'full');
    await waitFor(() => browsers.stats().running === 0); // once its context has closed
  });

  it('answers a capture before its context has closed, and frees the slot once it has', T, async () => {
    const browsers = pool({ concurrency: 1 });
    const first = await browsers.capture(site.url('/simple'), QUICK);
    assert.equal(first.renderQuality, 'full');
    // The context is closing beside whatever the caller does next: the slot is not free yet.
    assert.equal(browsers.stats().running, 1);
    const next = browsers.capture(site.url('/simple'), QUICK);
    assert.equal(browsers.stats().queued, 1);
    await waitFor(() => browsers.stats().queued === 0);
    assert.equal((await next).renderQuality, 'full');
    await waitFor(() => browsers.stats().running === 0);
  });

  it('reports a killed browser as a retryable error and starts a fresh one for the next capture', T, async () => {
    const browsers = pool({ concurrency: 2 });
    await browsers.capture(site.url('/simple'), QUICK); // browser up
    const pid = browsers.stats().browserPid!;
    const hangsBefore = site.requests.filter((r) => r.path === '/hang').length;
    const capture = browsers.capture(site.url('/slow-image'), { ...QUICK, timeoutMs: 10_000 });
    await waitFor(() => site.requests.filter((r) => r.path === '/hang').length > hangsBefore); // mid-navigation
    process.kill(pid, 'SIGKILL');

    await assert.rejects(capture, (error: unknown) => {
      assert.ok(error instanceof CaptureError);
      assert.equal(error.code, 'browser_crashed');
      assert.equal(error.retryable, true);
      return true;
    });
    const next = await browsers.capture(site.url('/simple'), QUICK);
    assert.equal(next.renderQuality, 'full');
    const stats = browsers.stats();
    assert.equal(stats.crashes, 1);
    assert.equal(stats.launches, 2);
    assert.notEqual(stats.browserPid, pid);
  });

  it('stops a capture that overruns its time, as a retryable timeout, and keeps working', T, async () => {
    // On the wall clock: on the page clock a busy host may stretch the limit until the wall-clock safety net
    // stops the capture as the service's failure instead (test/e2e/overload.e2e.spec.ts covers the busy host).
    const browsers = pool({ concurrency: 1, hungPageKillMs: 1000, hostLoad: wallClockHostLoad });
    const started = Date.now();
    // The page's script spins forever: evaluate and screenshot would never return.
    await assert.rejects(
      browsers.capture(site.url('/busy'), { ...QUICK, timeoutMs: 1000, handleConsent: true }),
      (error: unknown) => {
        assert.ok(error instanceof CaptureError);
        assert.equal(error.code, 'timeout');
        assert.equal(error.retryable, true);
        return true;
      },
    );
    // Stopped by the timeout rather than left spinning (a hang would end only at the test's own limit).
    assert.ok(Date.now() - started < 60_000, `stopped after ${Date.now() - started} ms`);
    assert.equal(browsers.stats().killed, 1);
    const next = await browsers.capture(site.url('/simple'), { ...QUICK, timeoutMs: 120_000 });
    assert.equal(next.renderQuality, 'full');
  });

  it('sends every request, loopback included, through the configured proxy', T, async () => {
    const proxy = await startForwardProxy((url) => url.pathname.startsWith('/status/'));
    try {
      const browsers = pool({ concurrency: 1, proxyServer: proxy.url });
      const result = await browsers.capture(site.url('/simple'), QUICK);
      assert.equal(result.renderQuality, 'full');
      assert.ok(proxy.seen.includes(site.url('/simple')));
      assert.ok(proxy.seen.includes(site.url('/assets/app.js')));

      // The proxy refuses /status/*; its explanation turns the refusal into a 'blocked' failure.
      const refused = (url: string) =>
        proxy.refused.includes(url) ? { reason: 'The proxy refused this address', retryable: false } : undefined;
      await assert.rejects(
        browsers.capture(site.url('/status/200'), { ...QUICK, explainNetworkError: refused }),
        (error: unknown) => {
          assert.ok(error instanceof CaptureError);
          assert.equal(error.code, 'blocked');
          assert.equal(error.message, 'The proxy refused this address');
          return true;
        },
      );
    } finally {
      await proxy.close();
    }
  });

  it(
    "fails a capture whose browser cannot start as the service's own failure, carrying Chromium's own words",
    T,
    async () => {
      // A stand-in binary that dies the way Chromium does when its TMPDIR path is too long.
      const dir = await mkdtemp(join(tmpdir(), 'fake-chromium-'));
      await chmod(dir, 0o755); // run as nobody when the tests run as root
      const binary = join(dir, 'chromium');
      await writeFile(
        binary,
        '#!/bin/sh\necho "[0101/000000.000000:FATAL:named_platform_channel_posix.cc(54)] Socket path too long: /tmp/x" >&2\nexit 1\n',
        { mode: 0o755 },
      );
      try {
        const browsers = pool({ concurrency: 1, chromiumPath: binary });
        await assert.rejects(browsers.capture(site.url('/simple'), QUICK), (error: unknown) => {
          assert.ok(error instanceof CaptureError);
          assert.equal(error.code, 'browser_crashed');
          assert.equal(classify(error).owner, 'service', 'retried with backoff, outside the page attempts');
          assert.match(
            String((error.cause as Error | undefined)?.message),
            /Socket path too long/,
            "the cause keeps Chromium's message for the log",
          );
          return true;
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('refuses captures after close', T, async () => {
    const browsers = pool({ concurrency: 1 });
    await browsers.capture(site.url('/simple'), QUICK);
    const pid = browsers.stats().browserPid!;
    await browsers.close();
    await waitFor(() => !processAlive(pid));
    await assert.rejects(
      browsers.capture(site.url('/simple'), QUICK),
      (error: unknown) => error instanceof CaptureError && error.retryable,
    );
  });
});

/** A plain-HTTP forward proxy that records the URLs it is asked for and refuses some with 403. */
async function startForwardProxy(refuse: (url: URL) => boolean) {
  const seen: string[] = [];
  const refused: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '');
    seen.push(url.href);
    if (refuse(url)) {
      refused.push(url.href);
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('refused by proxy');
      return;
    }
    const upstream = request(url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
