import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  bytesEqual,
  hex,
  lastIndexOfBytes,
  latin1Bytes,
  latin1Text,
  sha256,
  toArrayBuffer,
  toBase64,
} from './bytes.js';
import { fail, pass, type Check, type TrustAnchors } from './format.js';
import { OID, certificateDer, essCertHashes, pkiEngine } from './pki.js';
import { checkTimestamp } from './timestamp.js';
import { parseTimestampToken } from './timestamp-token.js';

/**
 * The standard PDF signature of a capture certificate (PAdES baseline, ISO 32000-1 12.8 with the ETSI.CAdES.detached
 * subfilter): the last incremental update of the file. It adds a signature dictionary whose /Contents is a CMS
 * SignedData (detached, the signing certificate inside, an RFC 3161 signature-time-stamp as unsigned attribute) over
 * every byte of the file but the /Contents hex itself, an invisible signature field on page 1 and the AcroForm that
 * lists it. Poppler's pdfsig, Acrobat and other readers check it; this module writes the update (the service) and
 * rebuilds it (verifiers), so both agree byte for byte: nothing else can be appended after it unnoticed.
 *
 * The update follows the certificate's own signature attachment (certificate.ts), so the PDF signature covers the
 * whole file, envelope included ("Total document signed"). The signing key is an ECDSA P-256 key the signer role
 * derives from its Ed25519 key; the signed document states the SHA-256 of its SubjectPublicKeyInfo in the Info entry
 * /CaptureLedgerPdfSigningKey, so the published Ed25519 key vouches for it (docs/evidence.md, Certificates).
 */

export const PDF_SIGNATURE_MARKER = '%capture-ledger pdf signature v1\n';
/** Bytes reserved for the CMS (hex doubles it): a token with a long TSA chain still fits. */
export const PDF_SIGNATURE_CONTENTS_BYTES = 16 * 1024;
export const PDF_SIGNING_KEY_INFO_KEY = 'CaptureLedgerPdfSigningKey';
export const PDF_SIGNATURE_REASON = 'Certificate of a web capture, issued by Capture Ledger';
const OID_DATA = '1.2.840.113549.1.7.1';
const OID_SIGNATURE_TIME_STAMP = '1.2.840.113549.1.9.16.2.14';
const EOF_MARK = '%%EOF\n';
const BYTE_RANGE_WIDTH = 48;

const UPDATE_START = latin1Bytes(`${EOF_MARK}${PDF_SIGNATURE_MARKER}`);
/** What a byte range that no longer verifies means: the attachment's fields are among the bytes it covers. */
const ALTERED =
  " (the file was changed after it was signed: the attachment's url, signature.signedAt, timestamp.tsa or other bytes)";

/** `D:YYYYMMDDHHmmSSZ` (ISO 32000-1 7.9.4) of a whole-second UTC time, and back. */
export function pdfDate(date: Date): string {
  return `D:${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}
function parsePdfDate(value: string): Date | null {
  const m = /^D:(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) : null;
}

/** The newest classic `N 0 obj << … >> endobj` of an object, as pdfkit and our updates write them. */
function lastObject(body: string, number: number): string | null {
  const head = `\n${number} 0 obj\n<<\n`;
  const at = body.lastIndexOf(head);
  if (at < 0) return null;
  const end = body.indexOf('\n>>\nendobj\n', at + head.length);
  return end < 0 ? null : body.slice(at + head.length, end);
}

export interface PreparedPdfSignature {
  /** The file with the update, /Contents all zeros. */
  prepared: Uint8Array;
  byteRange: [number, number, number, number];
}

/** Appends the signature update with a zeroed /Contents; sign `signedPdfBytes(prepared, byteRange)`, then embed. */
export function preparePdfSignature(pdf: Uint8Array, signedAt: Date): PreparedPdfSignature {
  const body = latin1Text(pdf);
  if (!body.startsWith('%PDF-') || !body.endsWith(EOF_MARK)) throw new Error('not a PDF that ends with %%EOF');
  const trailerAt = body.lastIndexOf('\ntrailer\n');
  const trailer = trailerAt < 0 ? '' : body.slice(trailerAt);
  const size = Number(/\/Size (\d+)/.exec(trailer)?.[1]);
  const root = Number(/\/Root (\d+) 0 R/.exec(trailer)?.[1]);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(trailer)?.[1]);
  if (!size || !root || !startxref) throw new Error('the PDF trailer lacks /Size, /Root or startxref');
  const catalog = lastObject(body, root);
  const pagesRef = catalog && /\n?\/Pages (\d+) 0 R/.exec(catalog)?.[1];
  const pages = pagesRef ? lastObject(body, Number(pagesRef)) : null;
  const firstPage = pages ? Number(/\/Kids \[(\d+) 0 R/.exec(pages)?.[1]) : 0;
  const page = firstPage ? lastObject(body, firstPage) : null;
  if (!catalog || !page) throw new Error('the PDF catalog or its first page is not readable');
  if (/\/AcroForm|\/Annots/.test(catalog + page)) throw new Error('the PDF already has a form or annotations');

  const sig = size;
  const field = size + 1;
  const form = size + 2;
  const offsets = new Map<number, number>();
  let text = PDF_SIGNATURE_MARKER;
  const object = (number: number, value: string) => {
    offsets.set(number, pdf.length + text.length);
    text += `${number} 0 obj\n<<\n${value}\n>>\nendobj\n`;
  };
  const sigHead = `${sig} 0 obj\n<<\n/Type /Sig\n/Filter /Adobe.PPKLite\n/SubFilter /ETSI.CAdES.detached\n/M (${pdfDate(signedAt)})\n/Reason (${PDF_SIGNATURE_REASON})\n/Contents `;
  offsets.set(sig, pdf.length + text.length);
  text += sigHead;
  const contentsAt = pdf.length + text.length;
  text += `<${'0'.repeat(PDF_SIGNATURE_CONTENTS_BYTES * 2)}>`;
  const contentsEnd = pdf.length + text.length;
  const byteRangeAt = text.length + '\n/ByteRange '.length;
  text += `\n/ByteRange ${' '.repeat(BYTE_RANGE_WIDTH)}\n>>\nendobj\n`;
  object(
    field,
    `/Type /Annot\n/Subtype /Widget\n/FT /Sig\n/T (Capture Ledger signature)\n/V ${sig} 0 R\n/F 132\n/Rect [0 0 0 0]\n/P ${firstPage} 0 R`,
  );
  object(form, `/Fields [${field} 0 R]\n/SigFlags 3`);
  object(root, `${catalog}\n/AcroForm ${form} 0 R`);
  object(firstPage, `${page}\n/Annots [${field} 0 R]`);
  const entries = [...offsets.entries()].sort(([a], [b]) => a - b);
  const xrefAt = pdf.length + text.length;
  text += 'xref\n0 1\n0000000000 65535 f \n';
  for (const [number, offset] of entries) text += `${number} 1\n${String(offset).padStart(10, '0')} 00000 n \n`;
  const info = /\/Info (\d+ 0 R)/.exec(trailer)?.[1];
  const id = /\/ID (\[<[0-9a-fA-F]+> <[0-9a-fA-F]+>\])/.exec(trailer)?.[1];
  text += `trailer\n<<\n/Size ${size + 3}\n/Root ${root} 0 R\n${info ? `/Info ${info}\n` : ''}${id ? `/ID ${id}\n` : ''}/Prev ${startxref}\n>>\nstartxref\n${xrefAt}\n${EOF_MARK}`;

  const total = pdf.length + text.length;
  const byteRange: [number, number, number, number] = [0, contentsAt, contentsEnd, total - contentsEnd];
  const rangeText = `[${byteRange.join(' ')}]`.padEnd(BYTE_RANGE_WIDTH, ' ');
  text = text.slice(0, byteRangeAt) + rangeText + text.slice(byteRangeAt + BYTE_RANGE_WIDTH);
  const prepared = new Uint8Array(total);
  prepared.set(pdf);
  prepared.set(latin1Bytes(text), pdf.length);
  return { prepared, byteRange };
}

/** The bytes a PDF signature covers: the file without the /Contents hex string. */
export function signedPdfBytes(pdf: Uint8Array, byteRange: readonly number[]): Uint8Array {
  const [a = 0, b = 0, c = 0, d = 0] = byteRange;
  const out = new Uint8Array(b + d);
  out.set(pdf.subarray(a, a + b));
  out.set(pdf.subarray(c, c + d), b);
  return out;
}

/** Writes the CMS (DER) into the prepared update's /Contents. */
export function embedPdfSignature(prepared: PreparedPdfSignature, cms: Uint8Array): Uint8Array {
  if (cms.length > PDF_SIGNATURE_CONTENTS_BYTES)
    throw new Error(`the CMS signature is ${cms.length} bytes; ${PDF_SIGNATURE_CONTENTS_BYTES} are reserved`);
  const out = prepared.prepared.slice();
  out.set(latin1Bytes(hex(cms)), prepared.byteRange[1] + 1);
  return out;
}

export interface PdfSignatureParts {
  /** The file before the signature update. */
  unsigned: Uint8Array;
  signedAt: Date;
  byteRange: [number, number, number, number];
  /** The CMS, trailing zero padding removed (DER says where it ends). */
  cms: Uint8Array;
}

/**
 * Splits off a PDF signature update written by preparePdfSignature; null when the file has none. Throws when the
 * update is not exactly what preparePdfSignature and embedPdfSignature write for the bytes before it.
 */
export function splitPdfSignature(pdf: Uint8Array): PdfSignatureParts | null {
  // The marker is found on the bytes, and only the update after it is read as text: an upload without one costs a scan.
  const markerAt = lastIndexOfBytes(pdf, UPDATE_START);
  if (markerAt < 0) return null;
  const unsigned = pdf.subarray(0, markerAt + EOF_MARK.length);
  const update = latin1Text(pdf.subarray(markerAt + EOF_MARK.length));
  const signedAt = parsePdfDate(/\n\/M \((D:\d{14}Z)\)\n/.exec(update)?.[1] ?? '');
  const contents = /\n\/Contents <([0-9a-f]+)>\n/.exec(update)?.[1];
  if (!signedAt || !contents || contents.length !== PDF_SIGNATURE_CONTENTS_BYTES * 2)
    throw new Error('the PDF signature update is malformed');
  const raw = new Uint8Array(PDF_SIGNATURE_CONTENTS_BYTES);
  for (let i = 0; i < raw.length; i++) raw[i] = Number.parseInt(contents.slice(2 * i, 2 * i + 2), 16);
  const cms = raw.subarray(0, derLength(raw));
  const prepared = preparePdfSignature(unsigned, signedAt);
  const rebuilt = embedPdfSignature(prepared, cms);
  // Both begin with the unsigned file itself: only the update after it is compared.
  const updateAt = unsigned.length;
  if (rebuilt.length !== pdf.length || !bytesEqual(rebuilt.subarray(updateAt), pdf.subarray(updateAt)))
    throw new Error('the PDF signature update is not the one the service writes (altered after signing)');
  return { unsigned, signedAt, byteRange: prepared.byteRange, cms };
}

/** The length of the DER element at the start of `bytes` (0 when it is not one). */
function derLength(bytes: Uint8Array): number {
  if (bytes[0] !== 0x30) return 0;
  const first = bytes[1] ?? 0;
  if (first < 0x80) return 2 + first;
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (bytes[2 + i] ?? 0);
  return Math.min(bytes.length, 2 + count + length);
}

/** SHA-256 (hex, `sha256:` prefix) of a certificate's SubjectPublicKeyInfo: how the signed document names the key. */
export async function spkiFingerprint(certificate: pkijs.Certificate): Promise<string> {
  const spki = new Uint8Array(certificate.subjectPublicKeyInfo.toSchema().toBER(false));
  return `sha256:${hex(await sha256(spki))}`;
}

/** The signing-key fingerprint the signed document (its bytes, or their latin1Text) states in its Info entry, or null. */
export function statedPdfSigningKey(unsigned: Uint8Array | string): string | null {
  const body = typeof unsigned === 'string' ? unsigned : latin1Text(unsigned);
  const entry = new RegExp(`\n/${PDF_SIGNING_KEY_INFO_KEY} (?:\\((sha256:[0-9a-f]{64})\\)|(\\d+) 0 R)\n`).exec(body);
  if (!entry) return null;
  if (entry[1]) return entry[1];
  return new RegExp(`\n${entry[2]} 0 obj\n\\((sha256:[0-9a-f]{64})\\)\nendobj\n`).exec(body)?.[1] ?? null;
}

/**
 * The `pdfSignature` check of a certificate with a PDF signature update: the CMS signs the byte range with the
 * certificate it carries (messageDigest, signature, signing-certificate-v2), that certificate's key is the one the
 * signed document states, and its signature-time-stamp is a valid RFC 3161 token over the signature value.
 */
export async function checkPdfSignature(
  parts: PdfSignatureParts,
  pdf: Uint8Array,
  trust: Pick<TrustAnchors, 'tsaCaCertsPem' | 'selfIssuedTsaCaCertsPem'>,
): Promise<Check<'pdfSignature'>> {
  const name = 'pdfSignature';
  let signedData: pkijs.SignedData;
  try {
    const info = pkijs.ContentInfo.fromBER(toArrayBuffer(parts.cms));
    if (info.contentType !== OID.signedData) return fail(name, 'the PDF signature is not a CMS SignedData');
    signedData = new pkijs.SignedData({ schema: info.content });
  } catch (error) {
    return fail(name, `the PDF signature is not readable CMS: ${(error as Error).message}`);
  }
  const signerInfo = signedData.signerInfos[0];
  if (signedData.signerInfos.length !== 1 || !signerInfo) return fail(name, 'the CMS has not exactly one signer');
  if (signedData.encapContentInfo.eContent) return fail(name, 'the CMS is not detached');
  const content = signedPdfBytes(pdf, parts.byteRange);
  let signer: pkijs.Certificate | null | undefined;
  try {
    const outcome = (await signedData.verify(
      { signer: 0, data: toArrayBuffer(content), extendedMode: true },
      pkiEngine,
    )) as pkijs.SignedDataVerifyResult;
    if (!outcome.signatureVerified)
      return fail(name, `the CMS signature over the byte range does not verify${ALTERED}`);
    signer = outcome.signerCertificate;
  } catch (error) {
    const message = (error as { message?: string }).message ?? String(error);
    return fail(name, `the CMS signature over the byte range does not verify: ${message}${ALTERED}`);
  }
  if (!signer) return fail(name, 'the CMS does not carry its signing certificate');
  const essV2 = signerInfo.signedAttrs?.attributes.find((a) => a.type === OID.signingCertificateV2);
  const certHash = await sha256(certificateDer(signer));
  if (!essV2 || !essCertHashes(essV2).some((h) => bytesEqual(h.hash, certHash)))
    return fail(name, 'the signing-certificate-v2 attribute does not name the signing certificate (PAdES baseline)');
  const fingerprint = await spkiFingerprint(signer);
  const stated = statedPdfSigningKey(parts.unsigned);
  if (stated !== fingerprint)
    return fail(name, `the PDF is signed by key ${fingerprint}; the signed document names ${stated ?? 'none'}`);

  const tokenAttribute = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === OID_SIGNATURE_TIME_STAMP);
  const tokenValue = tokenAttribute?.values[0];
  if (!tokenValue) return fail(name, 'the CMS has no RFC 3161 signature-time-stamp (PAdES baseline B-T)');
  const tokenDer = new Uint8Array(tokenValue.toBER(false));
  const signatureValue = signerInfo.signature.valueBlock.valueHexView;
  const stamped = await checkTimestamp(
    name,
    { token: toBase64(tokenDer), genTime: parseTimestampToken(tokenDer).genTime.toISOString() },
    signatureValue,
    await sha256(signatureValue),
    trust,
    'PDF signature value',
  );
  if (stamped.check.status !== 'pass') return stamped.check;
  return pass(
    name,
    `PAdES signature (ETSI.CAdES.detached) over the whole file by key ${fingerprint}, signed ${parts.signedAt.toISOString()}; time-stamp: ${stamped.check.detail ?? ''}`,
  );
}

/** What a CMS for a PDF signature signs, for the signer: contentType id-data, messageDigest, signing-certificate-v2. */
export function pdfSignedAttributes(digest: Uint8Array, certificateHash: Uint8Array): pkijs.Attribute[] {
  const essCertIdV2 = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: toArrayBuffer(certificateHash) })],
  });
  return [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID_DATA })] }),
    new pkijs.Attribute({
      type: OID.messageDigest,
      values: [new asn1js.OctetString({ valueHex: toArrayBuffer(digest) })],
    }),
    new pkijs.Attribute({
      type: OID.signingCertificateV2,
      values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
    }),
  ];
}

export const PDF_SIGNATURE_OIDS = { data: OID_DATA, signatureTimeStamp: OID_SIGNATURE_TIME_STAMP } as const;
