import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeBundle } from '../../../src/archive/bundle.js';
import { launchChromium } from '../../../src/capture/browser-launch.js';
import { newId } from '../../../src/domain/ids.js';
import { freePort } from '../../../src/infra/free-port.js';
import { noteSignerFromSeed, verifierKeyString } from '../../../src/transparency/checkpoint.js';
import { cli } from '../cli/cli-fixtures.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { completeWithBundle } from '../../support/logged-capture.js';
import { servedVerifier } from '../../support/served-verifier.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';
import { startWitnessProcess, type WitnessProcess } from '../../support/witness-process.js';

/**
 * A deployment whose log has two witnesses (LOG_WITNESSES, quorum 2), each its own process: GET /v1/verify says
 * which witnessed the checkpoint in the `witnesses` extension (the spec's checks unchanged), and the offline CLI
 * agrees given the witnesses' keys. With one witness stopped, checkpoints are still published — with one
 * cosignature — and both the API and the CLI report the checkpoint below quorum (the CLI exits 1), while a quorum
 * of 1 accepts it.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ORIGIN = 'witnessed.test/v1/log';
const logSeed = randomBytes(32);
const logVkey = verifierKeyString(noteSignerFromSeed(ORIGIN, logSeed));

describe('verification with witnessed checkpoints', () => {
  let s: TestServer;
  let dir: string;
  let w1: WitnessProcess;
  let w2: WitnessProcess;
  const witnessArgs = (name: string, port: number) => [
    '--log-key',
    logVkey,
    '--name',
    name,
    '--port',
    String(port),
    '--data-dir',
    join(dir, name.split('.')[0]!),
  ];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wit-verify-'));
    w1 = await startWitnessProcess(witnessArgs('w1.test/witness', 0));
    w2 = await startWitnessProcess(witnessArgs('w2.test/witness', await freePort()));
    s = await startTestServer({
      ROLES: 'api,projector,signer,sequencer',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      LOG_ORIGIN: ORIGIN,
      LOG_SIGNING_KEY: logSeed.toString('base64'),
      LOG_CHECKPOINT_INTERVAL_MS: '3600000',
      LOG_WITNESSES: `${w1.vkey} ${w1.url},${w2.vkey} ${w2.url}`,
      LOG_WITNESS_QUORUM: '2',
      LOG_WITNESS_TIMEOUT_MS: '3000',
    });
    await writeFile(join(dir, 'keys.json'), (await s.call('GET', '/.well-known/signing-keys')).text);
    await writeFile(join(dir, 'w1.vkey'), `${w1.vkey}\n`);
  });
  after(async () => {
    await s?.stop();
    await w1?.stop();
    await w2?.stop();
  });

  /** A completed, logged capture and its verify result once a checkpoint covers it. */
  async function verifiedCapture(): Promise<{ captureId: string; file: string; body: any }> {
    const captureId = newId('cap');
    const bundle = (await makeBundle(sampleCapture({ captureId }), s.server.evidence.notary!))!;
    await completeWithBundle(s.server, 'tlog', captureId, bundle, 'witness-test');
    const file = join(dir, `${captureId}.wacz`);
    await writeFile(file, bundle.bytes);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await s.call('GET', `/v1/verify/${captureId}`);
      if (r.status === 200 && r.body.transparency?.status === 'pass') return { captureId, file, body: r.body };
      if (Date.now() > deadline) throw new Error(`no passing transparency result: ${r.text}`);
      await sleep(300);
    }
  }

  const offline = (file: string, ...more: string[]) =>
    cli(
      [
        'verify',
        file,
        '--keys',
        join(dir, 'keys.json'),
        '--tsa-ca-url',
        `${s.baseUrl}/.well-known/tsa-certificates`,
        '--log-url',
        `${s.baseUrl}/v1/log`,
        '--log-key',
        logVkey,
        ...more,
      ],
      {},
    );

  it('says which witnesses cosigned, beside the unchanged spec checks; the CLI agrees', async () => {
    const { file, body } = await verifiedCapture();
    assert.deepEqual(
      body.checks.map((c: any) => c.name),
      ['artifactHashes', 'bundleHash', 'signature', 'timestamp'],
    );
    assert.equal(body.verified, true);
    assert.equal(body.witnesses.status, 'pass', body.witnesses.detail);
    assert.equal(body.witnesses.quorum, 2);
    assert.deepEqual(body.witnesses.witnessed.map((w: any) => w.name).sort(), ['w1.test/witness', 'w2.test/witness']);
    // The deployment publishes whom it asks (informational: a relying party pins keys from the witnesses).
    const listed = (await s.call('GET', '/v1/log/witnesses')).body;
    assert.equal(listed.quorum, 2);
    assert.deepEqual(
      listed.witnesses.map((w: any) => w.key),
      [w1.vkey, w2.vkey],
    );
    // The served checkpoint is one signed note with the log's signature and both cosignatures.
    const note = (await s.call('GET', '/v1/log/checkpoint')).text;
    assert.equal(note.split('\n\n')[1]!.trim().split('\n').length, 3);
    const r = await offline(file, '--witness-key', join(dir, 'w1.vkey'), '--witness-key', w2.vkey);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(JSON.parse(r.stdout).witnesses.status, 'pass');

    // The verification page, in Chromium: one more row after the checks, naming who witnessed.
    const chromium = await launchChromium();
    try {
      const page = await chromium.browser.newPage();
      await page.goto(`${s.baseUrl}/v1/verify/${body.capture.id}`, { waitUntil: 'load' });
      await page.waitForSelector('#checks tbody tr[data-check="witnesses"]', { timeout: 60_000 });
      const rows = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('#checks tbody tr')].map((tr) => [
          tr.dataset.check ?? '',
          tr.querySelectorAll('td')[1]?.textContent ?? '',
          tr.querySelectorAll('td')[2]?.textContent ?? '',
        ]),
      );
      assert.deepEqual(
        rows.map(([name, status]) => [name, status]),
        [
          ['artifactHashes', 'pass'],
          ['bundleHash', 'pass'],
          ['signature', 'pass'],
          ['timestamp', 'pass'],
          ['transparency', 'pass'],
          ['witnesses', 'pass'],
        ],
      );
      assert.match(
        rows[5]![2]!,
        /^Cosigned by w1\.test\/witness, w2\.test\/witness: 2 independent witnesses \(2 required\)/,
      );
    } finally {
      await chromium.close();
    }
  });

  it("a certificate embeds the cosigned checkpoint: both CLIs check its witnesses, the spec's checks unchanged", async () => {
    const { captureId } = await verifiedCapture();
    const deadline = Date.now() + 120_000;
    let pdf: Uint8Array;
    for (;;) {
      const c = await s.call('GET', `/v1/captures/${captureId}/certificate`);
      if (c.status === 200) {
        pdf = c.raw;
        break;
      }
      if (Date.now() > deadline) throw new Error(`no certificate: ${c.status} ${c.text}`);
      await sleep(300);
    }
    const file = join(dir, `${captureId}.pdf`);
    await writeFile(file, pdf);
    const trust = ['--keys', join(dir, 'keys.json'), '--tsa-ca-url', `${s.baseUrl}/.well-known/tsa-certificates`];
    const r = await cli(
      ['verify', file, ...trust, '--log-key', logVkey, '--witness-key', w1.vkey, '--witness-key', w2.vkey],
      {},
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const result = JSON.parse(r.stdout);
    assert.ok(!result.checks.some((c: any) => c.name === 'witnesses'), 'witnesses is beside the checks, not one');
    assert.equal(result.witnesses.status, 'pass', result.witnesses.detail);
    const verifier = await servedVerifier(s, dir);
    const pkg = await verifier([
      file,
      ...trust,
      '--log-key-url',
      `${s.baseUrl}/v1/log/key`,
      '--witness-key',
      join(dir, 'w1.vkey'),
      '--witness-key',
      w2.vkey,
    ]);
    assert.equal(pkg.code, 0, pkg.stdout + pkg.stderr);
    assert.deepEqual(
      JSON.parse(pkg.stdout)
        .witnesses.witnessed.map((w: any) => w.name)
        .sort(),
      ['w1.test/witness', 'w2.test/witness'],
    );
    // A witness the certificate's checkpoint was not cosigned by: below a quorum that needs it.
    const stranger = await startWitnessProcess(witnessArgs('w9.test/witness', 0));
    const strict = await cli(['verify', file, ...trust, '--witness-key', stranger.vkey], {});
    await stranger.stop();
    assert.equal(strict.code, 1, strict.stdout + strict.stderr);
    assert.deepEqual(JSON.parse(strict.stdout).witnesses.missing, ['w9.test/witness']);
  });

  it('a witness down: checkpoints still published with the cosignature there is, and reported below quorum', async () => {
    await w2.stop('SIGKILL');
    const { file, body } = await verifiedCapture();
    assert.equal(body.verified, true);
    assert.equal(body.transparency.status, 'pass');
    assert.equal(body.witnesses.status, 'fail');
    assert.deepEqual(body.witnesses.missing, ['w2.test/witness']);
    assert.deepEqual(
      body.witnesses.witnessed.map((w: any) => w.name),
      ['w1.test/witness'],
    );
    const below = await offline(file, '--witness-key', w1.vkey, '--witness-key', w2.vkey);
    assert.equal(below.code, 1, 'below the quorum of 2: not accepted');
    assert.match(JSON.parse(below.stdout).witnesses.detail, /only 1 of 2/);
    const atQuorum = await offline(file, '--witness-key', w1.vkey, '--witness-key', w2.vkey, '--witness-quorum', '1');
    assert.equal(atQuorum.code, 0, atQuorum.stdout + atQuorum.stderr);
    // The witness back (same key, same record): the next checkpoint is cosigned by both again.
    w2 = await startWitnessProcess(witnessArgs('w2.test/witness', Number(new URL(w2.url).port)));
    const again = await verifiedCapture();
    assert.equal(again.body.witnesses.status, 'pass', again.body.witnesses.detail);
  });
});
