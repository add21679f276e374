import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { launchChromium } from '../../../src/capture/browser-launch.js';
import { isCaptureError } from '../../../src/capture/capture-error.js';
import { capturePage } from '../../../src/capture/page-capture.js';
import { DEFAULT_CAPTURE_SETTINGS } from '../../../src/domain/capture-options.js';
import { type FixtureSite, startFixtureSite } from '../../support/fixture-site.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The session recording through the whole service: a capture with `recordSession: true` has a video
 * that ffprobe plays (VP8 WebM, more than one frame, as long as navigation-to-screenshot), served beside spec
 * 4.8's artifacts, hashed into the bundle that verifies, and named on the certificate; a capture without the
 * option has none of it.
 */

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const run = (file: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(file, args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${file}: ${stderr || err.message}`)) : resolve(String(stdout)),
    ),
  );

describe('session recording (recordSession)', () => {
  let s: TestServer;
  let site: FixtureSite;
  let dir: string;
  let token: string;
  let recorded: any;
  let plain: any;

  async function capture(body: Record<string, unknown>): Promise<any> {
    const submitted = await s.call('POST', '/v1/captures', { token, body });
    assert.equal(submitted.status, 202, submitted.text);
    const deadline = Date.now() + 180_000;
    for (;;) {
      const st = await s.call('GET', `/v1/captures/${submitted.body.id}/status`);
      if (st.body.status === 'complete') {
        const record = await s.call('GET', `/v1/captures/${submitted.body.id}`);
        if (record.status === 200 && record.body.wacz) return record.body;
      }
      assert.notEqual(st.body.status, 'failed', st.text);
      if (Date.now() > deadline) throw new Error(`capture ${submitted.body.id} still pending`);
      await sleep(200);
    }
  }

  async function waczMembers(record: any): Promise<Record<string, Uint8Array>> {
    const wacz = await s.call('GET', new URL(record.wacz.url).pathname);
    assert.equal(wacz.status, 200);
    return unzipSync(new Uint8Array(wacz.raw));
  }

  before(async () => {
    site = await startFixtureSite();
    dir = await mkdtemp(join(tmpdir(), 'cl-session-'));
    s = await startTestServer({
      ROLES: 'api,projector,worker,signer',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      CAPTURE_TIMEOUT_MS: '20000',
      WORKER_CONCURRENCY: '1',
    });
    const created = await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'session', scopes: ['capture'], name: 'session recording' },
    });
    assert.equal(created.status, 201, created.text);
    token = created.body.key;
    // /lazy is three viewports tall: the scroll through it draws frames after the first paint.
    recorded = await capture({ url: site.url('/lazy'), options: { recordSession: true } });
    plain = await capture({ url: site.url('/lazy') });
  });

  after(async () => {
    await s?.stop();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps a playable WebM from navigation to the screenshot, on the capture clock', async () => {
    assert.match(recorded.artifacts.session, new RegExp(`/v1/captures/${recorded.id}/session$`));
    const video = await s.call('GET', `/v1/captures/${recorded.id}/session`);
    assert.equal(video.status, 200, video.text);
    assert.equal(video.headers.get('content-type'), 'video/webm');
    assert.match(video.headers.get('content-disposition') ?? '', /^attachment; filename="[^"]+-session\.webm"$/);
    const file = join(dir, 'session.webm');
    await writeFile(file, video.raw);

    const probe = JSON.parse(
      await run('ffprobe', [
        '-v',
        'error',
        '-count_frames',
        '-show_entries',
        'stream=codec_name,width,height,nb_read_frames:format=duration,format_name:format_tags=creation_time',
        '-of',
        'json',
        file,
      ]),
    );
    const stream = probe.streams[0];
    assert.equal(stream.codec_name, 'vp8');
    assert.deepEqual([stream.width, stream.height], [1280, 800], 'the viewport');
    assert.ok(Number(stream.nb_read_frames) > 1, `frames: ${stream.nb_read_frames}`);
    assert.match(probe.format.format_name, /webm/);
    const durationMs = Number(probe.format.duration) * 1000;
    assert.ok(durationMs > 0, `duration ${probe.format.duration}`);

    const facts = recorded.captureSettings.sessionRecording;
    assert.equal(recorded.captureSettings.recordSession, true);
    assert.equal(facts.mediaType, 'video/webm');
    assert.ok(facts.frames > 1, `frames ${facts.frames}`);
    assert.ok(Math.abs(durationMs - facts.durationMs) <= 5, `video ${durationMs} ms, recorded ${facts.durationMs} ms`);
    // From the start of navigation to the screenshot: render.durationMs, on the same clock.
    assert.ok(
      Math.abs(facts.durationMs - recorded.render.durationMs) <= 50,
      `recording ${facts.durationMs} ms, render ${recorded.render.durationMs} ms`,
    );
    assert.equal(new Date(probe.format.tags.creation_time).getTime(), Date.parse(facts.startedAt));
    assert.ok(Date.parse(facts.startedAt) <= Date.parse(recorded.completedAt));
    assert.ok(Date.parse(facts.startedAt) >= Date.parse(recorded.createdAt));
  });

  it('hashes the video into the bundle, which verifies', async () => {
    const video = await s.call('GET', `/v1/captures/${recorded.id}/session`);
    const members = await waczMembers(recorded);
    const datapackage = JSON.parse(new TextDecoder().decode(members['datapackage.json']));
    const resource = datapackage.resources.find((r: { path: string }) => r.path === 'attachments/session.webm');
    assert.ok(resource, 'attachments/session.webm listed in datapackage.json');
    assert.equal(resource.hash, sha256(video.raw), 'the served video is the one hashed into the bundle');
    assert.equal(sha256(members['attachments/session.webm']!), resource.hash);
    assert.deepEqual(
      datapackage.captureLedger.captureSettings.sessionRecording,
      recorded.captureSettings.sessionRecording,
    );
    const verify = await s.call('GET', `/v1/verify/${recorded.id}`);
    assert.equal(verify.status, 200, verify.text);
    assert.equal(verify.body.verified, true, JSON.stringify(verify.body.checks));
    assert.deepEqual(
      verify.body.checks.map((c: { name: string; status: string }) => [c.name, c.status]),
      [
        ['artifactHashes', 'pass'],
        ['bundleHash', 'pass'],
        ['signature', 'pass'],
        ['timestamp', 'pass'],
      ],
    );
    const provenance = await s.call('GET', `/v1/captures/${recorded.id}/provenance`);
    const named = provenance.body.artifacts.find((a: { name: string }) => a.name === 'session');
    assert.equal(named?.hash, sha256(video.raw), 'the provenance record names the video by its hash');
  });

  it('names the recording on the certificate', async () => {
    const deadline = Date.now() + 120_000;
    let certificate;
    for (;;) {
      certificate = await s.call('GET', `/v1/captures/${recorded.id}/certificate`);
      if (certificate.status !== 503 || Date.now() > deadline) break;
      await sleep(500);
    }
    assert.equal(certificate.status, 200, certificate.text);
    const file = join(dir, 'certificate.pdf');
    await writeFile(file, certificate.raw);
    const text = (await run('pdftotext', ['-raw', file, '-'])).replace(/\s+/g, ' ');
    const video = await s.call('GET', `/v1/captures/${recorded.id}/session`);
    assert.match(text, /artifact session \(video\/webm, \d+ bytes\)/);
    assert.match(text, /bundle file attachments\/session\.webm/);
    assert.ok(text.includes(sha256(video.raw).slice(0, 30)), 'the video hash on the certificate');
    assert.match(text, /recordSession: yes/);
  });

  it('a capture without the option has no video, no member and no setting for it', async () => {
    assert.deepEqual(Object.keys(plain.artifacts).sort(), ['headers', 'html', 'screenshot']);
    const video = await s.call('GET', `/v1/captures/${plain.id}/session`);
    assert.equal(video.status, 404);
    assert.equal((await s.call('GET', `/v1/captures/${plain.id}/artifacts/session`)).status, 404);
    assert.equal('recordSession' in plain.captureSettings, false);
    assert.equal('sessionRecording' in plain.captureSettings, false);
    const members = await waczMembers(plain);
    assert.deepEqual(
      Object.keys(members).filter((path) => path.startsWith('attachments/')),
      [],
    );
    const verify = await s.call('GET', `/v1/verify/${plain.id}`);
    assert.equal(verify.body.verified, true);
  });
});

describe('session recorder: its frames leave no trace (capturePage, real Chromium)', () => {
  it('removes its frames after a capture, and after a capture that failed', { timeout: 120_000 }, async () => {
    const site = await startFixtureSite();
    const chromium = await launchChromium();
    // The recorder keeps its frames under os.tmpdir(): a directory of this test's own, to see what is left there.
    const tmp = await mkdtemp(join(tmpdir(), 'cl-recorder-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const settings = { ...DEFAULT_CAPTURE_SETTINGS, recordSession: true };
    const leftOver = async () => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const entries = await readdir(tmp);
        if (entries.length === 0 || Date.now() > deadline) return entries;
        await sleep(100);
      }
    };
    try {
      const done = await capturePage(chromium.browser, site.url('/simple'), { timeoutMs: 10_000, settings });
      assert.ok(done.sessionRecording && done.sessionRecording.frames >= 1);
      assert.deepEqual(await leftOver(), []);
      // DOMContentLoaded never comes: the capture fails after the recording started.
      const failed = await capturePage(chromium.browser, site.url('/hang-html'), { timeoutMs: 1500, settings }).then(
        () => null,
        (error: unknown) => error,
      );
      assert.ok(isCaptureError(failed), String(failed));
      assert.deepEqual(await leftOver(), []);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await chromium.close();
      await site.close();
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
