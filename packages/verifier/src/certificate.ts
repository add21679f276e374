import { bytesEqual, digestBytesOf, lastIndexOfBytes, latin1Bytes, latin1Text, sha256Prefixed, utf8 } from './bytes.js';
import { fail, isObject, pass, skip, text, verdict, type Check, type TrustAnchors } from './format.js';
import { checkPdfSignature, splitPdfSignature, statedPdfSigningKey, type PdfSignatureParts } from './pdf-signature.js';
import { checkPublishedSignature } from './signature.js';
import { checkTimestamp } from './timestamp.js';
import { checkCertificateTransparency, transparencyDigest, type CertificateTransparency } from './transparency.js';

/**
 * A capture certificate (GET /v1/captures/{id}/certificate) verifies on its own: the PDF as rendered (the
 * "signed document") is followed by one PDF incremental update that attaches `certificate-signature.json`
 * (an embedded file, listed in the catalog's EmbeddedFiles and AF) holding the envelope below. An incremental
 * update is how PDF signatures work too: the signed bytes stay exactly as they were, every PDF reader still
 * opens the file and lists the attachment, and nothing needs to travel beside the PDF.
 *
 * The envelope (JSON):
 *   format           "capture-ledger-certificate/1"
 *   captureId, bundleHash, url       what the certificate is about (the PDF says the same in words)
 *   certificateHash  "sha256:<hex>" of the signed document (every byte before the update)
 *   bytes            its length
 *   signature        { algorithm: "Ed25519", keyId, publicKey, signature (base64), signedAt } by the signer
 *                    role, over certificateMessage(captureId, bundleHash, certificateHash)
 *   timestamp        { token (base64 DER), genTime, tsa } RFC 3161 over the certificate digest, or null
 *   transparency     (when the deployment runs a transparency log) the bundle's leaf, the first published
 *                    checkpoint holding it and the inclusion proof (transparency.ts); the signed document states
 *                    its digest in the Info entry /CaptureLedgerTransparency, so it is as signed as the text
 *
 * Verification splits the file at the update, rebuilds the update from the envelope and the signed document
 * and requires the file to end with exactly that (so nothing else was added), then checks the hash, the
 * signature with a published key and the timestamp. Checks, in order: envelope, certificateHash, signature,
 * timestamp; later checks are skipped when envelope or certificateHash fail. When the certificate carries a
 * transparency-log proof (or its document says it does), `transparency` follows: the proof checked against the
 * log keys the caller trusts. When the signed document states the SHA-256 of the URL (Info /CaptureLedgerUrlHash),
 * `url` compares the envelope's with it. A certificate issued with a standard PDF signature (pdf-signature.ts: the
 * last update, after the attachment) is checked without it first, then `pdfSignature` checks the PDF signature
 * itself; a document that names a PDF-signing key but has no PDF signature fails it (removed after signing), and a
 * certificate issued without one has it skipped. The answer shows an envelope field only where a passing check
 * covers it (shownFacts): `url`, `signature.signedAt` and `timestamp.tsa` lie outside the Ed25519-signed message.
 */

export const CERTIFICATE_FORMAT = 'capture-ledger-certificate/1';

/**
 * Bounds on the attachment, checked before it is parsed: an uploaded PDF is anyone's bytes, and JSON.parse of a
 * few MiB of nested brackets costs a second and hundreds of MiB. A real envelope is about 6 KB; the largest
 * plausible one (two RFC 3161 tokens with certificates, a 64-hash inclusion proof, a 2048-character URL) stays
 * under 24 KB, so 64 KiB leaves room. Its objects nest 3 deep (envelope → transparency → checkpointTimestamp).
 */
export const MAX_ENVELOPE_BYTES = 64 * 1024;
export const MAX_ENVELOPE_DEPTH = 8;
/** The longest URL the service captures (src/net/url-policy.ts MAX_URL_LENGTH). */
const MAX_URL_LENGTH = 2048;
export const CERTIFICATE_ATTACHMENT = 'certificate-signature.json';
const MARKER = '%capture-ledger certificate signature v1\n';
const EOF_MARK = '%%EOF\n';

export interface CertificateSignature {
  algorithm: 'Ed25519';
  keyId: string;
  publicKey: string;
  signature: string;
  signedAt: string;
}

export interface CertificateEnvelope {
  format: typeof CERTIFICATE_FORMAT;
  captureId: string;
  bundleHash: string;
  url: string;
  certificateHash: string;
  bytes: number;
  signature: CertificateSignature;
  timestamp: { token: string; genTime: string; tsa: string } | null;
  transparency?: CertificateTransparency;
}

/** The Info entry of the signed document that states the digest of the envelope's transparency block. */
export const TRANSPARENCY_INFO_KEY = 'CaptureLedgerTransparency';
/** The Info entries of the signed document that state the SHA-256 and size of the WACZ file it certifies. */
export const BUNDLE_FILE_INFO_KEY = 'CaptureLedgerBundleFile';
export const BUNDLE_BYTES_INFO_KEY = 'CaptureLedgerBundleBytes';
/** The Info entry of the signed document that states `sha256:` of the UTF-8 bytes of the envelope's `url`. */
export const URL_INFO_KEY = 'CaptureLedgerUrlHash';

/** The exact bytes the signer role signs for a certificate: a context string keeps them apart from bundle signatures. */
export function certificateMessage(captureId: string, bundleHash: string, certificateHash: string): Uint8Array {
  return utf8(`capture-ledger certificate\n${captureId}\n${bundleHash}\n${certificateHash}`);
}

export type CertificateCheckName =
  | 'envelope'
  | 'certificateHash'
  | 'signature'
  | 'timestamp'
  | 'url'
  | 'transparency'
  | 'pdfSignature';
export type CertificateCheck = Check<CertificateCheckName>;

export interface CertificateVerification {
  verified: boolean;
  kind: 'certificate';
  /**
   * From the envelope, each field only where a passing check covers it (shownFacts): null when the signature does
   * not verify; `url` null when neither the signed document's statement nor the PDF signature covers it.
   */
  certificate: { captureId: string; bundleHash: string; url: string | null; certificateHash: string } | null;
  signing: {
    keyId: string;
    publicKey: string;
    signature: string;
    /** null unless the PDF signature holds (the only check that covers it). */
    signedAt: string | null;
    /** null unless the timestamp check passed; `tsa` null unless the PDF signature holds. */
    timestamp: { genTime: string; tsa: string | null; selfIssued?: boolean } | null;
  } | null;
  checks: CertificateCheck[];
}

const ascii = latin1Bytes;
const UPDATE_START = latin1Bytes(`${EOF_MARK}${MARKER}`);
/** Longer than the attachment object's head (the regex in splitCertificate) can be. */
const ATTACHMENT_HEAD_BYTES = 160;
const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

interface TrailerFacts {
  size: number;
  root: number;
  catalogLines: string[];
  info: string | null;
  id: string | null;
  startxref: number;
}

/** What the update needs from the signed document's (single, classic) trailer and catalog. */
function trailerFacts(document: Uint8Array): TrailerFacts {
  const body = latin1Text(document);
  if (!body.startsWith('%PDF-') || !body.endsWith(EOF_MARK)) throw new Error('not a PDF that ends with %%EOF');
  const trailerAt = body.lastIndexOf('\ntrailer\n');
  if (trailerAt < 0) throw new Error('the PDF has no classic trailer');
  const trailer = body.slice(trailerAt);
  const size = /\/Size (\d+)/.exec(trailer)?.[1];
  const root = /\/Root (\d+) 0 R/.exec(trailer)?.[1];
  const startxref = /startxref\n(\d+)\n%%EOF\n$/.exec(trailer)?.[1];
  if (!size || !root || !startxref) throw new Error('the PDF trailer lacks /Size, /Root or startxref');
  // indexOf, not a lazy regex: `[\s\S]*?` tried from each of many openings is quadratic in a hostile file.
  const catalogHead = `\n${root} 0 obj\n<<\n`;
  const catalogAt = body.indexOf(catalogHead);
  const catalogEnd = catalogAt < 0 ? -1 : body.indexOf('\n>>\nendobj\n', catalogAt + catalogHead.length);
  if (catalogEnd < 0) throw new Error('the PDF catalog is not readable');
  const catalog = body.slice(catalogAt + catalogHead.length, catalogEnd);
  return {
    size: Number(size),
    root: Number(root),
    catalogLines: catalog.split('\n').filter((line) => !line.startsWith('/Names') && !line.startsWith('/AF')),
    info: /\/Info (\d+ 0 R)/.exec(trailer)?.[1] ?? null,
    id: /\/ID (\[<[0-9a-fA-F]+> <[0-9a-fA-F]+>\])/.exec(trailer)?.[1] ?? null,
    startxref: Number(startxref),
  };
}

/**
 * The signed document followed by the incremental update that attaches `envelopeJson`. The service writes
 * certificates with it and verifiers rebuild the update with it, so both agree byte for byte.
 */
export function attachCertificateEnvelope(document: Uint8Array, envelopeJson: Uint8Array): Uint8Array {
  const facts = trailerFacts(document);
  const file = facts.size;
  const spec = facts.size + 1;
  const names = facts.size + 2;
  const offsets = new Map<number, number>();
  const parts: Uint8Array[] = [ascii(MARKER)];
  let at = document.length + MARKER.length;
  const add = (bytes: Uint8Array) => {
    parts.push(bytes);
    at += bytes.length;
  };
  const object = (number: number, textValue: string) => {
    offsets.set(number, at);
    add(ascii(`${number} 0 obj\n${textValue}\nendobj\n`));
  };
  offsets.set(file, at);
  add(
    ascii(
      `${file} 0 obj\n<<\n/Type /EmbeddedFile\n/Subtype /application#2Fjson\n/Length ${envelopeJson.length}\n>>\nstream\n`,
    ),
  );
  add(envelopeJson);
  add(ascii('\nendstream\nendobj\n'));
  object(
    spec,
    `<<\n/Type /Filespec\n/F (${CERTIFICATE_ATTACHMENT})\n/UF (${CERTIFICATE_ATTACHMENT})\n/AFRelationship /Data\n/Desc (Ed25519 signature and RFC 3161 timestamp of this certificate)\n/EF << /F ${file} 0 R >>\n>>`,
  );
  object(names, `<<\n/EmbeddedFiles << /Names [(${CERTIFICATE_ATTACHMENT}) ${spec} 0 R] >>\n>>`);
  object(facts.root, `<<\n${[...facts.catalogLines, `/Names ${names} 0 R`, `/AF [${spec} 0 R]`].join('\n')}\n>>`);
  const entry = (n: number) => `${String(offsets.get(n)).padStart(10, '0')} 00000 n \n`;
  const xrefAt = at;
  const trailer = [
    '<<',
    `/Size ${facts.size + 3}`,
    `/Root ${facts.root} 0 R`,
    ...(facts.info ? [`/Info ${facts.info}`] : []),
    ...(facts.id ? [`/ID ${facts.id}`] : []),
    `/Prev ${facts.startxref}`,
    '>>',
  ].join('\n');
  add(
    ascii(
      `xref\n0 1\n0000000000 65535 f \n${facts.root} 1\n${entry(facts.root)}${file} 3\n${entry(file)}${entry(spec)}${entry(names)}trailer\n${trailer}\nstartxref\n${xrefAt}\n${EOF_MARK}`,
    ),
  );
  return concat([document, ...parts]);
}

/** Splits a certificate into the signed document and the envelope's JSON bytes; throws saying what is wrong. */
export function splitCertificate(pdf: Uint8Array): { document: Uint8Array; envelopeJson: Uint8Array } {
  // The marker is found on the bytes, and only the attachment's head is read as text.
  const markerAt = lastIndexOfBytes(pdf, UPDATE_START);
  if (markerAt < 0) throw new Error(`the PDF carries no ${CERTIFICATE_ATTACHMENT} attachment`);
  const documentEnd = markerAt + EOF_MARK.length;
  const headAt = documentEnd + MARKER.length;
  const head =
    /^\d+ 0 obj\n<<\n\/Type \/EmbeddedFile\n\/Subtype \/application#2Fjson\n\/Length (\d+)\n>>\nstream\n/.exec(
      latin1Text(pdf.subarray(headAt, headAt + ATTACHMENT_HEAD_BYTES)),
    );
  if (!head?.[1]) throw new Error(`the ${CERTIFICATE_ATTACHMENT} attachment is malformed`);
  const length = Number(head[1]);
  if (length > MAX_ENVELOPE_BYTES)
    throw new Error(
      `the ${CERTIFICATE_ATTACHMENT} attachment is ${length} bytes; a certificate's is at most ${MAX_ENVELOPE_BYTES}`,
    );
  const jsonStart = documentEnd + MARKER.length + head[0].length;
  const envelopeJson = pdf.subarray(jsonStart, jsonStart + length);
  return { document: pdf.subarray(0, documentEnd), envelopeJson };
}

/** Whether JSON text nests arrays and objects deeper than `max` (a scan of the bytes, before anything is parsed). */
function nestsDeeperThan(json: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * What the envelope's fields must look like: exactly what the service writes, so nothing an uploader chose —
 * a megabyte "captureId" — is echoed back in the result (the id is the REST id, `cap_` and 32 hex).
 */
const ENVELOPE_FIELDS: ReadonlyArray<[path: string, test: (v: unknown) => boolean, shape: string]> = [
  ['captureId', (v) => typeof v === 'string' && /^cap_[0-9a-f]{32}$/.test(v), 'cap_ and 32 hex digits'],
  ['bundleHash', (v) => typeof v === 'string' && /^sha256:[0-9a-f]{64}$/.test(v), 'sha256: and 64 hex digits'],
  ['certificateHash', (v) => typeof v === 'string' && /^sha256:[0-9a-f]{64}$/.test(v), 'sha256: and 64 hex digits'],
  ['url', (v) => typeof v === 'string' && v.length <= MAX_URL_LENGTH, `a URL of at most ${MAX_URL_LENGTH} characters`],
  ['bytes', (v) => Number.isSafeInteger(v) && (v as number) >= 0, 'a byte count'],
  ['signature.algorithm', (v) => typeof v === 'string' && v.length <= 32, 'a short string'],
  ['signature.keyId', (v) => typeof v === 'string' && v.length <= 64, 'a key id'],
  ['signature.publicKey', (v) => typeof v === 'string' && v.length <= 128, 'base64 of a key'],
  ['signature.signature', (v) => typeof v === 'string' && v.length <= 256, 'base64 of a signature'],
  ['signature.signedAt', (v) => typeof v === 'string' && v.length <= 64, 'a date-time'],
];
const TIMESTAMP_FIELDS: ReadonlyArray<[path: string, test: (v: unknown) => boolean, shape: string]> = [
  ['timestamp.token', (v) => typeof v === 'string', 'base64 of a token'],
  ['timestamp.genTime', (v) => typeof v === 'string' && v.length <= 64, 'a date-time'],
  [
    'timestamp.tsa',
    (v) => typeof v === 'string' && v.length <= MAX_URL_LENGTH,
    `a URL of at most ${MAX_URL_LENGTH} characters`,
  ],
];

const at = (value: Record<string, unknown>, path: string): unknown =>
  path.split('.').reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), value);

function parseEnvelope(json: Uint8Array): CertificateEnvelope {
  if (json.length > MAX_ENVELOPE_BYTES)
    throw new Error(`the envelope is ${json.length} bytes; a certificate's is at most ${MAX_ENVELOPE_BYTES}`);
  if (nestsDeeperThan(json, MAX_ENVELOPE_DEPTH))
    throw new Error(`the envelope nests deeper than ${MAX_ENVELOPE_DEPTH} levels; a certificate's does not`);
  const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  if (!isObject(value) || value['format'] !== CERTIFICATE_FORMAT)
    throw new Error(`the envelope is not ${CERTIFICATE_FORMAT}`);
  if (!isObject(value['signature'])) throw new Error('the envelope has no signature');
  if (value['timestamp'] !== null && !isObject(value['timestamp']))
    throw new Error("the envelope's timestamp is neither null nor an object");
  const fields = value['timestamp'] === null ? ENVELOPE_FIELDS : [...ENVELOPE_FIELDS, ...TIMESTAMP_FIELDS];
  for (const [path, test, shape] of fields) {
    if (!test(at(value, path))) throw new Error(`the envelope's ${path} is not ${shape}`);
  }
  return value as unknown as CertificateEnvelope;
}

export async function verifyCertificate(file: Uint8Array, trust: TrustAnchors): Promise<CertificateVerification> {
  const checks: CertificateCheck[] = [];
  let envelope: CertificateEnvelope | null = null;
  let document: Uint8Array | null = null;
  let pdfParts: PdfSignatureParts | null = null;
  let pdf = file;
  try {
    pdfParts = splitPdfSignature(file);
    if (pdfParts) pdf = pdfParts.unsigned;
    const split = splitCertificate(pdf);
    envelope = parseEnvelope(split.envelopeJson);
    // Both begin with the signed document itself: only what follows it is compared.
    const rebuilt = attachCertificateEnvelope(split.document, split.envelopeJson);
    const updateAt = split.document.length;
    if (rebuilt.length !== pdf.length || !bytesEqual(rebuilt.subarray(updateAt), pdf.subarray(updateAt))) {
      throw new Error(
        'the PDF holds more than the certificate and its signature attachment (altered or appended to after signing)',
      );
    }
    document = split.document;
    checks.push(pass('envelope', `${CERTIFICATE_ATTACHMENT} attached by the only update after the signed document`));
  } catch (error) {
    checks.push(fail('envelope', (error as Error).message));
  }

  if (!document || !envelope) {
    checks.push(
      skip('certificateHash', 'envelope check failed'),
      skip('signature', 'envelope check failed'),
      skip('timestamp', 'envelope check failed'),
    );
    return { verified: false, kind: 'certificate', certificate: null, signing: null, checks };
  }

  // Read as text once: every statement of the signed document (Info entries) is found in it.
  const body = latin1Text(document);
  const computed = await sha256Prefixed(document);
  const hashOk = computed === envelope.certificateHash && envelope.bytes === document.length;
  checks.push(
    hashOk
      ? pass('certificateHash', computed)
      : fail(
          'certificateHash',
          `the signed document hashes to ${computed} (${document.length} bytes) but the envelope records ${envelope.certificateHash} (${String(envelope.bytes)} bytes)`,
        ),
  );
  let selfIssued = false;
  if (!hashOk) {
    checks.push(skip('signature', 'certificateHash check failed'), skip('timestamp', 'certificateHash check failed'));
  } else {
    const sig = envelope.signature;
    checks.push(
      await checkPublishedSignature(
        'signature',
        {
          keyId: sig.keyId,
          signature: sig.signature,
          embeddedPublicKey: sig.publicKey,
          algorithm: sig.algorithm,
          message: certificateMessage(envelope.captureId, envelope.bundleHash, envelope.certificateHash),
        },
        trust.keys,
      ),
    );
    if (envelope.timestamp === null) {
      checks.push(skip('timestamp', 'the certificate was signed without a timestamp (TSA_URL=none)'));
    } else {
      const outcome = await checkTimestamp(
        'timestamp',
        envelope.timestamp,
        document,
        digestBytesOf(computed) as Uint8Array,
        trust,
        'certificate digest',
      );
      selfIssued = outcome.selfIssued;
      checks.push(outcome.check);
    }
  }
  const url = await urlCheck(body, envelope, hashOk);
  if (url) checks.push(url);
  const logged = await transparencyCheck(body, envelope, hashOk, trust.logKeys ?? []);
  if (logged) checks.push(logged);
  if (pdfParts) checks.push(await checkPdfSignature(pdfParts, file, trust));
  else if (statedPdfSigningKey(body) !== null)
    checks.push(fail('pdfSignature', 'the signed document names a PDF-signing key but the PDF signature is missing'));
  else
    checks.push(skip('pdfSignature', `the certificate has no PDF signature: ${ONLY_PDF_SIGNED.join(', ')} not shown`));
  return { verified: verdict(checks), kind: 'certificate', ...shownFacts(envelope, checks, selfIssued), checks };
}

/** What only a certificate's PDF signature covers, so a verification shows it only when that signature holds. */
const ONLY_PDF_SIGNED = ['signature.signedAt', 'timestamp.tsa', 'url (where the signed document does not state it)'];

/**
 * The envelope's fields a verification shows: each only when a check that passed covers it, so nothing edited in
 * the attachment after signing is repeated as if it were signed. Everything rests on `signature` (the Ed25519
 * signature by a published key over captureId, bundleHash and certificateHash, the document's hash, so over every
 * statement of the document too): without it nothing is shown. `url` also needs the `url` check (the document
 * states its SHA-256) or, for a document that does not state it, the PDF signature; `signature.signedAt` and
 * `timestamp.tsa` are the signer's and the TSA client's words beside the signed message and need the PDF
 * signature, which covers the whole file, attachment included; the timestamp's genTime needs `timestamp`.
 */
function shownFacts(
  envelope: CertificateEnvelope,
  checks: readonly CertificateCheck[],
  selfIssued: boolean,
): Pick<CertificateVerification, 'certificate' | 'signing'> {
  const status = (name: CertificateCheckName) => checks.find((c) => c.name === name)?.status;
  if (status('signature') !== 'pass') return { certificate: null, signing: null };
  const wholeFile = status('pdfSignature') === 'pass';
  const urlCovered = status('url') === undefined ? wholeFile : status('url') === 'pass';
  const sig = envelope.signature;
  const stamp = envelope.timestamp;
  return {
    certificate: {
      captureId: text(envelope.captureId),
      bundleHash: text(envelope.bundleHash),
      url: urlCovered ? text(envelope.url) : null,
      certificateHash: text(envelope.certificateHash),
    },
    signing: {
      keyId: text(sig.keyId),
      publicKey: text(sig.publicKey),
      signature: text(sig.signature),
      signedAt: wholeFile ? text(sig.signedAt) : null,
      timestamp:
        isObject(stamp) && status('timestamp') === 'pass'
          ? {
              genTime: text(stamp.genTime),
              tsa: wholeFile ? text(stamp.tsa) : null,
              ...(selfIssued ? { selfIssued: true } : {}),
            }
          : null,
    },
  };
}

/**
 * The `url` check, or null when the signed document does not state the URL (older certificates): the document
 * states the SHA-256 of the envelope's `url` (UTF-8) in its Info entry /CaptureLedgerUrlHash, so the URL is as
 * signed as the document.
 */
async function urlCheck(
  body: string,
  envelope: CertificateEnvelope,
  hashOk: boolean,
): Promise<CertificateCheck | null> {
  const stated = statedInfo(body, URL_INFO_KEY, 'sha256:[0-9a-f]{64}');
  if (stated === null) return null;
  if (!hashOk) return skip('url', 'certificateHash check failed');
  const digest = await sha256Prefixed(utf8(envelope.url));
  return digest === stated
    ? pass('url', `the signed document states this URL's SHA-256, ${stated}`)
    : fail(
        'url',
        `the envelope's url hashes to ${digest}, the signed document states ${stated} (the url was changed after signing)`,
      );
}

/** A string the signed document's Info entry `key` states (a direct string or, as pdfkit writes it, an indirect one). */
function statedInfo(body: string, key: string, value: string): string | null {
  const entry = new RegExp(`\n/${key} (?:\\((${value})\\)|(\\d+) 0 R)\n`).exec(body);
  if (!entry) return null;
  if (entry[1]) return entry[1];
  return new RegExp(`\n${entry[2]} 0 obj\n\\((${value})\\)\nendobj\n`).exec(body)?.[1] ?? null;
}

/** The digest the signed document's Info entry /CaptureLedgerTransparency states. */
const statedTransparencyDigest = (body: string) => statedInfo(body, TRANSPARENCY_INFO_KEY, 'sha256:[0-9a-f]{64}');

/**
 * The WACZ file a certificate names, as its signed document states it (Info entries /CaptureLedgerBundleFile,
 * `sha256:<hex>` of the whole file, and /CaptureLedgerBundleBytes); null when the document does not (older certificates).
 */
export function statedBundleFile(document: Uint8Array): { sha256: string; bytes: number } | null {
  const body = latin1Text(document);
  const sha256 = statedInfo(body, BUNDLE_FILE_INFO_KEY, 'sha256:[0-9a-f]{64}');
  const bytes = statedInfo(body, BUNDLE_BYTES_INFO_KEY, '\\d{1,15}');
  return sha256 && bytes ? { sha256, bytes: Number(bytes) } : null;
}

/**
 * The `transparency` check, or null when neither the signed document nor the envelope speaks of a log (a
 * deployment without one issues certificates without the proof, and no check is added for them).
 */
async function transparencyCheck(
  body: string,
  envelope: CertificateEnvelope,
  hashOk: boolean,
  logKeys: readonly string[],
): Promise<CertificateCheck | null> {
  const stated = statedTransparencyDigest(body);
  const block = envelope.transparency;
  if (stated === null && block === undefined) return null;
  if (!hashOk) return skip('transparency', 'certificateHash check failed');
  if (stated === null)
    return fail(
      'transparency',
      'the envelope carries a transparency-log proof the signed document does not state (added after signing)',
    );
  if (block === undefined)
    return fail(
      'transparency',
      `the signed document states a transparency-log proof (${stated}) the envelope does not carry (removed after signing)`,
    );
  const digest = isObject(block) ? await transparencyDigest(block) : 'none';
  if (digest !== stated)
    return fail(
      'transparency',
      `the envelope's transparency-log proof hashes to ${digest}, the signed document states ${stated} (altered after signing)`,
    );
  return checkCertificateTransparency(
    block,
    { captureId: envelope.captureId, bundleHash: envelope.bundleHash },
    logKeys,
  );
}
