import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { makeBundle } from '../../../src/archive/bundle.js';
import { newId } from '../../../src/domain/ids.js';
import { deploymentTrust } from '../../../src/evidence/trust-anchors.js';
import { splitPdfSignature, verifyCertificate } from '../../../packages/verifier/src/index.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { completeWithBundle } from '../../support/logged-capture.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The certificate as PDF readers and courts see it (docs/evidence.md, Certificates): made by the real
 * API and signer roles, it carries a standard PDF signature poppler's pdfsig reports valid over the whole file (and
 * invalid after one flipped byte), embeds every font (pdffonts), prints a Greek and Japanese title and URL exactly
 * (pdftotext), names the capture, URL, bundle hash and "page N of M" on every page, and shows the screenshot on page 1
 * (pdftoppm). PDF/A: no validator (veraPDF) is installed here, so its structural requirements are checked directly.
 */

const run = (file: string, args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { timeout: 60_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({
        code: err ? ((err as { code?: number }).code ?? 1) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
      }),
    );
  });

const TITLE = 'Δοκιμή ελληνικού τίτλου — 日本語のページタイトル';
const URL_TEXT = 'https://παράδειγμα.δοκιμή/記事/テスト?q=αβγ';

/** A 1280 x 2400 screenshot: a red band at the top, white below. */
function screenshot(): Buffer {
  const png = new PNG({ width: 1280, height: 2400 });
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const at = (y * png.width + x) * 4;
      const red = y < 1200;
      png.data[at] = red ? 220 : 255;
      png.data[at + 1] = red ? 20 : 255;
      png.data[at + 2] = red ? 20 : 255;
      png.data[at + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

describe('the certificate PDF: signed, PDF/A, readable', () => {
  let s: TestServer;
  let dir: string;
  let file: string;
  let pdf: Buffer;
  let captureId: string;
  let bundleHash: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cl-cert-pdf-'));
    s = await startTestServer({
      ROLES: 'api,projector,signer',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
    });
    captureId = newId('cap');
    const shot = screenshot();
    const capture = sampleCapture({ captureId, url: URL_TEXT, page: { title: TITLE, screenshot: shot } });
    const bundle = (await makeBundle(capture, s.server.evidence.notary!))!;
    bundleHash = bundle.ref.bundleHash;
    await completeWithBundle(s.server, 'certpdf', captureId, bundle, 'certificate-pdf-test', shot, URL_TEXT);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await fetch(`${s.baseUrl}/v1/captures/${captureId}/certificate`);
      if (res.status === 200) {
        pdf = Buffer.from(await res.arrayBuffer());
        break;
      }
      if (Date.now() > deadline) throw new Error(`no certificate: ${res.status} ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    file = join(dir, 'certificate.pdf');
    await writeFile(file, pdf);
  });
  after(async () => {
    await s?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('pdfsig: signed, the signature valid, the whole document signed (an unknown issuer is fine)', async () => {
    const out = await run('pdfsig', [file]);
    assert.match(out.stdout, /Signature Type: ETSI\.CAdES\.detached/);
    assert.match(out.stdout, /Signature Validation: Signature is Valid\./);
    assert.match(out.stdout, /Total document signed/);
    assert.match(out.stdout, /Signer Certificate Common Name: Capture Ledger certificate signing/);
  });

  it('pdfsig: one byte flipped inside the signed range makes the signature invalid', async () => {
    const parts = splitPdfSignature(pdf)!;
    const flipped = Buffer.from(pdf);
    const at = Math.floor(parts.byteRange[1] / 2);
    flipped[at] = (flipped[at] as number) ^ 0x01;
    const bad = join(dir, 'flipped.pdf');
    await writeFile(bad, flipped);
    const out = await run('pdfsig', [bad]);
    assert.doesNotMatch(out.stdout, /Signature is Valid/);
    assert.match(out.stdout + out.stderr, /Signature Validation: (Digest Mismatch|Signature is Invalid)/);
  });

  it('the verifier package: the envelope checks and the PDF signature pass', async () => {
    const result = await verifyCertificate(pdf, await deploymentTrust(s.server.ctx.pool, s.server.evidence).anchors());
    const byName = Object.fromEntries(result.checks.map((c) => [c.name, c.status]));
    assert.deepEqual(byName, {
      envelope: 'pass',
      certificateHash: 'pass',
      signature: 'pass',
      timestamp: 'pass',
      url: 'pass',
      pdfSignature: 'pass',
    });
    assert.equal(result.verified, true);
  });

  it('pdffonts: every font embedded', async () => {
    const out = await run('pdffonts', [file]);
    const rows = out.stdout.split('\n').slice(2).filter(Boolean);
    assert.ok(rows.length >= 3, out.stdout);
    for (const row of rows) assert.match(row, /\s+yes\s+yes\s+yes\s+\d+\s+0\s*$/, `not embedded: ${row}`);
  });

  it('PDF/A-3b structure: XMP pdfaid, an sRGB OutputIntent, the file ID, no transparency groups', async () => {
    const body = pdf.toString('latin1');
    assert.match(body, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.match(body, /<pdfaid:conformance>B<\/pdfaid:conformance>/);
    assert.match(body, /\/OutputIntents \[\d+ 0 R\]/);
    assert.match(body, /\/S \/GTS_PDFA1/);
    assert.match(body, /\/ID \[<[0-9a-f]+> <[0-9a-f]+>\]/);
    assert.doesNotMatch(body, /\/SMask|\/S \/Transparency|\/CA 0\.|\/ca 0\./);
  });

  it('pdftotext: the Greek and Japanese title and URL exactly; every page names capture, URL, hash and page N of M', async () => {
    const info = await run('pdfinfo', [file]);
    const pages = Number(/Pages:\s+(\d+)/.exec(info.stdout)?.[1]);
    assert.ok(pages >= 2);
    const all = (await run('pdftotext', [file, '-'])).stdout;
    assert.ok(all.includes(TITLE), 'the title as it was');
    assert.ok(all.includes(URL_TEXT), 'the URL as it was');
    assert.doesNotMatch(all, /not-found\?|\?delayMs/, 'settings print readably');
    for (let page = 1; page <= pages; page++) {
      const text = (await run('pdftotext', ['-f', String(page), '-l', String(page), file, '-'])).stdout;
      assert.ok(text.includes(captureId), `page ${page}: capture id`);
      assert.ok(text.includes(URL_TEXT), `page ${page}: URL`);
      assert.ok(text.includes(bundleHash), `page ${page}: bundle hash`);
      assert.ok(text.includes(`page ${page} of ${pages}`), `page ${page}: page N of M`);
    }
    const last = (await run('pdftotext', ['-f', String(pages), '-l', String(pages), file, '-'])).stdout;
    assert.match(last, /Declaration of the custodian/);
    assert.match(all, /issued \d{1,2} \w+ \d{4}, \d\d:\d\d:\d\d UTC/);
  });

  it('pdftoppm: page 1 shows the screenshot (red where the page was red)', async () => {
    await run('pdftoppm', ['-f', '1', '-l', '1', '-r', '40', '-png', file, join(dir, 'p')]);
    const page = PNG.sync.read(await readFile(join(dir, 'p-1.png')));
    let red = 0;
    for (let i = 0; i < page.data.length; i += 4) {
      if ((page.data[i] as number) > 180 && (page.data[i + 1] as number) < 80 && (page.data[i + 2] as number) < 80)
        red++;
    }
    // The shown top of the screenshot is half red: a block of several thousand pixels at 40 dpi.
    assert.ok(red > 2000, `only ${red} red pixels on page 1`);
  });
});
