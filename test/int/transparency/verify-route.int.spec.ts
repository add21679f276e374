import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { makeBundle, type SignedBundle } from '../../../src/archive/bundle.js';
import { newId } from '../../../src/domain/ids.js';
import { projectRoot } from '../../../src/infra/project-root.js';
import { cli } from '../cli/cli-fixtures.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { completeWithBundle } from '../../support/logged-capture.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';
import { requestCheckpoint } from '../../../src/transparency/sequencer.js';

/**
 * A real signed, time-stamped bundle (the server's own key and built-in TSA) completed through the tenant actor,
 * without a browser: GET /v1/verify gains a passing `transparency` result beside the spec's four checks (with a
 * checkpoint asked for on demand); the offline CLI reports the same with a saved checkpoint; the proof checked by the docs' by-hand script;
 * and a second bundle written for the same capture straight into the ledger is caught by the monitor.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the transparency extension of verification', () => {
  let s: TestServer;
  let bundle: SignedBundle;
  let captureId: string;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-verify-log-'));
    // The cadence is long, so the verify endpoint's on-demand checkpoint is what covers the capture.
    s = await startTestServer({
      ROLES: 'api,projector,signer,sequencer',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      LOG_CHECKPOINT_INTERVAL_MS: '3600000',
    });
    captureId = newId('cap');
    bundle = (await makeBundle(sampleCapture({ captureId }), s.server.evidence.notary!))!;
    assert.ok(bundle.timestamp, 'time-stamped by the built-in TSA');
    await completeWithBundle(s.server, 'tlog', captureId, bundle, 'transparency-test');
  });
  after(async () => s?.stop());

  it('GET /v1/verify reports a passing transparency result beside the spec checks, with the proof', async () => {
    const deadline = Date.now() + 120_000;
    let body: any;
    for (;;) {
      const r = await s.call('GET', `/v1/verify/${captureId}`);
      body = r.body;
      if (r.status === 200 && body.transparency?.status === 'pass') break;
      if (Date.now() > deadline) throw new Error(`no passing transparency check: ${r.text}`);
      await sleep(300);
    }
    assert.deepEqual(
      body.checks.map((c: any) => [c.name, c.status]),
      [
        ['artifactHashes', 'pass'],
        ['bundleHash', 'pass'],
        ['signature', 'pass'],
        ['timestamp', 'pass'],
      ],
    );
    assert.equal(body.verified, true);
    assert.match(body.transparency.detail, /included in its signed checkpoint/);
    assert.equal(typeof body.transparency.leafIndex, 'number');
    assert.match(body.transparency.checkpoint, /\n\n\u2014 /);
    // The capture record names the same leaf and a checkpoint covering it.
    const rec = (await s.call('GET', `/v1/captures/${captureId}`)).body;
    assert.equal(rec.transparency.leafIndex, body.transparency.leafIndex);
    assert.ok(Number(rec.transparency.checkpoint.split('\n')[1]) > rec.transparency.leafIndex);
    // The checkpoint asked for on demand is time-stamped through the signer's TSA.
    const cp = (await s.call('GET', '/v1/log/checkpoint.json')).body;
    assert.ok(cp.timestamp?.token && cp.timestamp.genTime, JSON.stringify(cp));
  });

  it('the offline verifier passes it too, and the by-hand script of docs/transparency.md agrees', async () => {
    const file = join(dir, 'capture.wacz');
    await writeFile(file, bundle.bytes);
    await writeFile(join(dir, 'keys.json'), (await s.call('GET', '/.well-known/signing-keys')).text);
    await writeFile(join(dir, 'log.vkey'), (await s.call('GET', '/v1/log/key')).text);
    await writeFile(join(dir, 'saved.txt'), (await s.call('GET', '/v1/log/checkpoint')).text);
    const logUrl = `${s.baseUrl}/v1/log`;
    const r = await cli(
      [
        'verify',
        file,
        '--keys',
        join(dir, 'keys.json'),
        '--tsa-ca-url',
        `${s.baseUrl}/.well-known/tsa-certificates`,
        '--log-url',
        logUrl,
        '--log-key',
        join(dir, 'log.vkey'),
        '--trusted-checkpoint',
        join(dir, 'saved.txt'),
      ],
      {},
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const offline = JSON.parse(r.stdout);
    assert.deepEqual(
      offline.checks.map((c: any) => c.name),
      ['artifactHashes', 'bundleHash', 'signature', 'timestamp'],
    );
    assert.equal(offline.transparency.status, 'pass');
    const bad = await cli(['verify', file, '--log-url', logUrl], {});
    assert.equal(bad.code, 2, 'the log URL needs its pinned key');

    // The docs' example, run as written.
    const md = await readFile(join(projectRoot, 'docs', 'transparency.md'), 'utf8');
    const script = /```js\n([\s\S]*?)```/.exec(md)![1]!;
    await writeFile(join(dir, 'by-hand.mjs'), script);
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(dir, 'by-hand.mjs'),
      captureId,
      bundle.ref.bundleHash,
      bundle.ref.keyId,
      bundle.timestamp!.genTime,
      logUrl,
    ]);
    assert.match(stdout, /^leaf \d+ is in the tree of \d+/);
  });

  it('a second bundle for the same capture, written straight into the ledger, is caught', async () => {
    // The operator signs another capture for the same ID and appends it past the actor (which would refuse it).
    const other = (await makeBundle(
      sampleCapture({ captureId, completedAt: '2024-05-01T10:00:09.000Z' }),
      s.server.evidence.notary!,
    ))!;
    const store = s.server.store!;
    const subject = 'ledger.tenant.tlog';
    const last = await store.last(subject);
    await store.append(
      subject,
      [
        {
          type: 'capture.completed',
          data: {
            captureId,
            completedAt: new Date().toISOString(),
            renderQuality: 'full',
            render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 } as never,
            artifacts: {} as never,
            bundle: other.ref,
            storedBytes: 1,
            attempts: 1,
          },
          id: newId('evt'),
          schemaVersion: 1,
          tenantId: 'tlog',
          occurredAt: new Date().toISOString(),
          causedBy: { kind: 'admin' },
          correlationId: 'forged',
        } as never,
      ],
      { expectedLastSeq: last!.seq, prevHash: last!.event.hash },
    );
    const vkey = (await s.call('GET', '/v1/log/key')).text.trim();
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await cli(['log', 'monitor', '--log-url', `${s.baseUrl}/v1/log`, '--log-key', vkey, '--rederive'], {});
      if (r.code === 1) {
        assert.match(r.stderr, /SECOND BUNDLE: leaves \d+ and \d+ are two different bundles of one capture/);
        break;
      }
      assert.equal(r.code, 0, r.stderr);
      if (Date.now() > deadline) throw new Error('the second bundle was never logged');
      await requestCheckpoint(s.server.nats.nc); // on demand: one covering the new leaf once it is sequenced
      await sleep(300);
    }
    // The capture's own leaf is still its first: the original bundle verifies, the second one does not.
    const v = (await s.call('GET', `/v1/verify/${captureId}`)).body;
    assert.equal(v.transparency.status, 'pass');
  });
});
