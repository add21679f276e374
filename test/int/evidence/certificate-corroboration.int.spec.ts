import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { makeBundle } from '../../../src/archive/bundle.js';
import type { CorroborationAnswer } from '../../../src/vantages/corroboration-service.js';
import { corroborate, type MemberObservation } from '../../../src/vantages/corroboration-rules.js';
import { newId } from '../../../src/domain/ids.js';
import { CertificateNotReady } from '../../../src/evidence/certificate.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { completeWithBundle, freshCertificates } from '../../support/logged-capture.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The certificate of a member of a corroborated set (docs/evidence.md, Corroborated captures): not
 * issued while the set is pending (it is stored once and would never name the verdict), then issued naming the
 * verdict, the fields that differ, every member's vantage (id, region, exit address) and the record's hash.
 */

const hash = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('the certificate of a corroborated member names the set and its verdict', () => {
  let s: TestServer;
  let dir: string;
  const seed = randomBytes(32).toString('base64');

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-cert-cor-'));
    s = await startTestServer({ ROLES: 'api,projector,signer', SIGNING_KEY: seed, TSA_URL: '' });
  });
  after(async () => {
    await s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A complete capture with a signed bundle, once the projection shows it complete. */
  async function completed(tenant: string): Promise<string> {
    const id = newId('cap');
    const bundle = (await makeBundle(sampleCapture({ captureId: id }), s.server.evidence.notary!))!;
    await completeWithBundle(s.server, tenant, id, bundle, 'certificate-corroboration-test');
    for (const deadline = Date.now() + 60_000; ; ) {
      const st = await s.call('GET', `/v1/captures/${id}/status`);
      if (st.body?.status === 'complete') return id;
      if (Date.now() > deadline) throw new Error(`capture ${id} not projected complete: ${st.text}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const observed = (captureId: string, over: Partial<MemberObservation>): MemberObservation => ({
    captureId,
    vantage: { id: 'de-ten', label: 'Frankfurt', region: 'DE' },
    exitAddress: '127.0.0.10',
    status: 'complete',
    startedAt: '2026-11-26T10:00:00.000Z',
    completedAt: '2026-11-26T10:00:02.000Z',
    failureReason: null,
    error: null,
    bundleHash: null,
    worker: 'wrk_aaaaaaaaaaaaaaaa',
    textBlocks: ['Same'],
    mainBodyDigest: 'sha256:aa',
    tlsLeafKeyHash: null,
    resources: ['https://a/'],
    screenshot: { width: 2, height: 2, data: new Uint8Array(16).fill(200) },
    ...over,
  });

  /** A complete answer as GET …/corroboration gives it: the record (decided by the domain rule) and its signature. */
  function signed(setId: string, members: MemberObservation[]): CorroborationAnswer {
    const record = corroborate({ id: setId, url: 'https://a/', createdAt: '2026-11-26T10:00:00.000Z', members, hash });
    return {
      status: 'complete',
      id: setId,
      record,
      recordHash: hash(JSON.stringify(record)),
      signature: {
        algorithm: 'Ed25519',
        keyId: 'key_test',
        publicKey: 'pk',
        signature: 'sig',
        signedAt: '2026-11-26T10:00:40.000Z',
      },
      timestamp: { token: 't', genTime: '2026-11-26T10:00:41.000Z', tsa: 'built-in' },
    };
  }

  async function text(pdf: Uint8Array): Promise<string> {
    const file = join(dir, `${randomBytes(4).toString('hex')}.pdf`);
    await writeFile(file, pdf);
    const { stdout } = await promisify(execFile)('pdftotext', [file, '-']);
    return stdout.replace(/\s+/g, ' ');
  }

  it('while the set is pending: no certificate, and the refusal says the set is pending; then the verdict', async () => {
    const [a, b] = [await completed('cor-cert'), await completed('cor-cert')];
    const setId = newId('cor');
    let answer: CorroborationAnswer = {
      status: 'pending',
      id: setId,
      url: 'https://a/',
      members: [
        { captureId: a, vantage: 'de-ten', status: 'complete' },
        { captureId: b, vantage: 'fr-eleven', status: 'pending' },
      ],
    };
    const certificates = await freshCertificates(s.server, seed, undefined, undefined, {
      forCapture: async (id) => (id === a || id === b ? answer : null),
    });
    await assert.rejects(certificates.certificate(a), (err: Error) => {
      assert.ok(err instanceof CertificateNotReady, String(err));
      assert.match(err.message, new RegExp(`corroborated set ${setId}, which is pending`));
      assert.match(err.message, new RegExp(`${b} from fr-eleven: pending`));
      return true;
    });

    // The same worker rendered both: DIVERGE, naming workers; everything else agrees.
    answer = signed(setId, [
      observed(a, {}),
      observed(b, {
        vantage: { id: 'fr-eleven', label: 'Paris', region: 'FR' },
        exitAddress: '127.0.0.11',
        startedAt: '2026-11-26T10:00:04.000Z',
      }),
    ]);
    assert.equal(answer.status === 'complete' && answer.record.verdict, 'DIVERGE');
    const pdf = await certificates.certificate(a);
    assert.ok(pdf);
    const flat = await text(pdf);
    assert.match(flat, /Corroboration from other vantage points/);
    assert.match(flat, new RegExp(`corroborated set ${setId}`));
    assert.match(
      flat,
      /Verdict DIVERGE — differing: workers \(members were not rendered by distinct worker processes\)/,
    );
    assert.match(
      flat,
      new RegExp(`${a} \\(this capture\\): de-ten, Frankfurt \\(DE\\); exit address 127\\.0\\.0\\.10`),
    );
    assert.match(flat, new RegExp(`${b}: fr-eleven, Paris \\(FR\\); exit address 127\\.0\\.0\\.11; complete`));
    assert.match(flat, /started within 30 s of each other \(4 s apart\); not distinct worker processes/);
    if (answer.status !== 'complete') throw new Error('unreachable');
    assert.ok(flat.includes(answer.recordHash), 'the record hash');
    assert.match(flat, /key key_test; time-stamped \(RFC 3161 genTime 2026-11-26T10:00:41\.000Z\)/);
    assert.ok(flat.includes(`/v1/captures/${a}/corroboration`));
    assert.doesNotMatch(flat, /corroborated: one of a set/, 'no longer only "one of a set"');
    // Stored once: the same bytes again.
    assert.deepEqual(await certificates.certificate(a), pdf);
  });

  it('AGREE on distinct workers within the window, and a failed member named on the others', async () => {
    const [a, b, c] = [await completed('cor-cert'), await completed('cor-cert'), await completed('cor-cert')];
    const agree = signed(newId('cor'), [
      observed(a, {}),
      observed(b, { vantage: { id: 'fr-eleven', label: 'Paris', region: 'FR' }, worker: 'wrk_bbbbbbbbbbbbbbbb' }),
    ]);
    const agreeing = await freshCertificates(s.server, seed, undefined, undefined, {
      forCapture: async (id) => (id === a || id === b ? agree : null),
    });
    const flat = await text((await agreeing.certificate(b))!);
    assert.match(flat, /Verdict AGREE/);
    assert.match(flat, /started within 30 s of each other \(0 s apart\); distinct worker processes/);
    assert.match(flat, new RegExp(`${b} \\(this capture\\): fr-eleven, Paris \\(FR\\)`));

    const failed = signed(newId('cor'), [
      observed(c, { worker: 'wrk_cccccccccccccccc' }),
      observed(a, {
        vantage: { id: 'se-down', label: 'Stockholm', region: 'SE' },
        exitAddress: null,
        status: 'failed',
        startedAt: null,
        worker: null,
      }),
    ]);
    const failing = await freshCertificates(s.server, seed, undefined, undefined, {
      forCapture: async (id) => (id === c ? failed : null),
    });
    const text2 = await text((await failing.certificate(c))!);
    assert.match(text2, /Verdict DIVERGE — differing: members \(a member capture failed\)/);
    assert.match(text2, /se-down, Stockholm \(SE\); exit address not observed; failed; worker not named/);
  });

  it('a capture in no set has no corroboration section', async () => {
    const id = await completed('cor-cert');
    const certificates = await freshCertificates(s.server, seed, undefined, undefined, {
      forCapture: async () => null,
    });
    assert.doesNotMatch(await text((await certificates.certificate(id))!), /Corroboration from other vantage points/);
  });
});
