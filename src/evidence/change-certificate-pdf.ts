import type { CaptureDiff } from '../watch/capture-diff.js';
import { CERTIFICATE_FONTS, FONT } from './certificate-fonts.js';
import { pdfLibraries, pdfText, urlDigest } from './certificate-pdf.js';
import { PDF_SIGNING_KEY_INFO_KEY, URL_INFO_KEY } from '../../packages/verifier/src/index.js';

/**
 * The certificate of a change (docs/watch.md): "between T1 and T2 this page changed as follows", as a
 * PDF/A-3b document the signer role then attests like a capture certificate (certificate.ts's envelope, checked by
 * the verifier's verifyCertificate) and signs with the same standard PDF signature (pdf-signature.ts). Like a capture
 * certificate's, its Info entries state the SHA-256 of the URL the envelope names and the PDF-signing key, so every
 * field a verifier shows is signed. The full diff stays in the signed diff evidence whose record hash it names.
 */
export interface ChangeCertificateFacts {
  diff: CaptureDiff;
  recordHash: string;
  issuer: string;
  /** ISO 8601, whole seconds: the document's dates, so its bytes are fixed once issued. */
  issuedAt: string;
  /** `sha256:` of the SubjectPublicKeyInfo of the key that signs this PDF (PAdES); null: not PDF-signed. */
  pdfSigningKey: string | null;
}

const MARGIN = 50;
const MAX_LISTED = 25;

export async function renderChangeCertificatePdf(f: ChangeCertificateFacts): Promise<Uint8Array> {
  const fixed = new Date(f.issuedAt);
  const { base, capture, summary } = f.diff;
  const { PDFDocument } = await pdfLibraries();
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    pdfVersion: '1.7',
    subset: 'PDF/A-3b',
    lang: 'en',
    displayTitle: true,
    info: {
      Title: `Certificate of a change: ${capture.captureId} against ${base.captureId}`,
      Author: f.issuer,
      Subject: capture.url,
      Creator: 'Capture Ledger',
      Producer: 'Capture Ledger (pdfkit)',
      CreationDate: fixed,
      ModDate: fixed,
      // The envelope's url is the later capture's (capture-diff-service.ts).
      ...{ [URL_INFO_KEY]: urlDigest(capture.url) },
      ...(f.pdfSigningKey ? { [PDF_SIGNING_KEY_INFO_KEY]: f.pdfSigningKey } : {}),
    },
  });
  for (const [name, font] of Object.entries(CERTIFICATE_FONTS)) doc.registerFont(name, font.path, font.family);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  const line: Line = (text, font = FONT.regular, size = 10) =>
    void doc
      .font(font)
      .fontSize(size)
      .text(pdfText(text), { width: doc.page.width - 2 * MARGIN });
  const gap = () => void doc.moveDown();
  line('Certificate of a Change to a Web Page', FONT.bold, 17);
  doc.moveDown(0.5);
  line(
    `Between ${base.completedAt} and ${capture.completedAt} (UTC) the page ${capture.url}${
      f.diff.sameUrl ? '' : ` (earlier captured at ${base.url})`
    } ${f.diff.changed ? 'changed as follows' : 'did not change'}, as captured by ${f.issuer}.`,
  );
  gap();
  writeCompared(line, f);
  gap();
  writeSummary(line, summary);
  writeChanges(line, gap, f);
  gap();
  writeEvidence(line, f);
  doc.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}

/** One paragraph of the certificate in a font and size. */
type Line = (text: string, font?: string, size?: number) => void;

/** The two captures compared and the options of the comparison. */
function writeCompared(line: Line, f: ChangeCertificateFacts): void {
  const { base, capture } = f.diff;
  line('Captures compared', FONT.bold, 12);
  for (const [label, s] of [
    ['Earlier', base],
    ['Later', capture],
  ] as const)
    line(`${label}: ${s.captureId}, completed ${s.completedAt}, bundle ${s.bundleHash ?? 'none'}`, FONT.mono, 8);
  line(
    `Options: ignoreSelectors ${JSON.stringify(f.diff.options.ignoreSelectors)}, ignoreText ${JSON.stringify(f.diff.options.ignoreText)}`,
    FONT.mono,
    8,
  );
  const ignored = f.diff.screenshot?.ignored;
  // Which ignored elements were left out of the pixel comparison (by their boxes recorded at capture time).
  if (ignored && ignored.masked.length + ignored.notRecorded.length > 0)
    line(
      `Pixels: masked ${JSON.stringify(ignored.masked)} (boxes recorded at capture time), not recorded ${JSON.stringify(ignored.notRecorded)}`,
      FONT.mono,
      8,
    );
  // Likewise the ignoreText patterns (the boxes of their matches in the text).
  if (ignored && (ignored.maskedText?.length ?? 0) + (ignored.textNotRecorded?.length ?? 0) > 0)
    line(
      `Pixels: text masked ${JSON.stringify(ignored.maskedText ?? [])} (boxes recorded at capture time), not recorded ${JSON.stringify(ignored.textNotRecorded ?? [])}`,
      FONT.mono,
      8,
    );
}

function writeSummary(line: Line, summary: ChangeCertificateFacts['diff']['summary']): void {
  line('Summary', FONT.bold, 12);
  line(
    `Text blocks: ${summary.textBlocksChanged} changed, ${summary.textBlocksAdded} added, ${summary.textBlocksRemoved} removed. ` +
      `Response headers changed: ${summary.headersChanged}. Resources: ${summary.resourcesChanged} changed, ` +
      `${summary.resourcesAdded} added, ${summary.resourcesRemoved} removed. Screenshot: ${(summary.pixelChangeRatio * 100).toFixed(2)} % of pixels in ${summary.changedRegions} regions.`,
  );
}

/** The text, header and resource changes, each list cut at MAX_LISTED. */
function writeChanges(line: Line, gap: () => void, f: ChangeCertificateFacts): void {
  const text = f.diff.text?.changes ?? [];
  if (text.length) {
    gap();
    line('Text', FONT.bold, 12);
    for (const c of text.slice(0, MAX_LISTED)) {
      if (c.kind === 'changed') {
        line(`Changed — before: ${c.before}`, FONT.regular, 9);
        line(`after: ${c.after}`, FONT.regular, 9);
      } else line(`${c.kind === 'added' ? 'Added' : 'Removed'}: ${c.text}`, FONT.regular, 9);
    }
    if (text.length > MAX_LISTED)
      line(`… and ${text.length - MAX_LISTED} more (see the diff evidence).`, FONT.regular, 9);
  }
  const headers = f.diff.headers.changes;
  if (headers.length) {
    gap();
    line('Response headers of the page', FONT.bold, 12);
    for (const c of headers.slice(0, MAX_LISTED))
      line(
        c.kind === 'changed'
          ? `${c.name}: ${JSON.stringify(c.baseValue)} → ${JSON.stringify(c.value)}`
          : `${c.name} ${c.kind}: ${JSON.stringify(c.kind === 'added' ? c.value : c.baseValue)}`,
        FONT.mono,
        8,
      );
  }
  const resources = f.diff.resources;
  if (resources && resources.added.length + resources.removed.length + resources.changed.length) {
    gap();
    line('Resources', FONT.bold, 12);
    for (const u of resources.changed.slice(0, MAX_LISTED)) line(`changed: ${u.url}`, FONT.mono, 8);
    for (const u of resources.added.slice(0, MAX_LISTED)) line(`added: ${u}`, FONT.mono, 8);
    for (const u of resources.removed.slice(0, MAX_LISTED)) line(`removed: ${u}`, FONT.mono, 8);
  }
}

/** Where the full diff is and how this certificate is signed. */
function writeEvidence(line: Line, f: ChangeCertificateFacts): void {
  line('Evidence', FONT.bold, 12);
  line(
    `The full diff is the signed, time-stamped diff evidence with record hash ${f.recordHash} ` +
      '(made by POST /v1/captures/{id}/diff/evidence; `capture-ledger verify` checks it). This certificate carries its own ' +
      'Ed25519 signature and RFC 3161 timestamp in its attachment certificate-signature.json' +
      (f.pdfSigningKey
        ? `, and is signed (PDF signature, PAdES) with the ECDSA P-256 key derived from the signing key, SHA-256 of its public key (SubjectPublicKeyInfo) ${f.pdfSigningKey}.`
        : '.'),
    FONT.regular,
    9,
  );
  line(`Issued ${f.issuedAt} by ${f.issuer}.`, FONT.regular, 9);
}
