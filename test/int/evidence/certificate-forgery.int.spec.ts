import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeBundle } from '../../../src/archive/bundle.js';
import type { Caller } from '../../../src/application/caller.js';
import { createCaptureDiffs } from '../../../src/watch/capture-diff-service.js';
import { openArtifactStore } from '../../../src/storage/jetstream-artifact-store.js';
import { runCli } from '../../../src/cli/run-cli.js';
import { newId } from '../../../src/domain/ids.js';
import {
  attachCertificateEnvelope,
  embedPdfSignature,
  preparePdfSignature,
  splitCertificate,
  splitPdfSignature,
} from '../../../packages/verifier/src/index.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { completeWithBundle } from '../../support/logged-capture.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * A forged certificate never verifies, and what a verifier shows is what was signed (docs/evidence.md, What a
 * verification shows). For a capture certificate and a change certificate made by the real signer role, every field
 * of the attached envelope a verification shows is rewritten in turn and the envelope attached again — the PDF
 * signature update rebuilt around the new bytes with its old CMS (what a forger without the key can do), or dropped —
 * and both POST /v1/verify/certificate and the offline `capture-ledger verify` must answer verified false, name the
 * check that caught it, and show none of the forged values.
 */

const TENANT = 'forgery';
const PAGE_URL = 'https://example.com/contract';
const FORGED_URL = 'https://forged.example/contract-v2';
const FORGED_TIME = '1999-06-01T12:00:00.000Z';
const PUBLIC_TSA = 'https://freetsa.org/tsr';

type Envelope = { url: string; signature: Record<string, string>; timestamp: Record<string, string> } & Record<
  string,
  unknown
>;

interface Forgery {
  field: string;
  value: string;
  edit(envelope: Envelope, value: string): void;
  /** The checks that must fail with the PDF signature update rebuilt around the forged bytes. */
  failing: string[];
  /** Fields whose forged value may appear in a failing check's detail (which names the mismatch), not as a fact. */
  inDetail?: true;
}

const FORGERIES: Forgery[] = [
  { field: 'url', value: FORGED_URL, edit: (e, v) => void (e.url = v), failing: ['url', 'pdfSignature'] },
  {
    field: 'signature.signedAt',
    value: FORGED_TIME,
    edit: (e, v) => void (e.signature.signedAt = v),
    failing: ['pdfSignature'],
  },
  { field: 'timestamp.tsa', value: PUBLIC_TSA, edit: (e, v) => void (e.timestamp.tsa = v), failing: ['pdfSignature'] },
  {
    field: 'timestamp.genTime',
    value: FORGED_TIME,
    edit: (e, v) => void (e.timestamp.genTime = v),
    failing: ['timestamp', 'pdfSignature'],
    inDetail: true,
  },
  {
    field: 'captureId',
    value: newId('cap'),
    edit: (e, v) => void (e['captureId'] = v),
    failing: ['signature', 'pdfSignature'],
  },
  {
    field: 'bundleHash',
    value: `sha256:${'ab'.repeat(32)}`,
    edit: (e, v) => void (e['bundleHash'] = v),
    failing: ['signature', 'pdfSignature'],
  },
  {
    field: 'certificateHash',
    value: `sha256:${'cd'.repeat(32)}`,
    edit: (e, v) => void (e['certificateHash'] = v),
    failing: ['certificateHash', 'pdfSignature'],
    inDetail: true,
  },
  {
    field: 'signature.keyId',
    value: '0badc0de',
    edit: (e, v) => void (e.signature.keyId = v),
    failing: ['signature', 'pdfSignature'],
    inDetail: true,
  },
  {
    field: 'signature.publicKey',
    value: randomBytes(32).toString('base64'),
    edit: (e, v) => void (e.signature.publicKey = v),
    failing: ['signature', 'pdfSignature'],
  },
  {
    field: 'signature.signature',
    value: randomBytes(64).toString('base64'),
    edit: (e, v) => void (e.signature.signature = v),
    failing: ['signature', 'pdfSignature'],
  },
];

/** The certificate with its envelope edited and attached again; the PDF signature update rebuilt with the old CMS, or left off. */
function forge(pdf: Uint8Array, edit: (e: Envelope) => void, pdfSignature: 'rebuilt' | 'dropped'): Uint8Array {
  const parts = splitPdfSignature(pdf);
  assert.ok(parts, 'the genuine certificate has a PDF signature');
  const { document, envelopeJson } = splitCertificate(parts.unsigned);
  const envelope = JSON.parse(new TextDecoder().decode(envelopeJson)) as Envelope;
  edit(envelope);
  const attached = attachCertificateEnvelope(document, new TextEncoder().encode(JSON.stringify(envelope)));
  if (pdfSignature === 'dropped') return attached;
  return embedPdfSignature(preparePdfSignature(attached, parts.signedAt), parts.cms);
}

interface Answer {
  verified: boolean;
  certificate: { captureId: string; bundleHash: string; url: string | null; certificateHash: string } | null;
  signing: {
    keyId: string;
    signedAt: string | null;
    timestamp: { genTime: string; tsa: string | null } | null;
  } | null;
  checks: Array<{ name: string; status: string; detail?: string }>;
}

describe('forged certificates: refused by the API and the offline verifier, nothing forged shown', () => {
  let s: TestServer;
  let dir: string;
  let captureCertificate: Uint8Array;
  let changeCertificate: Uint8Array;
  let cliRuns = 0;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-cert-forgery-'));
    s = await startTestServer({
      ROLES: 'api,projector,signer',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      RATE_LIMIT_IP_PER_MIN: '100000',
    });
    const ids: string[] = [];
    for (const edition of ['first edition', 'second edition']) {
      const captureId = newId('cap');
      const html = `<html><body><p>The contract, ${edition}.</p></body></html>`;
      const capture = sampleCapture({ captureId, url: PAGE_URL, page: { html } });
      const bundle = (await makeBundle(capture, s.server.evidence.notary!))!;
      await completeWithBundle(s.server, TENANT, captureId, bundle, 'forgery-test', undefined, PAGE_URL, html);
      ids.push(captureId);
    }
    const [base, next] = ids as [string, string];
    const deadline = Date.now() + 120_000;
    for (;;) {
      const res = await fetch(`${s.baseUrl}/v1/captures/${next}/certificate`);
      if (res.status === 200) {
        captureCertificate = new Uint8Array(await res.arrayBuffer());
        break;
      }
      if (Date.now() > deadline) throw new Error(`no certificate: ${res.status} ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const caller: Caller = {
      principal: { tenantId: TENANT, scopes: ['read'], keyHash: null },
      correlationId: 'forgery-test',
      log: { info() {}, error() {} },
    };
    const diffs = createCaptureDiffs(s.server.ctx, await openArtifactStore(s.server.nats.nc), s.server.evidence.notary);
    changeCertificate = await diffs.certificate(caller, next, { base });
  });
  after(async () => {
    await s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function viaApi(pdf: Uint8Array): Promise<Answer> {
    const res = await fetch(`${s.baseUrl}/v1/verify/certificate`, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf' },
      body: Buffer.from(pdf),
    });
    assert.equal(res.status, 200);
    return (await res.json()) as Answer;
  }

  async function viaCli(pdf: Uint8Array): Promise<Answer & { exit: number }> {
    const file = join(dir, `certificate-${cliRuns++}.pdf`);
    await writeFile(file, pdf);
    let stdout = '';
    const exit = await runCli(
      [
        'verify',
        file,
        '--keys-url',
        `${s.baseUrl}/.well-known/signing-keys`,
        '--tsa-ca-url',
        `${s.baseUrl}/.well-known/tsa-certificates`,
      ],
      { env: {}, stdout: (t: string) => void (stdout += t), stderr: () => {} },
    );
    return { ...(JSON.parse(stdout) as Answer), exit };
  }

  const statusOf = (r: Answer) => Object.fromEntries(r.checks.map((c) => [c.name, c.status]));

  for (const kind of ['capture certificate', 'change certificate'] as const) {
    const pdfOf = () => (kind === 'capture certificate' ? captureCertificate : changeCertificate);

    it(`a genuine ${kind} verifies with every check, and shows the envelope's signed fields`, async () => {
      const envelope = JSON.parse(
        new TextDecoder().decode(splitCertificate(splitPdfSignature(pdfOf())!.unsigned).envelopeJson),
      ) as Envelope;
      for (const [path, r] of [
        ['api', await viaApi(pdfOf())],
        ['cli', await viaCli(pdfOf())],
      ] as const) {
        assert.equal(r.verified, true, `${path}: ${JSON.stringify(r.checks)}`);
        const status = statusOf(r);
        for (const name of ['envelope', 'certificateHash', 'signature', 'timestamp', 'url', 'pdfSignature'])
          assert.equal(status[name], 'pass', `${path}: ${name}`);
        assert.equal(r.certificate?.url, PAGE_URL);
        assert.equal(r.signing?.signedAt, envelope.signature['signedAt']);
        assert.equal(r.signing?.timestamp?.tsa, envelope.timestamp['tsa']);
        assert.equal(r.signing?.timestamp?.genTime, envelope.timestamp['genTime']);
      }
    });

    it(`a ${kind} with any shown field forged is refused, the check named, the value not shown`, async () => {
      for (const forgery of FORGERIES) {
        const forged = forge(pdfOf(), (e) => forgery.edit(e, forgery.value), 'rebuilt');
        for (const [path, r] of [
          ['api', await viaApi(forged)],
          ['cli', await viaCli(forged)],
        ] as const) {
          const what = `${kind}, ${forgery.field} forged, ${path}: ${JSON.stringify(r.checks)}`;
          assert.equal(r.verified, false, what);
          if ('exit' in r) assert.equal(r.exit, 1, what);
          const status = statusOf(r);
          for (const name of forgery.failing) assert.equal(status[name], 'fail', `${what}: ${name}`);
          const shown = JSON.stringify({ certificate: r.certificate, signing: r.signing });
          assert.ok(!shown.includes(forgery.value), `${what}: shown ${shown}`);
          if (!forgery.inDetail) assert.ok(!JSON.stringify(r).includes(forgery.value), `${what}: echoed`);
        }
        // The PDF signature names the fields it covers when it no longer verifies.
        const api = await viaApi(forged);
        const pdfCheck = api.checks.find((c) => c.name === 'pdfSignature');
        assert.match(pdfCheck?.detail ?? '', /url, signature\.signedAt, timestamp\.tsa/, forgery.field);
      }
    });

    it(`a ${kind} with url, signedAt or tsa forged and its PDF signature dropped is refused`, async () => {
      for (const forgery of FORGERIES.slice(0, 3)) {
        const forged = forge(pdfOf(), (e) => forgery.edit(e, forgery.value), 'dropped');
        for (const [path, r] of [
          ['api', await viaApi(forged)],
          ['cli', await viaCli(forged)],
        ] as const) {
          const what = `${kind}, ${forgery.field} forged, PDF signature dropped, ${path}: ${JSON.stringify(r.checks)}`;
          assert.equal(r.verified, false, what);
          const pdfCheck = r.checks.find((c) => c.name === 'pdfSignature');
          assert.equal(pdfCheck?.status, 'fail', what);
          assert.match(pdfCheck?.detail ?? '', /PDF signature is missing/, what);
          if (forgery.field === 'url') assert.equal(statusOf(r)['url'], 'fail', what);
          assert.ok(!JSON.stringify(r).includes(forgery.value), `${what}: echoed`);
        }
      }
    });
  }
});
