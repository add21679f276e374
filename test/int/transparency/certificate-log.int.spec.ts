import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeBundle } from '../../../src/archive/bundle.js';
import { createCaptureCertificates } from '../../../src/application/capture-certificates.js';
import { newId } from '../../../src/domain/ids.js';
import { CertificateNotReady } from '../../../src/evidence/certificate.js';
import { deploymentTrust } from '../../../src/evidence/trust-anchors.js';
import { projectRoot } from '../../../src/infra/project-root.js';
import { decodeJson, firstCheckpointCovering, type StoredCheckpoint } from '../../../src/transparency/log-stream.js';
import { requestCheckpoint } from '../../../src/transparency/sequencer.js';
import { attachCertificateEnvelope, splitCertificate } from '../../../packages/verifier/src/index.js';
import { cli } from '../cli/cli-fixtures.js';
import { servedVerifier } from '../../support/served-verifier.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { certificateIssuedAt, completeWithBundle, freshCertificates } from '../../support/logged-capture.js';
import { assertProblem, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The certificate of a logged capture carries its leaf index, the first published checkpoint holding the leaf and
 * the inclusion proof (docs/transparency.md, Certificates): shown by poppler, checked offline by the operator CLI,
 * the verifier package's CLI and POST /v1/verify/certificate — and refused when the proof is removed or altered.
 * Before a checkpoint holds the leaf, no certificate is issued (503 with Retry-After).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const run = (file: string, args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { cwd: projectRoot, timeout: 120_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({
        code: err ? ((err as { code?: number }).code ?? 1) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
      }),
    );
  });
const checkNames = (r: any) => r.checks.map((c: any) => `${c.name}:${c.status}`);

describe('the certificate carries the transparency-log proof', () => {
  let s: TestServer;
  let dir: string;
  const seed = randomBytes(32).toString('base64');
  let captureId: string;
  let pdf: Buffer;
  let envelope: any;

  /** A signed bundle made by the server's notary, completed as the capture `id` of `tenant`. */
  async function complete(tenant: string, id: string) {
    const b = (await makeBundle(sampleCapture({ captureId: id }), s.server.evidence.notary!))!;
    await completeWithBundle(s.server, tenant, id, b, 'certificate-log-test');
    return b;
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-cert-log-'));
    // A long cadence: the checkpoint that first covers the capture is the one the certificate asks for on demand.
    s = await startTestServer({
      ROLES: 'api,projector,signer,sequencer',
      SIGNING_KEY: seed,
      TSA_URL: '',
      LOG_CHECKPOINT_INTERVAL_MS: '3600000',
    });
    captureId = newId('cap');
    await complete('certlog', captureId);
  });
  after(async () => {
    await s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('no certificate before a published checkpoint holds the leaf: 503 with Retry-After in the spec error body', async () => {
    // A log that has not covered the leaf yet (the live one may already have, so it is stood in for).
    const pending = await freshCertificates(s.server, seed, {
      certificateEvidence: async () => ({ unavailable: 'leaf 3 is not covered by a published checkpoint yet' }),
    });
    // the projection must hold the completed capture first
    const deadline = Date.now() + 60_000;
    while ((await s.call('GET', `/v1/captures/${captureId}`)).body?.status !== 'complete') {
      if (Date.now() > deadline) throw new Error('the capture was never projected');
      await sleep(200);
    }
    await assert.rejects(pending.certificate(captureId), CertificateNotReady);
    const service = createCaptureCertificates(pending, deploymentTrust(s.server.ctx.pool, s.server.evidence), {
      bundleHashOf: async () => null,
      statusOf: async () => 'complete',
    });
    await assert.rejects(service.certificatePdf(captureId), (err: any) => {
      assert.equal(err.status, 503);
      assert.equal(err.headers['Retry-After'], '5');
      assert.match(err.detail, /published transparency-log checkpoint.*Retry shortly/);
      return true;
    });
  });

  it('a client asking as soon as the capture reads complete gets the certificate, not a 503', async () => {
    // No checkpoint is due for an hour: the request waits for the leaf and asks for a checkpoint on demand.
    const id = newId('cap');
    await complete('certlog', id);
    const deadline = Date.now() + 60_000;
    while ((await s.call('GET', `/v1/captures/${id}/status`)).body?.status !== 'complete') {
      if (Date.now() > deadline) throw new Error('the capture was never projected');
      await sleep(50);
    }
    const r = await s.call('GET', `/v1/captures/${id}/certificate`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/pdf');
  });

  it('GET …/certificate: issued once a checkpoint covers the leaf, the same bytes every time', async () => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await s.call('GET', `/v1/captures/${captureId}/certificate`);
      if (r.status === 200) {
        pdf = r.raw;
        break;
      }
      if (r.status === 503) {
        assertProblem(r.body, 503);
        assert.ok(Number(r.headers.get('retry-after')) > 0, 'a 503 says when to come back');
      } else assert.equal(r.status, 404, r.text); // not projected yet
      if (Date.now() > deadline) throw new Error(`no certificate: ${r.status} ${r.text}`);
      await sleep(300);
    }
    const again = await s.call('GET', `/v1/captures/${captureId}/certificate`);
    assert.ok(again.raw.equals(pdf), 'a second request gave other bytes');
    envelope = JSON.parse(Buffer.from(splitCertificate(pdf).envelopeJson).toString('utf8'));
    const t = envelope.transparency;
    assert.equal(typeof t.leafIndex, 'number');
    const record = (await s.call('GET', `/v1/captures/${captureId}`)).body;
    assert.equal(t.leafIndex, record.transparency.leafIndex);
    assert.match(t.checkpoint, /\n\n\u2014 /);
    assert.ok(Number(t.checkpoint.split('\n')[1]) > t.leafIndex);
    assert.ok(t.inclusionProof.every((h: string) => /^[0-9a-f]{64}$/.test(h)));
    assert.ok(t.checkpointTimestamp?.token, 'the checkpoint was time-stamped through the signer');
    assert.equal(t.logKey, (await s.call('GET', '/v1/log/key')).text.trim());
    await writeFile(join(dir, 'certificate.pdf'), pdf);
  });

  it('the embedded checkpoint is the first published one holding the leaf; made afresh later, the document is identical', async () => {
    // More captures and checkpoints after it: the certificate still names the first covering checkpoint.
    for (let i = 0; i < 3; i++) {
      await complete('certlog', newId('cap'));
      const grown = Date.now() + 60_000;
      const before = s.server.transparency!.view.size();
      while (s.server.transparency!.view.size() <= before && Date.now() < grown) await sleep(100);
      await requestCheckpoint(s.server.nats.nc);
    }
    const jsm = s.server.nats.jsm;
    const all: Array<{ size: number; note: string }> = [];
    const info = await jsm.streams.info('TLOG');
    for (let seq = 1; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage('TLOG', { seq }).catch(() => null);
      if (m?.subject === 'tlog.checkpoints') {
        const cp = decodeJson<StoredCheckpoint>(m.data);
        all.push({ size: Number(cp.note.split('\n')[1]), note: cp.note });
      }
    }
    assert.ok(all.length >= 3, `only ${all.length} checkpoints`);
    const t = envelope.transparency;
    assert.equal(t.checkpoint, all.find((c) => c.size > t.leafIndex)!.note, 'the first checkpoint holding the leaf');
    // the search agrees with a scan for every leaf
    for (let index = 0; index < all.at(-1)!.size; index++) {
      assert.equal(
        (await firstCheckpointCovering(jsm, index))?.note,
        all.find((c) => c.size > index)!.note,
        `leaf ${index}`,
      );
    }
    assert.equal(await firstCheckpointCovering(jsm, all.at(-1)!.size), null);

    const remade = await (
      await freshCertificates(s.server, seed, s.server.transparency!, certificateIssuedAt(pdf))
    ).certificate(captureId);
    assert.ok(remade);
    assert.ok(
      Buffer.from(splitCertificate(remade).document).equals(Buffer.from(splitCertificate(pdf).document)),
      'the same capture gives the same document',
    );
  });

  it('poppler shows the leaf index, the signed checkpoint and the proof hashes', async () => {
    const text = await run('pdftotext', ['-layout', join(dir, 'certificate.pdf'), '-']);
    assert.equal(text.code, 0, text.stderr);
    const flat = text.stdout.replace(/\s+/g, ' ');
    const t = envelope.transparency;
    const [origin, size, root, , sigLine] = t.checkpoint.split('\n');
    assert.ok(text.stdout.replace(/\s+/g, '').includes(t.leaf), `the certificate does not show the leaf ${t.leaf}`);
    for (const expected of [
      'Public transparency log',
      `Leaf index ${t.leafIndex}`,
      origin,
      size,
      root,
      sigLine,
      ...t.inclusionProof,
      t.logKey,
      t.checkpointTimestamp.genTime,
      '7. Declaration of the custodian',
    ]) {
      assert.ok(flat.includes(expected), `the certificate does not show ${expected}:\n${text.stdout}`);
    }
  });

  it('offline: the operator CLI and the verifier package check the embedded proof with the pinned log key', async () => {
    const file = join(dir, 'certificate.pdf');
    await writeFile(join(dir, 'log.vkey'), (await s.call('GET', '/v1/log/key')).text);
    const trust = [
      '--keys-url',
      `${s.baseUrl}/.well-known/signing-keys`,
      '--tsa-ca-url',
      `${s.baseUrl}/.well-known/tsa-certificates`,
    ];
    const pinned = await cli(['verify', file, ...trust, '--log-key', join(dir, 'log.vkey')], {});
    assert.equal(pinned.code, 0, pinned.stdout + pinned.stderr);
    assert.deepEqual(checkNames(JSON.parse(pinned.stdout)), [
      'envelope:pass',
      'certificateHash:pass',
      'signature:pass',
      'timestamp:pass',
      'url:pass',
      'transparency:pass',
      'pdfSignature:pass',
    ]);

    // Without a log key the proof is still checked against the embedded checkpoint, but its signer is unknown.
    const logCheck = (r: any) => r.checks.find((c: any) => c.name === 'transparency');
    const unpinned = JSON.parse((await cli(['verify', file, ...trust], {})).stdout);
    assert.equal(logCheck(unpinned).status, 'skip');
    assert.match(logCheck(unpinned).detail, /included in the tree .* no log key was given/);

    // Another log's key: the checkpoint is not its.
    const other = `other.example/v1/log+${await otherKey()}`;
    const wrong = await cli(['verify', file, ...trust, '--log-key', other], {});
    assert.equal(wrong.code, 1, wrong.stdout);
    assert.match(logCheck(JSON.parse(wrong.stdout)).detail, /not signed by the log key given/);

    const verifier = await servedVerifier(s, dir);
    const pkg = await verifier([file, ...trust, '--log-key-url', `${s.baseUrl}/v1/log/key`]);
    assert.equal(pkg.code, 0, pkg.stdout + pkg.stderr);
    assert.equal(logCheck(JSON.parse(pkg.stdout)).status, 'pass');
  });

  it('POST /v1/verify/certificate checks it with the log key; a proof removed or altered after signing fails', async () => {
    const post = (body: Buffer | Uint8Array) =>
      fetch(`${s.baseUrl}/v1/verify/certificate`, {
        method: 'POST',
        headers: { 'content-type': 'application/pdf' },
        body: Buffer.from(body) as unknown as BodyInit,
      }).then((r) => r.json() as Promise<any>);
    const good = await post(pdf);
    assert.equal(good.verified, true, JSON.stringify(good));
    assert.deepEqual(checkNames(good), [
      'envelope:pass',
      'certificateHash:pass',
      'signature:pass',
      'timestamp:pass',
      'url:pass',
      'transparency:pass',
      'pdfSignature:pass',
      'capture:pass',
    ]);

    const { document } = splitCertificate(pdf);
    const removed = { ...envelope };
    delete removed.transparency;
    const r1 = await post(attachCertificateEnvelope(document, Buffer.from(JSON.stringify(removed))));
    assert.equal(r1.verified, false);
    assert.match(
      r1.checks.find((c: any) => c.name === 'transparency').detail,
      /the envelope does not carry \(removed after signing\)/,
    );

    const altered = structuredClone(envelope);
    altered.transparency.leafIndex += 1;
    const r2 = await post(attachCertificateEnvelope(document, Buffer.from(JSON.stringify(altered))));
    assert.equal(r2.verified, false);
    assert.match(r2.checks.find((c: any) => c.name === 'transparency').detail, /altered after signing/);
  });
});

/** A valid verifier-key tail (hash + key) for another log's name. */
async function otherKey(): Promise<string> {
  const { noteSignerFromSeed, verifierKeyString } = await import('../../../src/transparency/checkpoint.js');
  return verifierKeyString(noteSignerFromSeed('other.example/v1/log', randomBytes(32)))
    .split('+')
    .slice(1)
    .join('+');
}
