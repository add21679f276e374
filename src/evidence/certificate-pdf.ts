import { createHash } from 'node:crypto';
import type PDFDocumentClass from 'pdfkit';
import type QRCodeModule from 'qrcode';
import {
  BUNDLE_BYTES_INFO_KEY,
  BUNDLE_FILE_INFO_KEY,
  PDF_SIGNING_KEY_INFO_KEY,
  TRANSPARENCY_INFO_KEY,
  URL_INFO_KEY,
  type CertificateTransparency,
} from '../../packages/verifier/src/index.js';
import { CERTIFICATE_FONTS, FONT, fontFor } from './certificate-fonts.js';
import { verificationInstructions } from './certificate-instructions.js';
import { screenshotPreview } from './screenshot-preview.js';

/**
 * The capture certificate as a PDF (docs/evidence.md, The certificate a reader gets): a statement in the style of US Federal Rule of
 * Evidence 902(13)/(14) — what was captured, how, the SHA-256 of every artifact, the signature and timestamp
 * of the bundle, how to verify it (URL and QR code), and a declaration for the custodian to sign.
 *
 * PDF/A-3b (ISO 19005-3: PDF/A-2b's rules — every font embedded, XMP metadata, an sRGB OutputIntent, no
 * transparency — plus the JSON attachment our envelope is, which PDF/A-2 forbids): DejaVu fonts, and Noto Sans
 * CJK for the characters DejaVu lacks (certificate-fonts.ts), so any title or URL prints as it was. Every page
 * carries the capture id, the URL, the bundle hash and "page N of M".
 *
 * The same facts (issue time included) always give the same bytes: the PDF dates are the issue time, the
 * document id pdfkit derives from them, font subsets in order of use, and the QR code drawn as vector squares.
 * The rendered bytes are what the signer role signs (certificate.ts); the signature travels in an attachment
 * added after them (packages/verifier/src/certificate.ts), and the standard PDF signature that covers both is
 * the last update (packages/verifier/src/pdf-signature.ts).
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
  /** When this certificate is issued (ISO 8601, whole seconds). */
  issuedAt: string;
  /** The captured page's title (pages/pages.jsonl of the bundle); null when it had none. */
  title: string | null;
  /** The full-page screenshot (PNG) as stored; page 1 shows its top, downscaled. */
  screenshot: Uint8Array | null;
  /** `sha256:` of the SubjectPublicKeyInfo of the key that signs this PDF (PAdES); null: not PDF-signed. */
  pdfSigningKey: string | null;
  /** The retention the provenance record states; null: none. */
  retention?: { mode: 'compliance'; retainUntil: string; storage: string } | null;
  /** The signed record of the corroborated set this capture is a member of; absent: none. */
  corroboration?: CertificateCorroboration | null;
}

/** What a member's certificate states of its set's signed corroboration record (src/vantages/corroboration-rules.ts). */
export interface CertificateCorroboration {
  id: string;
  verdict: 'AGREE' | 'DIVERGE';
  differing: string[];
  window: { ms: number; startedWithin: boolean; spreadMs: number | null; distinctWorkers: boolean };
  members: Array<{
    captureId: string;
    vantage: { id: string; label: string; region: string } | null;
    exitAddress: string | null;
    status: string;
    worker: string | null;
  }>;
  recordHash: string;
  keyId: string;
  /** The record's RFC 3161 genTime; null: not time-stamped. */
  genTime: string | null;
  /** GET …/corroboration: the signed record. */
  recordUrl: string;
}

export type CertificateSection = (doc: PDFKit.PDFDocument, facts: CertificateFacts) => void;

const MARGIN = 50;
const INK = '#1b1b1b';
const MUTED = '#555555';

/** Control characters but line breaks print as nothing; everything else as it is (the fonts cover it). */
export function pdfText(value: string): string {
  let out = '';
  for (const char of value.replace(/\r\n?/g, '\n')) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\n' || !(code < 0x20 || (code >= 0x7f && code < 0xa0))) out += char;
  }
  return out;
}

/**
 * Text in `base` (a FONT name), each run of characters the base font lacks in the font that has them, flowing
 * as one paragraph (pdfkit's `continued`).
 */
function write(
  doc: PDFKit.PDFDocument,
  base: keyof typeof FONT,
  value: string,
  x: number | undefined,
  y: number | undefined,
  options: PDFKit.Mixins.TextOptions,
): void {
  const runs: Array<{ font: string; text: string }> = [];
  for (const char of pdfText(value)) {
    const font = fontFor(base, char);
    const last = runs.at(-1);
    if (last && last.font === font) last.text += char;
    else runs.push({ font, text: char });
  }
  if (runs.length === 0) runs.push({ font: FONT[base], text: ' ' });
  runs.forEach((run, i) => {
    doc.font(run.font);
    const opts = { ...options, continued: i < runs.length - 1 };
    if (i === 0 && x !== undefined) doc.text(run.text, x, y, opts);
    else doc.text(run.text, opts);
  });
}

/** Sections are numbered in the order drawn. */
const drawnSections = new WeakMap<PDFKit.PDFDocument, number>();

function heading(doc: PDFKit.PDFDocument, title: string): void {
  const number = (drawnSections.get(doc) ?? 0) + 1;
  drawnSections.set(doc, number);
  if (doc.y > doc.page.height - MARGIN - 120) doc.addPage();
  doc.moveDown(0.8).font(FONT.bold).fontSize(12).fillColor(INK).text(`${number}. ${title}`, MARGIN);
  const y = doc.y + 2;
  doc
    .moveTo(MARGIN, y)
    .lineTo(doc.page.width - MARGIN, y)
    .lineWidth(0.5)
    .strokeColor('#999999')
    .stroke();
  doc.moveDown(0.4);
}

/** A label and its value; `mono` for hashes, keys and URLs (a monospace face keeps them unambiguous). */
function field(doc: PDFKit.PDFDocument, label: string, value: string, mono = false): void {
  const width = doc.page.width - 2 * MARGIN;
  doc.fontSize(8.5).fillColor(MUTED);
  write(doc, 'bold', label, MARGIN, doc.y, { width });
  doc.fontSize(mono ? 8 : 9.5).fillColor(INK);
  write(doc, mono ? 'mono' : 'regular', value, MARGIN, doc.y, { width });
  doc.moveDown(0.25);
}

function paragraph(doc: PDFKit.PDFDocument, text: string, size = 9.5): void {
  doc.fontSize(size).fillColor(INK);
  write(doc, 'regular', text, MARGIN, doc.y, { width: doc.page.width - 2 * MARGIN, align: 'left' });
  doc.moveDown(0.4);
}

const captured: CertificateSection = (doc, f) => {
  heading(doc, 'What was captured');
  if (f.title !== null) field(doc, 'Page title', f.title);
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
  if (f.retention)
    field(
      doc,
      'Retention in storage',
      `Stored under ${f.retention.storage} in ${f.retention.mode} mode until ${f.retention.retainUntil}: nobody, the operator included, can delete the bundle or shorten this before then.`,
    );
};

const signature: CertificateSection = (doc, f) => {
  heading(doc, 'Signature and timestamp of the bundle');
  field(doc, 'Key id', f.signing.keyId, true);
  field(doc, 'Public key (Ed25519, base64)', f.signing.publicKey, true);
  field(doc, 'Signature over the bundle hash (base64)', f.signing.signature, true);
  field(doc, 'Signed at', f.signing.signedAt);
  if (f.pdfSigningKey)
    field(
      doc,
      'This PDF is signed (PDF signature, PAdES) with the ECDSA P-256 key derived from the key above; SHA-256 of its public key (SubjectPublicKeyInfo)',
      f.pdfSigningKey,
      true,
    );
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
  doc.fontSize(8.5).fillColor(MUTED);
  write(doc, 'bold', label, MARGIN, doc.y, { width });
  doc.fontSize(6.5).fillColor(INK);
  for (const line of lines) write(doc, 'mono', line || ' ', MARGIN, doc.y, { width, lineBreak: true });
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

/** What each name in a corroboration record's `differing` means, as a reader would say it. */
const DIFFERING_MEANS: Record<string, string> = {
  members: 'a member capture failed',
  window: 'the browsers did not all start within the window',
  workers: 'members were not rendered by distinct worker processes',
  visibleText: 'the visible text differs',
  mainDocumentBody: "the main document's body differs",
  tlsLeafPublicKey: "the server's TLS certificate key differs",
  resources: 'the sets of loaded resources differ',
  screenshots: 'the screenshots differ',
};

const corroboration: CertificateSection = (doc, f) => {
  const c = f.corroboration;
  if (!c) return;
  heading(doc, 'Corroboration from other vantage points');
  paragraph(
    doc,
    `This capture is one of ${c.members.length} captures of the same URL made together from distinct vantage points (corroborated set ${c.id}). ` +
      'The service compared what they saw — the visible text, the main document, the TLS certificate key, the resources loaded and the ' +
      `screenshots — and whether the members' browsers started within ${c.window.ms / 1000} s of each other on distinct worker processes; ` +
      'the comparison is a record signed and time-stamped like a bundle. The verdict is AGREE only when every member completed within the ' +
      'window on distinct workers and everything compared agrees; otherwise DIVERGE, naming why.',
    9,
  );
  field(
    doc,
    'Verdict',
    c.verdict === 'AGREE'
      ? 'AGREE'
      : `DIVERGE — differing: ${c.differing.map((d) => `${d} (${DIFFERING_MEANS[d] ?? d})`).join(', ')}`,
  );
  field(
    doc,
    'Members (vantage point, region, exit address observed, outcome, worker)',
    c.members
      .map((m) => {
        const where = m.vantage ? `${m.vantage.id}, ${m.vantage.label} (${m.vantage.region})` : 'no vantage point';
        const self = m.captureId === f.captureId ? ' (this capture)' : '';
        return `${m.captureId}${self}: ${where}; exit address ${m.exitAddress ?? 'not observed'}; ${m.status}; worker ${m.worker ?? 'not named'}`;
      })
      .join('\n'),
  );
  field(
    doc,
    'Window',
    `${c.window.startedWithin ? 'started within' : 'not started within'} ${c.window.ms / 1000} s of each other` +
      (c.window.spreadMs === null ? '' : ` (${c.window.spreadMs / 1000} s apart)`) +
      `; ${c.window.distinctWorkers ? 'distinct worker processes' : 'not distinct worker processes'}`,
  );
  field(doc, 'Record hash (SHA-256 of the record as RFC 8785 JSON)', c.recordHash, true);
  field(
    doc,
    'Record signed by',
    `key ${c.keyId}${c.genTime ? `; time-stamped (RFC 3161 genTime ${c.genTime})` : '; not time-stamped'}`,
  );
  field(doc, 'The signed record', c.recordUrl, true);
};

const verification: CertificateSection = (doc, f) => {
  heading(doc, 'Verification');
  const qrSize = 96;
  const top = doc.y;
  drawQr(doc, f.verifyUrl, doc.page.width - MARGIN - qrSize, top, qrSize);
  const width = doc.page.width - 2 * MARGIN - qrSize - 16;
  doc.fontSize(8.5).fillColor(MUTED);
  write(doc, 'bold', 'Verification URL', MARGIN, top, { width });
  doc.fontSize(8).fillColor(INK);
  write(doc, 'mono', f.verifyUrl, MARGIN, doc.y, { width });
  doc.moveDown(0.3);
  doc.fontSize(8.5).fillColor(MUTED);
  write(doc, 'bold', 'Checks when this certificate was issued', MARGIN, doc.y, { width });
  doc.fontSize(9).fillColor(INK);
  for (const c of f.checks) write(doc, 'regular', `${c.name}: ${c.status}`, MARGIN, doc.y, { width });
  doc.y = Math.max(doc.y, top + qrSize) + 6;
  instructions(doc, f);
};

/** How to verify: the text and command lines are certificate-instructions.ts's; this draws them. */
function instructions(doc: PDFKit.PDFDocument, f: CertificateFacts): void {
  const width = doc.page.width - 2 * MARGIN;
  for (const block of verificationInstructions(f)) {
    if (block.kind === 'text') {
      doc.fontSize(8.5).fillColor(INK);
      write(doc, 'regular', block.text, MARGIN, doc.y, { width });
    } else {
      doc.fontSize(7.5).fillColor(INK);
      for (const line of block.lines) write(doc, 'mono', line, MARGIN + 8, doc.y, { width: width - 8 });
    }
    doc.moveDown(0.3);
  }
}

const declaration: CertificateSection = (doc, f) => {
  // Kept on one page: a declaration split from what it declares could be detached.
  if (doc.y > doc.page.height - MARGIN - 360) doc.addPage();
  heading(doc, 'Declaration of the custodian');
  field(doc, 'Capture', f.captureId, true);
  field(doc, 'Captured URL', f.requestedUrl, true);
  field(doc, 'Bundle hash (SHA-256 of datapackage.json)', f.bundle.hash, true);
  field(doc, 'Certificate issued', humanTime(f.issuedAt));
  paragraph(
    doc,
    `I, the undersigned, declare that I am a custodian of the records of ${f.issuer}, or another person qualified to certify them; that ` +
      `the electronic record described above (capture ${f.captureId} of the URL above, with the bundle hash above) was generated by an electronic process or system that produces an accurate result, as ` +
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
    doc.font(FONT.regular).fontSize(9).fillColor(INK).text(`${label}:`, MARGIN, doc.y);
  }
};

/** The body, in order; each section starts with its heading. */
export const SECTIONS: readonly CertificateSection[] = [
  captured,
  how,
  artifacts,
  signature,
  transparency,
  corroboration,
  verification,
  declaration,
];

/**
 * pdfkit and qrcode, imported on the first certificate: together about a fifth of a second of CPU that an API
 * process which never renders one (or a role that renders none) does not pay at start.
 */
interface PdfLibraries {
  PDFDocument: typeof PDFDocumentClass;
  QRCode: typeof QRCodeModule;
}

let loaded: PdfLibraries | null = null;

export async function pdfLibraries(): Promise<PdfLibraries> {
  if (!loaded) {
    const [pdfkit, qrcode] = await Promise.all([import('pdfkit'), import('qrcode')]);
    loaded = { PDFDocument: pdfkit.default, QRCode: qrcode.default };
  }
  return loaded;
}

function drawQr(doc: PDFKit.PDFDocument, text: string, x: number, y: number, size: number): void {
  // The render function that draws it has loaded the libraries.
  const qr = loaded!.QRCode.create(text, { errorCorrectionLevel: 'M' });
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

/** "25 November 2026, 21:36:07 UTC": how the certificate states a time to a reader. */
export function humanTime(value: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  const month = d.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
  return `${d.getUTCDate()} ${month} ${d.getUTCFullYear()}, ${d.toISOString().slice(11, 19)} UTC`;
}

const HEADER_Y = 20;
const FOOTER_GAP = 34;

/** The running head and foot of every page: capture id, URL, bundle hash and "page N of M" (drawn once all pages exist). */
function runningHeadAndFoot(doc: PDFKit.PDFDocument, f: CertificateFacts): void {
  const range = doc.bufferedPageRange();
  const width = doc.page.width - 2 * MARGIN;
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // text in the margin must not open a new page
    doc.fontSize(7).fillColor(MUTED);
    write(doc, 'regular', `Capture ${f.captureId} · ${f.requestedUrl}`, MARGIN, HEADER_Y, {
      width,
      height: 18,
      ellipsis: true,
    });
    const footY = doc.page.height - FOOTER_GAP;
    doc.fontSize(7).fillColor(MUTED);
    write(doc, 'mono', `Bundle hash ${f.bundle.hash}`, MARGIN, footY, { width: width - 70, lineBreak: false });
    doc
      .font(FONT.regular)
      .fontSize(7)
      .text(`page ${i - range.start + 1} of ${range.count}`, MARGIN, footY, {
        width,
        align: 'right',
        lineBreak: false,
      });
    doc.page.margins.bottom = bottom;
  }
}

/** Page 1's head: what the document is, the page title and the top of the screenshot. */
function front(doc: PDFKit.PDFDocument, f: CertificateFacts): void {
  const width = doc.page.width - 2 * MARGIN;
  doc.font(FONT.bold).fontSize(17).fillColor(INK).text('Certificate of a Web Capture', MARGIN, MARGIN);
  doc.fontSize(10).fillColor(MUTED);
  write(doc, 'regular', `Capture ${f.captureId} — issued ${humanTime(f.issuedAt)} by ${f.issuer}`, MARGIN, doc.y, {
    width,
  });
  doc.moveDown(0.3);
  if (f.title !== null) {
    doc.fontSize(12).fillColor(INK);
    write(doc, 'bold', f.title, MARGIN, doc.y, { width });
  }
  doc.fontSize(9).fillColor(INK);
  write(doc, 'mono', f.requestedUrl, MARGIN, doc.y, { width });
  doc.moveDown(0.4);
  const preview = f.screenshot ? screenshotPreview(f.screenshot) : null;
  if (preview) {
    const fit: [number, number] = [width, 300];
    const scale = Math.min(fit[0] / preview.width, fit[1] / preview.height);
    const w = preview.width * scale;
    const h = preview.height * scale;
    const top = doc.y;
    doc.image(preview.png, MARGIN, top, { width: w, height: h });
    doc.rect(MARGIN, top, w, h).lineWidth(0.5).strokeColor('#999999').stroke();
    doc.y = top + h + 3;
    doc.fontSize(7.5).fillColor(MUTED);
    write(
      doc,
      'regular',
      preview.cropped
        ? 'The top of the full-page screenshot, downscaled; the whole screenshot is the artifact screenshot.png listed in section 3.'
        : 'The full-page screenshot, downscaled; the original is the artifact screenshot.png listed in section 3.',
      MARGIN,
      doc.y,
      { width },
    );
  }
  doc.moveDown(0.3);
  paragraph(
    doc,
    'This certificate describes one capture of a web page and the evidence the service keeps of it. The signed WACZ bundle named below is the ' +
      'evidence; this document states what it contains and how to check it.',
    9,
  );
}

/**
 * What the signed document states of the URL its envelope names (Info entry /CaptureLedgerUrlHash): `sha256:` of its
 * UTF-8 bytes, which a verifier compares with the envelope's `url` (packages/verifier/src/certificate.ts).
 */
export function urlDigest(url: string): string {
  return `sha256:${createHash('sha256').update(url, 'utf8').digest('hex')}`;
}

export async function renderCertificatePdf(
  facts: CertificateFacts,
  sections: readonly CertificateSection[] = SECTIONS,
): Promise<Uint8Array> {
  const fixed = new Date(facts.issuedAt);
  const { PDFDocument } = await pdfLibraries();
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    pdfVersion: '1.7',
    subset: 'PDF/A-3b',
    lang: 'en',
    displayTitle: true,
    bufferPages: true,
    autoFirstPage: true,
    info: {
      Title: `Certificate of capture ${facts.captureId}`,
      Author: facts.issuer,
      Subject: facts.requestedUrl,
      Creator: 'Capture Ledger',
      Producer: 'Capture Ledger (pdfkit)',
      CreationDate: fixed,
      ModDate: fixed,
      ...(facts.transparency ? { [TRANSPARENCY_INFO_KEY]: facts.transparency.digest } : {}),
      ...(facts.pdfSigningKey ? { [PDF_SIGNING_KEY_INFO_KEY]: facts.pdfSigningKey } : {}),
      // The URL the envelope names, so a verifier compares the envelope's with what is signed.
      ...{ [URL_INFO_KEY]: urlDigest(facts.requestedUrl) },
      // The WACZ file certified, machine-readable and signed with the document (verifier --certificate).
      ...{ [BUNDLE_FILE_INFO_KEY]: facts.bundle.fileSha256, [BUNDLE_BYTES_INFO_KEY]: String(facts.bundle.bytes) },
    },
  });
  for (const [name, font] of Object.entries(CERTIFICATE_FONTS)) doc.registerFont(name, font.path, font.family);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  front(doc, facts);
  for (const section of sections) section(doc, facts);
  runningHeadAndFoot(doc, facts);
  doc.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}
