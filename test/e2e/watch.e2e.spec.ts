import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { PNG } from 'pngjs';
import { fixedClock } from '../../src/domain/clock.js';
import { projectRoot } from '../../src/infra/project-root.js';
import { launchChromium } from '../../src/capture/browser-launch.js';
import { DURABLES } from '../../src/infra/topology.js';
import { createScheduler } from '../../src/schedules/scheduler.js';
import { decodeLeaf } from '../../src/transparency/leaf.js';
import { createLogClient } from '../../src/transparency/log-client.js';
import { parseCheckpointNote } from '../../packages/verifier/src/index.js';
import { assertAccessible } from '../support/console-browser.js';
import { cliArgs } from '../support/service-entry.js';
import { ADMIN_KEY, assertProblem, startTestServer, type TestServer } from '../support/test-server.js';
import { newsOf, startWatchSite, type WatchSite } from '../support/watch-site.js';
import { assertSigned, makePki, type Pki, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/**
 * Watch lists end to end (docs/watch.md) with a real browser: a watched schedule's runs of a page whose
 * paragraph, header and image change between editions while its ad slot rotates on every request. The scheduler
 * is driven with a fixed clock, one tick per run; a real HTTPS receiver checks each webhook's signature.
 */

const HOUR = 3_600_000;

/** The operator CLI as a separate process. */
const runCli = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [...cliArgs(), ...args], { cwd: projectRoot, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({
        code: err ? ((err as { code?: number }).code ?? 1) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
      }),
    );
  });

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 240_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('watch lists', () => {
  let pki: Pki;
  let rx: Receiver;
  let site: WatchSite;
  let s: TestServer;
  let token: string;
  let otherToken: string;
  let scheduleId: string;
  let changedSecret: string;
  const runs: string[] = [];
  const clock = fixedClock(new Date(Math.ceil(Date.now() / HOUR) * HOUR + HOUR + 60_000));

  const key = async (tenantId: string) => {
    const r = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId, scopes: ['capture', 'read'], name: tenantId },
    });
    assert.equal(r.status, 201, r.text);
    return r.body.key as string;
  };

  const runList = async () => {
    const r = await s.call('GET', `/v1/schedules/${scheduleId}/runs`, { token });
    assert.equal(r.status, 200, r.text);
    return r.body.data as any[];
  };

  /** Fires the schedule once (the clock an hour on) and waits until the run is complete and, after the first, compared. */
  async function run(edition: number): Promise<any> {
    site.edition = edition;
    const scheduler = createScheduler({
      pool: s.server.ctx.pool,
      tenants: s.server.ctx.tenants,
      clock,
      log: pino({ level: 'silent' }),
    });
    const report = await scheduler.tick();
    const fired = report.fired.find((f) => f.scheduleId === scheduleId);
    assert.equal(fired?.outcome.kind, 'fired', JSON.stringify(report));
    const captureId = (fired!.outcome as { captureId: string }).captureId;
    runs.push(captureId);
    clock.advance(HOUR);
    return waitFor(`run ${runs.length} to be ${runs.length > 1 ? 'compared' : 'complete'}`, async () => {
      const r = (await runList()).find((x) => x.captureId === captureId);
      assert.notEqual(r?.status, 'failed', JSON.stringify(r));
      if (r?.status !== 'complete') return undefined;
      return runs.length === 1 || r.comparison ? r : undefined;
    });
  }

  /** Every ledger event handed to webhook deliveries and every delivery sent: nothing more is on its way. */
  async function webhooksSettled() {
    const { jsm } = s.server.nats!;
    await waitFor('the webhook feeder and dispatcher to be idle', async () => {
      const feeder = await jsm.consumers.info(DURABLES.webhookFeeder.stream, DURABLES.webhookFeeder.name);
      const sender = await jsm.consumers.info(DURABLES.webhookDispatchers.stream, DURABLES.webhookDispatchers.name);
      const idle = (i: typeof feeder) => i.num_pending === 0 && i.num_ack_pending === 0;
      return idle(feeder) && idle(sender) ? true : undefined;
    });
  }

  before(async () => {
    pki = await makePki();
    rx = await startReceiver(pki);
    site = await startWatchSite();
    s = await startTestServer({
      // A signer, so each capture has its bundle: the resources part of a diff reads the WARCs in them.
      ROLES: 'api,projector,worker,dispatcher,signer,sequencer',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      WEBHOOK_CA_CERTS: pki.caPath,
      WEBHOOK_RETRY_DELAYS: '1,1,1',
      CAPTURE_TIMEOUT_MS: '20000',
      WORKER_CONCURRENCY: '1',
      RATE_LIMIT_IP_PER_MIN: '100000',
    });
    token = await key('watcher');
    otherToken = await key('watcher-other');
    const changed = await s.call('POST', '/v1/webhooks', {
      token,
      body: {
        url: rx.url('/changed'),
        events: ['capture.failed'],
        extensionEvents: ['capture.changed'],
        name: 'changes',
      },
    });
    assert.equal(changed.status, 201, changed.text);
    assert.deepEqual(changed.body.events, ['capture.failed']);
    assert.deepEqual(changed.body.extensionEvents, ['capture.changed']);
    changedSecret = changed.body.secret;
    const spec = await s.call('POST', '/v1/webhooks', {
      token,
      body: { url: rx.url('/spec'), events: ['capture.complete', 'capture.failed'], name: 'spec events' },
    });
    assert.equal(spec.status, 201, spec.text);
    assert.equal('extensionEvents' in spec.body, false, 'a spec client sees the spec record');
  });

  after(async () => {
    await s?.stop();
    await site?.close();
    await rx?.close();
    if (pki) await rm(pki.dir, { recursive: true, force: true });
  });

  it('refuses malformed watch settings naming the field', async () => {
    for (const [watch, field] of [
      [{ ignoreSelectors: ['div[['] }, 'watch.ignoreSelectors'],
      [{ ignoreText: ['(x'] }, 'watch.ignoreText'],
      [{ minTextChange: 2 }, 'watch.minTextChange'],
      [{ notifyOn: 'always' }, 'watch.notifyOn'],
    ] as const) {
      const r = await s.call('POST', '/v1/schedules', {
        token,
        body: { url: site.url('/watched'), name: 'bad', cron: '0 * * * *', watch },
      });
      assertProblem(r.body, 400);
      assert.ok(r.body.detail.startsWith(field), r.body.detail);
    }
    // Each run records the boxes of both lists: together they keep the limit of one.
    const selectors = (prefix: string) => Array.from({ length: 11 }, (_, i) => `#${prefix}${i}`);
    const tooMany = await s.call('POST', '/v1/schedules', {
      token,
      body: {
        url: site.url('/watched'),
        name: 'bad',
        cron: '0 * * * *',
        options: { recordBoxes: selectors('a') },
        watch: { ignoreSelectors: selectors('b') },
      },
    });
    assertProblem(tooMany.body, 400);
    assert.ok(tooMany.body.detail.startsWith('options.recordBoxes'), tooMany.body.detail);
    // Likewise the patterns whose text boxes each run records.
    const tooManyPatterns = await s.call('POST', '/v1/schedules', {
      token,
      body: {
        url: site.url('/watched'),
        name: 'bad',
        cron: '0 * * * *',
        options: { recordTextBoxes: Array.from({ length: 11 }, (_, i) => `a${i}`) },
        watch: { ignoreText: Array.from({ length: 11 }, (_, i) => `b${i}`) },
      },
    });
    assertProblem(tooManyPatterns.body, 400);
    assert.ok(tooManyPatterns.body.detail.startsWith('options.recordTextBoxes'), tooManyPatterns.body.detail);
  });

  it('compares each run with the one before and fires capture.changed only on a change beyond the ad slot', async () => {
    const created = await s.call('POST', '/v1/schedules', {
      token,
      body: {
        url: site.url('/watched'),
        name: 'Town news',
        cron: '0 * * * *',
        watch: { notifyOn: 'change', ignoreSelectors: ['aside.ad'] },
      },
    });
    assert.equal(created.status, 201, created.text);
    scheduleId = created.body.id;
    assert.deepEqual(created.body.watch, {
      notifyOn: 'change',
      minTextChange: 0,
      minPixelChange: null,
      ignoreSelectors: ['aside.ad'],
      ignoreText: [],
    });

    const first = await run(1);
    assert.equal(first.comparison, null, 'nothing to compare the first run with');
    const adOnly = await run(1);
    assert.equal(adOnly.comparison.baseCaptureId, runs[0]);
    assert.equal(adOnly.comparison.notified, false, JSON.stringify(adOnly.comparison));
    assert.equal(adOnly.comparison.summary.textBlocksChanged, 0);
    assert.equal(adOnly.comparison.summary.resourcesChanged, 0, JSON.stringify(adOnly.comparison.summary));
    // ignoreSelectors on pixels: every watched run recorded where the ad slot was on its screenshot, in the signed
    // captureSettings, so the diff masks it in both images and the ad-only run's pixels did not change.
    const record = await s.call('GET', `/v1/captures/${runs[1]}`, { token });
    assert.deepEqual(record.body.captureSettings.recordBoxes, ['aside.ad']);
    const [adBox] = record.body.captureSettings.elementBoxes.boxes['aside.ad'];
    assert.ok(adBox.width > 0 && adBox.height > 0, JSON.stringify(record.body.captureSettings.elementBoxes));
    const adDiff = await s.call('GET', `/v1/captures/${runs[1]}/diff?base=${runs[0]}&ignoreSelectors=aside.ad`, {
      token,
    });
    assert.equal(adDiff.status, 200, adDiff.text);
    assert.deepEqual(adDiff.body.screenshot.ignored, {
      masked: ['aside.ad'],
      notRecorded: [],
      maskedText: [],
      textNotRecorded: [],
    });
    assert.equal(adDiff.body.screenshot.changedRatio, 0, JSON.stringify(adDiff.body.screenshot));
    assert.equal(adOnly.comparison.summary.pixelChangeRatio, 0, JSON.stringify(adOnly.comparison.summary));
    const identical = await run(1);
    assert.equal(identical.comparison.notified, false, JSON.stringify(identical.comparison));
    await webhooksSettled();
    assert.equal(rx.at('/changed').length, 0, 'no capture.changed for the ad slot nor an identical run');

    const edition2 = await run(2);
    assert.equal(edition2.comparison.changed, true);
    assert.equal(edition2.comparison.notified, true);
    const [got] = await waitFor('capture.changed', () => (rx.at('/changed').length ? rx.at('/changed') : undefined));
    assertSigned(changedSecret, got!);
    assert.equal(got!.body.type, 'capture.changed');
    assert.equal(got!.body.data.captureId, runs[3]);
    assert.equal(got!.body.data.baseCaptureId, runs[2]);
    assert.equal(got!.body.data.scheduleId, scheduleId);
    assert.equal(got!.body.data.summary.textBlocksChanged, 1);
    assert.ok(got!.body.data.diffUrl.endsWith(`/v1/captures/${runs[3]}/diff?base=${runs[2]}`));

    await webhooksSettled();
    assert.equal(rx.at('/changed').length, 1, 'exactly one capture.changed');
    assert.ok(
      rx.at('/spec').every((r) => r.body.type === 'capture.complete'),
      'a webhook of the spec types never gets capture.changed',
    );
  });

  it('diffs two captures: exactly the paragraph, the header and the image changed', async () => {
    const [, , base, next] = runs;
    const plain = await s.call('GET', `/v1/captures/${next}/diff?base=${base}`, { token });
    assert.equal(plain.status, 200, plain.text);
    const d = plain.body;
    assert.equal(d.sameUrl, true);
    assert.equal(d.base.captureId, base);
    assert.match(d.base.bundleHash, /^sha256:[0-9a-f]{64}$/);
    assert.equal(d.capture.captureId, next);
    const textChanges = d.text.changes.map((c: any) => [c.kind, c.before?.slice(0, 7), c.after?.slice(0, 7)]);
    assert.equal(d.text.changes.length, 2, `the paragraph and the ad slot: ${JSON.stringify(d.text.changes)}`);
    assert.deepEqual(textChanges[0], ['changed', 'Edition', 'Edition']);
    assert.equal(d.text.changes[0].after, newsOf(2));
    assert.match(d.text.changes[1].after, /^Advert \d+/);

    const ignored = await s.call(
      'GET',
      `/v1/captures/${next}/diff?base=${base}&ignoreSelectors=${encodeURIComponent('aside.ad')}`,
      { token },
    );
    assert.equal(ignored.status, 200, ignored.text);
    const i = ignored.body;
    assert.deepEqual(i.text.changes, [
      { kind: 'changed', baseIndex: 1, index: 1, before: newsOf(1), after: newsOf(2) },
    ]);
    assert.deepEqual(
      i.headers.changes.map((c: any) => c.name),
      ['x-edition'],
    );
    // Date has a resolution of one second, and two quick runs can share it: the request id differs on every request.
    assert.ok(
      i.headers.volatile.some((c: any) => c.name === 'x-request-id'),
      `the request id is a volatile change: ${JSON.stringify(i.headers)}`,
    );
    assert.deepEqual(i.resources.added, []);
    assert.deepEqual(i.resources.removed, [], JSON.stringify(i.resources));
    assert.deepEqual(
      i.resources.changed.map((c: any) => new URL(c.url).pathname),
      ['/photo.png'],
    );
    assert.ok(i.screenshot.changedPixels > 0 && i.screenshot.regions.length > 0, JSON.stringify(i.screenshot));
    assert.ok(i.links.image.endsWith(`/v1/captures/${next}/diff.png?base=${base}`));

    const image = await s.call('GET', `/v1/captures/${next}/diff.png?base=${base}`, { token });
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    const png = PNG.sync.read(image.raw);
    assert.equal(png.width, i.screenshot.size.width);
  });

  it('issues the diff as signed, time-stamped evidence the CLI verifies offline and refuses once tampered with', async () => {
    const [, , base, next] = runs;
    const path = `/v1/captures/${next}/diff/evidence?base=${base}&ignoreSelectors=aside.ad`;
    // A GET makes nothing (a safe method writes neither the ledger nor the log): 404 until a POST made it.
    const before = await s.call('GET', path, { token });
    assert.equal(before.status, 404, before.text);
    assertProblem(before.body, 404);
    assert.match(before.body.detail, /POST/);
    const first = await s.call('POST', path, { token });
    assert.equal(first.status, 200, first.text);
    const again = await s.call('POST', path, { token });
    assert.ok(again.raw.equals(first.raw), 'made once, then answered as stored');
    const read = await s.call('GET', path, { token });
    assert.equal(read.status, 200, read.text);
    assert.ok(read.raw.equals(first.raw), 'GET serves what POST made');
    const evidence = JSON.parse(first.text);
    const record = JSON.parse(evidence.record);
    assert.equal(record.capture.captureId, next);
    assert.equal(record.base.captureId, base);
    assert.match(record.capture.bundleHash, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(record.options, { ignoreSelectors: ['aside.ad'], ignoreText: [] });
    assert.match(record.parts.screenshot, /^sha256:[0-9a-f]{64}$/);

    // Logged like a bundle: a 'diff' leaf with the record's hash, never the capture id.
    const log = createLogClient(`${s.baseUrl}/v1/log`);
    const leaf = await waitFor('the diff leaf in the transparency log', async () => {
      const note = await log.checkpoint().catch(() => null);
      const size = note ? parseCheckpointNote(note).size : 0;
      if (!size) return undefined;
      const entries = await log.entries(0, Math.min(size, 256));
      return entries.map((e) => decodeLeaf(e)).find((l) => l.kind === 'diff' && l.recordHash === evidence.recordHash);
    });
    assert.deepEqual(leaf, {
      v: 1,
      kind: 'diff',
      captureIdHash: createHash('sha256').update(next!, 'utf8').digest('hex'),
      recordHash: evidence.recordHash,
      keyId: evidence.signature.keyId,
      genTime: evidence.timestamp.genTime,
    });

    const dir = await mkdtemp(join(tmpdir(), 'cl-diff-'));
    try {
      const verify = async (bytes: string) => {
        const file = join(dir, `diff-${Math.random().toString(36).slice(2)}.json`);
        await writeFile(file, bytes);
        const r = await runCli([
          'verify',
          file,
          '--keys-url',
          `${s.baseUrl}/.well-known/signing-keys`,
          '--tsa-ca-url',
          `${s.baseUrl}/.well-known/tsa-certificates`,
        ]);
        return { code: r.code, result: JSON.parse(r.stdout || 'null'), stderr: r.stderr };
      };
      const ok = await verify(first.text);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.result.kind, 'diff');
      assert.deepEqual(
        ok.result.checks.map((c: any) => `${c.name}:${c.status}`),
        ['envelope:pass', 'recordHash:pass', 'signature:pass', 'timestamp:pass'],
      );

      // The record says the page did not change; its hash no longer matches.
      const tampered = { ...evidence, record: evidence.record.replace('"changed":true', '"changed":false') };
      assert.notEqual(tampered.record, evidence.record);
      const bad = await verify(JSON.stringify(tampered));
      assert.equal(bad.code, 1);
      assert.equal(bad.result.checks.find((c: any) => c.name === 'recordHash').status, 'fail');

      // …and with its hash recomputed, the signature and the timestamp no longer cover it.
      const rehashed = {
        ...tampered,
        recordHash: `sha256:${createHash('sha256').update(tampered.record, 'utf8').digest('hex')}`,
      };
      const forged = await verify(JSON.stringify(rehashed));
      assert.equal(forged.code, 1);
      const status = (name: string) => forged.result.checks.find((c: any) => c.name === name).status;
      assert.equal(status('recordHash'), 'pass');
      assert.equal(status('signature'), 'fail');
      assert.equal(status('timestamp'), 'fail');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('certifies a change in a PDF the CLI verifies as a certificate of the newer capture', async () => {
    const [, , base, next] = runs;
    const path = `/v1/captures/${next}/diff/certificate?base=${base}&ignoreSelectors=aside.ad`;
    assert.equal((await s.call('GET', path, { token })).status, 404, 'not made by a GET');
    const r = await s.call('POST', path, { token });
    assert.equal(r.status, 200, r.text);
    assert.ok((await s.call('GET', path, { token })).raw.equals(r.raw), 'GET serves what POST made');
    assert.equal(r.headers.get('content-type'), 'application/pdf');
    const dir = await mkdtemp(join(tmpdir(), 'cl-change-'));
    try {
      const file = join(dir, 'change.pdf');
      await writeFile(file, r.raw);
      const v = await runCli([
        'verify',
        file,
        '--keys-url',
        `${s.baseUrl}/.well-known/signing-keys`,
        '--tsa-ca-url',
        `${s.baseUrl}/.well-known/tsa-certificates`,
      ]);
      assert.equal(v.code, 0, v.stdout + v.stderr);
      const result = JSON.parse(v.stdout);
      assert.equal(result.kind, 'certificate');
      assert.equal(result.certificate.captureId, next);
      assert.deepEqual(
        result.checks.map((c: any) => `${c.name}:${c.status}`),
        ['envelope:pass', 'certificateHash:pass', 'signature:pass', 'timestamp:pass', 'url:pass', 'pdfSignature:pass'],
      );
      const tampered = Buffer.from(r.raw);
      tampered[200] = tampered[200]! ^ 1;
      await writeFile(file, tampered);
      const bad = await runCli(['verify', file, '--keys-url', `${s.baseUrl}/.well-known/signing-keys`]);
      assert.equal(bad.code, 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad diff requests with the error body naming the field', async () => {
    const [a, b] = runs;
    const cases: Array<[string, string | undefined, number, string]> = [
      [`/v1/captures/${b}/diff`, token, 400, 'base'],
      [`/v1/captures/${b}/diff?base=${b}`, token, 400, 'base'],
      [`/v1/captures/${b}/diff?base=cap_00000000000000000000000000000000`, token, 404, 'base'],
      [
        `/v1/captures/${b}/diff?base=${a}&ignoreSelectors=${encodeURIComponent('div[[')}`,
        token,
        400,
        'ignoreSelectors',
      ],
      [`/v1/captures/${b}/diff?base=${a}&ignoreText=${encodeURIComponent('(x')}`, token, 400, 'ignoreText'],
      [`/v1/captures/${b}/diff.png?base=${b}`, token, 400, 'base'],
      [`/v1/captures/${b}/diff?base=${a}`, otherToken, 404, 'Capture'],
    ];
    for (const [path, t, status, field] of cases) {
      const r = await s.call('GET', path, t ? { token: t } : {});
      assertProblem(r.body, status);
      assert.ok(r.body.detail.startsWith(field), `${path}: ${r.body.detail}`);
    }
    const anonymous = await s.call('GET', `/v1/captures/${b}/diff?base=${a}`);
    assertProblem(anonymous.body, 401);

    // A base still pending: a capture of a page that never answers.
    const pending = await s.call('POST', '/v1/captures', { token, body: { url: `${site.url('/hang')}` } });
    assert.equal(pending.status, 202, pending.text);
    const r = await s.call('GET', `/v1/captures/${b}/diff?base=${pending.body.id}`, { token });
    assertProblem(r.body, 404);
    assert.match(r.body.detail, /^base: capture cap_\w+ is pending/);
  });

  it('lists a failed run with its failureReason and compares the next run with the last complete one', async () => {
    site.hang = true;
    const scheduler = createScheduler({
      pool: s.server.ctx.pool,
      tenants: s.server.ctx.tenants,
      clock,
      log: pino({ level: 'silent' }),
    });
    const fired = (await scheduler.tick()).fired.find((f) => f.scheduleId === scheduleId);
    assert.equal(fired?.outcome.kind, 'fired');
    clock.advance(HOUR);
    const captureId = (fired!.outcome as { captureId: string }).captureId;
    // The worker is still waiting for the page; the first outcome decided is the one that counts.
    const failed = await s.server.ctx.tenants.execute(
      'watcher',
      {
        type: 'FailCapture',
        data: {
          captureId,
          error: 'The page did not answer in time.',
          retryable: false,
          attempts: 1,
          failureReason: 'target_timeout',
        },
      },
      { correlationId: 'watch-test', causedBy: { kind: 'system', component: 'test' } },
    );
    assert.deepEqual(failed.reply, { applied: true });
    await s.server.ctx.waiter.waitFor(failed.appended.at(-1)!.seq);
    const listed = (await runList()).find((r) => r.captureId === captureId);
    assert.equal(listed.status, 'failed');
    assert.equal(listed.failureReason, 'target_timeout');
    assert.equal(listed.error, 'The page did not answer in time.');
    assert.equal(listed.comparison, null);

    site.hang = false;
    runs.push(captureId);
    const next = await run(2);
    assert.equal(next.comparison.baseCaptureId, runs[3], 'compared with the last complete run, not the failed one');
    assert.equal(next.comparison.notified, false);
  });

  it('shows the watched URL as a timeline in the console, a change side by side', { timeout: 300_000 }, async () => {
    const chromium = await launchChromium();
    try {
      const page = await chromium.browser.newPage();
      await page.goto(`${s.baseUrl}/console/schedules/${scheduleId}/timeline`, { waitUntil: 'load' });
      await page.waitForSelector('#tenant-key', { timeout: 60_000 });
      await page.type('#tenant-key', token);
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Watch timeline: Town news', {
        timeout: 60_000,
      });
      const entries = await page.$$eval('li.run h3', (hs) => hs.map((h) => h.textContent ?? ''));
      assert.equal(entries.length, runs.length, entries.join('\n'));
      assert.equal(entries.filter((t) => t.endsWith('— Changed')).length, 1, entries.join('\n'));
      assert.ok(
        entries.some((t) => t.includes('Failed (target_timeout)')),
        entries.join('\n'),
      );
      // The change: both screenshots and the diff image, all loaded (the diff image with the console's session).
      await page.waitForFunction(
        () => {
          const imgs = [...document.querySelectorAll<HTMLImageElement>('li.run img')];
          return imgs.length === 3 && imgs.every((i) => i.complete && i.naturalWidth > 0);
        },
        { timeout: 60_000 },
      );
      await assertAccessible(page, 'watch timeline');
      // The evidence is made by a button (a POST with the session's CSRF token), then offered as a download (GET).
      await page.evaluate(() =>
        [...document.querySelectorAll<HTMLButtonElement>('li.run button')]
          .find((b) => b.textContent === 'Sign the evidence')
          ?.click(),
      );
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('li.run a')].some(
            (a) => a.textContent === 'Signed evidence (JSON)' && a.getAttribute('href')?.includes('/diff/evidence?'),
          ),
        { timeout: 60_000 },
      );
    } finally {
      await chromium.close();
    }
  });
});
