import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import {
  BUNDLE_BYTES_INFO_KEY,
  BUNDLE_FILE_INFO_KEY,
  TRANSPARENCY_INFO_KEY,
  type CertificateTransparency,
} from '../../packages/verifier/src/index.js';

/**
 * The capture certificate as a PDF (README, Certificate): a statement in the style of US Federal Rule of
 * Evidence 902(13)/(14) — what was captured, how, the SHA-256 of every artifact, the signature and timestamp
 * of the bundle, how to verify it (URL and QR code), and a declaration for the custodian to sign.
 *
 * The same facts always give the same bytes: the PDF dates are the capture's completion time, the document id
 * pdfkit derives from them, only the standard 14 fonts (nothing embedded), and the QR code drawn as vector
 * squares. The rendered bytes are what the signer role signs (certificate.ts); the signature travels in an
 * attachment added after them (packages/verifier/src/certificate.ts).
 *
 * The body is a list of sections, numbered as they are drawn (a section with nothing to state draws nothing).
 * The transparency-log section's data travels, machine-readable, in the signature attachment; the document states
 * its digest in the Info entry /CaptureLedgerTransparency, which binds it to the signed bytes.
 */

export interface CertificateFacts {
  captureId: string;
  requestedUrl: string;
  finalUrl: string;
  redirectChain: Array<{ url: string; status: number | null }>;
  mainDocumentStatus: number | null;
  renderQuality: 'full' | 'partial';
  submittedAt: string;
  startedAt: string | null;
  completedAt: string;
  browser: { version: string; userAgent: string } | null;
  viewport: { width: number; height: number; deviceScaleFactor: number } | null;
  /** "name: value" lines of the capture options used. */
  settings: string[];
  egressPolicy: string;
  artifacts: Array<{ name: string; mediaType: string; bytes: number; hash: string }>;
  bundle: { hash: string; fileSha256: string; bytes: number };
  signing: { keyId: string; publicKey: string; signature: string; signedAt: string };
  timestamp: { tsa: string; genTime: string; serial: string; builtIn: boolean } | null;
  /** Bundle checks as run when the certificate was made. */
  checks: Array<{ name: string; status: string; detail?: string }>;
  verifyUrl: string;
  keysUrl: string;
  tsaCertificatesUrl: string;
  issuer: string;
  /** The bundle's leaf in the public transparency log with its first covering checkpoint; null without a log. */
  transparency: { block: CertificateTransparency; digest: string; logKeyUrl: string } | null;
}

export type CertificateSection = (doc: PDFKit.PDFDocument, facts: CertificateFacts) => void;

const MARGIN = 50;
const INK = '#1b1b1b';
const MUTED = '#555555';

/** Standard-14 fonts speak WinAnsi: anything outside Latin-1 prints as '?' rather than as garbage. */
export function pdfText(value: string): string {
  return value.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}

/** Sections are numbered in the order drawn. */
const drawnSections = new WeakMap<PDFKit.PDFDocument, number>();

function heading(doc: PDFKit.PDFDocument, title: string): void {
  const number = (drawnSections.get(doc) ?? 0) + 1;
  drawnSections.set(doc, number);
  if (doc.y > doc.page.height - MARGIN - 120) doc.addPage();
  doc.moveDown(0.8).font('Helvetica-Bold').fontSize(12).fillColor(INK).text(`${number}. ${title}`, MARGIN);
  const y = doc.y + 2;
  doc
    .moveTo(MARGIN, y)
    .lineTo(doc.page.width - MARGIN, y)
    .lineWidth(0.5)
    .strokeColor('#999999')
    .stroke();
  doc.moveDown(0.4);
}

/** A label and its value; `mono` for hashes, keys and URLs (Courier keeps them unambiguous). */
function field(doc: PDFKit.PDFDocument, label: string, value: string, mono = false): void {
  const width = doc.page.width - 2 * MARGIN;
  doc.font('Helvetica-Bold').fontSize(8.5).fillColor(MUTED).text(pdfText(label), MARGIN, doc.y, { width });
  doc
    .font(mono ? 'Courier' : 'Helvetica')
    .fontSize(mono ? 8 : 9.5)
    .fillColor(INK)
    .text(pdfText(value), MARGIN, doc.y, { width });
  doc.moveDown(0.25);
}

function paragraph(doc: PDFKit.PDFDocument, text: string, size = 9.5): void {
  doc
    .font('Helvetica')
    .fontSize(size)
    .fillColor(INK)
    .text(pdfText(text), MARGIN, doc.y, { width: doc.page.width - 2 * MARGIN, align: 'left' });
  doc.moveDown(0.4);
}

const captured: CertificateSection = (doc, f) => {
  heading(doc, 'What was captured');
  field(doc, 'Requested URL', f.requestedUrl, true);
  field(doc, 'Final URL (after redirects)', f.finalUrl, true);
  if (f.redirectChain.length > 1) {
    field(doc, 'Redirect chain', f.redirectChain.map((hop) => `${hop.status ?? '-'} ${hop.url}`).join('\n'), true);
  }
  field(
    doc,
    'Main document HTTP status',
    f.mainDocumentStatus === null ? 'not recorded' : String(f.mainDocumentStatus),
  );
  field(
    doc,
    'Render quality',
    f.renderQuality === 'full'
      ? 'full (the page reached its load event, then settled)'
      : 'partial (captured after a navigation timeout)',
  );
  field(doc, 'Submitted', f.submittedAt);
  if (f.startedAt) field(doc, 'Browser started', f.startedAt);
  field(doc, 'Completed', f.completedAt);
};

const how: CertificateSection = (doc, f) => {
  heading(doc, 'How it was captured');
  paragraph(
    doc,
    'The page was loaded by a headless Chromium browser run by this service, in a fresh browser profile with no cookies or stored logins. ' +
      "Every network connection of the browser went through the service's egress proxy, which recorded each exchange. After the page's load " +
      'event the service waited for network activity to settle (at most 3 seconds), scrolled to trigger lazy content, then took the full-page ' +
      'screenshot and the rendered HTML. The recorded network exchanges were written as WARC records into a WACZ web archive together with the ' +
      'screenshot, the HTML, the response headers and a provenance record; the archive manifest (datapackage.json) lists the SHA-256 of every file. ' +
      "The manifest's hash was signed with the service's Ed25519 key by a separate signer process that renders nothing, and time-stamped by an " +
      'RFC 3161 time-stamping authority.',
  );
  if (f.browser) {
    field(doc, 'Browser', `Chromium ${f.browser.version}`);
    field(doc, 'User agent', f.browser.userAgent, true);
  }
  if (f.viewport)
    field(
      doc,
      'Viewport',
      `${f.viewport.width} x ${f.viewport.height} CSS px at device scale ${f.viewport.deviceScaleFactor}`,
    );
  if (f.settings.length > 0) field(doc, 'Capture settings', f.settings.join('\n'));
  field(doc, 'Egress policy', f.egressPolicy);
};

const artifacts: CertificateSection = (doc, f) => {
  heading(doc, 'Artifacts and their SHA-256');
  for (const a of f.artifacts) field(doc, `${a.name} (${a.mediaType}, ${a.bytes} bytes)`, a.hash, true);
  field(
    doc,
    `Signed WACZ bundle (application/wacz+zip, ${f.bundle.bytes} bytes), SHA-256 of the file`,
    f.bundle.fileSha256,
    true,
  );
  field(doc, 'Bundle hash (SHA-256 of datapackage.json, the signed manifest)', f.bundle.hash, true);
};

const signature: CertificateSection = (doc, f) => {
  heading(doc, 'Signature and timestamp of the bundle');
  field(doc, 'Key id', f.signing.keyId, true);
  field(doc, 'Public key (Ed25519, base64)', f.signing.publicKey, true);
  field(doc, 'Signature over the bundle hash (base64)', f.signing.signature, true);
  field(doc, 'Signed at', f.signing.signedAt);
  if (f.timestamp) {
    field(doc, 'Time-stamping authority', f.timestamp.tsa, true);
    field(doc, 'Timestamp time (genTime)', f.timestamp.genTime);
    field(doc, 'Timestamp serial number', f.timestamp.serial, true);
    field(
      doc,
      'Built-in TSA',
      f.timestamp.builtIn
        ? "yes: the service's own built-in TSA issued this timestamp; it is valid but not an independent third party"
        : 'no: an external RFC 3161 time-stamping authority issued this timestamp',
    );
  } else {
    field(doc, 'Timestamp', 'none: this bundle (v0.1.0) was signed without an RFC 3161 timestamp');
  }
};

/** Monospace lines (a signed note, proof hashes) kept as they are: small enough that a line never wraps. */
function monoLines(doc: PDFKit.PDFDocument, label: string, lines: string[]): void {
  const width = doc.page.width - 2 * MARGIN;
  doc.font('Helvetica-Bold').fontSize(8.5).fillColor(MUTED).text(pdfText(label), MARGIN, doc.y, { width });
  // The note's signature line starts with an em dash (U+2014), which the standard fonts' WinAnsi encoding holds.
  for (const line of lines)
    doc
      .font('Courier')
      .fontSize(6.5)
      .fillColor(INK)
      .text(line.replace(/[^\x20-\x7e\xa0-\xff\u2014]/g, '?') || ' ', MARGIN, doc.y, { width, lineBreak: true });
  doc.moveDown(0.25);
}

const transparency: CertificateSection = (doc, f) => {
  const t = f.transparency;
  if (!t) return;
  const { block } = t;
  const size = block.checkpoint.split('\n')[1] ?? '?';
  heading(doc, 'Public transparency log');
  paragraph(
    doc,
    `The signed bundle is leaf ${block.leafIndex} of this service's public, append-only transparency log (RFC 9162 Merkle tree). Below are the ` +
      `leaf as logged, the signed checkpoint (C2SP tlog-checkpoint) of the first published tree that contains it (${size} leaves), and the ` +
      "inclusion proof from the leaf to that checkpoint's root hash. To check inclusion with this certificate alone: hash the leaf as " +
      'SHA-256(0x00 || leaf bytes), combine it with the proof hashes in order as RFC 9162 section 2.1.3.2 describes (nodes are ' +
      "SHA-256(0x01 || left || right)), compare the result with the checkpoint's root hash (third line, base64), and check the checkpoint's " +
      `Ed25519 signature with the log's key (${t.logKeyUrl}). The same data is in the attachment certificate-signature.json ("transparency").`,
    9,
  );
  field(doc, 'Leaf index', String(block.leafIndex));
  monoLines(
    doc,
    'Leaf data (RFC 8785 JSON, one line without spaces, broken here every 100 characters; captureIdHash is the SHA-256 of the capture ID)',
    block.leaf.match(/.{1,100}/g) ?? [],
  );
  monoLines(
    doc,
    'Signed checkpoint (C2SP signed note; the signature line starts with an em dash)',
    block.checkpoint.replace(/\n$/, '').split('\n'),
  );
  field(
    doc,
    'Checkpoint timestamp',
    block.checkpointTimestamp
      ? `RFC 3161 genTime ${block.checkpointTimestamp.genTime} from ${block.checkpointTimestamp.tsa} (over SHA-256 of the checkpoint note)`
      : 'none (the checkpoint was published without an RFC 3161 timestamp)',
  );
  monoLines(
    doc,
    `Inclusion proof (${block.inclusionProof.length} SHA-256 hashes, hex, from the leaf up)`,
    block.inclusionProof.length > 0 ? block.inclusionProof : ['(empty: the leaf is the whole tree)'],
  );
  monoLines(doc, "Log verifier key (as published; check it against the operator's publication)", [block.logKey]);
};

const verification: CertificateSection = (doc, f) => {
  heading(doc, 'Verification');
  const qrSize = 96;
  const top = doc.y;
  drawQr(doc, f.verifyUrl, doc.page.width - MARGIN - qrSize, top, qrSize);
  const width = doc.page.width - 2 * MARGIN - qrSize - 16;
  doc.font('Helvetica-Bold').fontSize(8.5).fillColor(MUTED).text('Verification URL', MARGIN, top, { width });
  doc.font('Courier').fontSize(8).fillColor(INK).text(pdfText(f.verifyUrl), MARGIN, doc.y, { width });
  doc.moveDown(0.3);
  doc
    .font('Helvetica-Bold')
    .fontSize(8.5)
    .fillColor(MUTED)
    .text('Checks when this certificate was issued', MARGIN, doc.y, { width });
  for (const c of f.checks)
    doc
      .font('Helvetica')
      .fontSize(9)
      .fillColor(INK)
      .text(pdfText(`${c.name}: ${c.status}`), MARGIN, doc.y, { width });
  doc.moveDown(0.3);
  doc
    .font('Helvetica')
    .fontSize(8.5)
    .text(
      pdfText(
        `Anyone can repeat the checks, with Node.js 20+ and curl: curl -fsSL -o capture.wacz ${f.keysUrl.replace('/.well-known/signing-keys', '')}/v1/captures/${f.captureId}/artifacts/wacz ; ` +
          `npx --yes ${f.keysUrl.replace('/.well-known/signing-keys', '')}/verifier/capture-ledger-verifier.tgz capture.wacz --certificate certificate.pdf ` +
          `--keys-url ${f.keysUrl} --tsa-ca-url ${f.tsaCertificatesUrl} (or node capture-ledger-verify.mjs, from /verifier/capture-ledger-verify.mjs, with the same arguments). This certificate itself is signed: its Ed25519 signature and ` +
          'RFC 3161 timestamp are attached to this PDF as certificate-signature.json.',
      ),
      MARGIN,
      doc.y,
      { width },
    );
  doc.y = Math.max(doc.y, top + qrSize) + 6;
};

const declaration: CertificateSection = (doc, f) => {
  heading(doc, 'Declaration of the custodian');
  paragraph(
    doc,
    `I, the undersigned, declare that I am a custodian of the records of ${f.issuer}, or another person qualified to certify them; that ` +
      'the electronic record described above was generated by an electronic process or system that produces an accurate result, as ' +
      'described in section 2; that the record was made at or near the time shown by, or from information transmitted by, a person with ' +
      'knowledge of those matters, in the course of a regularly conducted activity; and that its copies can be identified as true by the ' +
      'SHA-256 hashes and the digital signature listed above (compare US Federal Rules of Evidence 902(11), 902(13) and 902(14)). ' +
      'I declare under penalty of perjury under the laws of the applicable jurisdiction that the foregoing is true and correct.',
  );
  const width = doc.page.width - 2 * MARGIN;
  for (const label of ['Name', 'Title', 'Organization', 'Place and date', 'Signature']) {
    if (doc.y > doc.page.height - MARGIN - 40) doc.addPage();
    doc.moveDown(1.1);
    const y = doc.y + 10;
    doc
      .moveTo(MARGIN + 110, y)
      .lineTo(MARGIN + width, y)
      .lineWidth(0.5)
      .strokeColor('#777777')
      .stroke();
    doc.font('Helvetica').fontSize(9).fillColor(INK).text(`${label}:`, MARGIN, doc.y);
  }
};

/** The body, in order; each section starts with its heading. */
export const SECTIONS: readonly CertificateSection[] = [
  captured,
  how,
  artifacts,
  signature,
  transparency,
  verification,
  declaration,
];

function drawQr(doc: PDFKit.PDFDocument, text: string, x: number, y: number, size: number): void {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const count = qr.modules.size;
  const quiet = 2;
  const cell = size / (count + 2 * quiet);
  doc.save().fillColor('#000000');
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; col++) {
      if (qr.modules.get(row, col)) doc.rect(x + (col + quiet) * cell, y + (row + quiet) * cell, cell, cell);
    }
  }
  doc.fill().restore();
}

export async function renderCertificatePdf(
  facts: CertificateFacts,
  sections: readonly CertificateSection[] = SECTIONS,
): Promise<Uint8Array> {
  const fixed = new Date(facts.completedAt);
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: `Certificate of capture ${facts.captureId}`,
      Author: facts.issuer,
      Subject: pdfText(facts.requestedUrl),
      Creator: 'Capture Ledger',
      Producer: 'Capture Ledger (pdfkit)',
      CreationDate: fixed,
      ModDate: fixed,
      ...(facts.transparency ? { [TRANSPARENCY_INFO_KEY]: facts.transparency.digest } : {}),
      // The WACZ file certified, machine-readable and signed with the document (verifier --certificate).
      ...{ [BUNDLE_FILE_INFO_KEY]: facts.bundle.fileSha256, [BUNDLE_BYTES_INFO_KEY]: String(facts.bundle.bytes) },
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  doc.font('Helvetica-Bold').fontSize(17).fillColor(INK).text('Certificate of a Web Capture', MARGIN);
  doc
    .font('Helvetica')
    .fontSize(10)
    .fillColor(MUTED)
    .text(pdfText(`Capture ${facts.captureId} - issued by ${facts.issuer}`));
  doc.moveDown(0.3);
  paragraph(
    doc,
    'This certificate describes one capture of a web page and the evidence the service keeps of it. The signed WACZ bundle named below is the ' +
      'evidence; this document states what it contains and how to check it.',
    9,
  );
  for (const section of sections) section(doc, facts);
  doc.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}
