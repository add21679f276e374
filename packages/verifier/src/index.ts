/**
 * @capture-ledger/verifier — checks Capture Ledger evidence without the service: signed, RFC 3161
 * time-stamped WACZ bundles (spec 2.6) and capture certificates (PDF), with the transparency-log proof a
 * certificate carries. WebCrypto and pure-JS dependencies
 * only (fflate, pkijs, asn1js), so it runs in Node ≥ 20 and in a browser. Trust (published keys, TSA roots)
 * is always given by the caller, never taken from the evidence.
 */
export {
  verifyBundle,
  type BundleCapture,
  type BundleCheck,
  type BundleCheckName,
  type SigningSummary,
  type VerificationResult,
  type VerifyOptions,
} from './bundle.js';
export {
  attachCertificateEnvelope,
  certificateMessage,
  splitCertificate,
  statedBundleFile,
  verifyCertificate,
  BUNDLE_BYTES_INFO_KEY,
  BUNDLE_FILE_INFO_KEY,
  CERTIFICATE_ATTACHMENT,
  CERTIFICATE_FORMAT,
  MAX_ENVELOPE_BYTES,
  MAX_ENVELOPE_DEPTH,
  TRANSPARENCY_INFO_KEY,
  URL_INFO_KEY,
  type CertificateCheck,
  type CertificateCheckName,
  type CertificateEnvelope,
  type CertificateSignature,
  type CertificateVerification,
} from './certificate.js';
export {
  verifyCorroboration,
  CORROBORATION_CONTEXT,
  CORROBORATION_RECORD_FORMAT,
  type CorroborationCheckName,
  type CorroborationVerification,
} from './corroboration.js';
export {
  canonicalJson,
  checkBundleInclusion,
  checkCertificateTransparency,
  fetchBundleInclusion,
  noteSignedBy,
  parseCheckpointNote,
  parseNoteKey,
  transparencyDigest,
  verifyInclusionProof,
  type BundleInclusion,
  type BundleLeafFacts,
  type CertificateTransparency,
  type CertifiedCapture,
  type NoteKey,
} from './transparency.js';
export {
  ARCHIVE_FORMAT,
  ARCHIVE_KEY_WRAP,
  ARCHIVE_SIGNATURE_CONTEXT,
  bodyBytes,
  checkArchiveSegment,
  manifestBytes,
  manifestKey,
  manifestMessage,
  segmentBodyKey,
  type ArchiveManifest,
  type ArchivePrevious,
  type ArchiveRecord,
  type ArchiveSourceRange,
  type SegmentCheck,
  type UnsignedManifest,
} from './archive-segment.js';
export {
  checkWitnessQuorum,
  cosignatureKeyId,
  cosignedMessage,
  parseWitnessKey,
  splitCosignature,
  verifiedCosigners,
  witnessKeyString,
  witnessPolicy,
  COSIGNATURE_TYPE,
  type WitnessedBy,
  type WitnessKey,
  type WitnessReport,
} from './witnesses.js';
export {
  DIFF_FORMAT,
  isDiffEvidence,
  verifyDiff,
  type DiffCheckName,
  type DiffEvidence,
  type DiffSideRecord,
  type DiffVerification,
} from './diff.js';
export {
  certificateCheckpoint,
  witnessReport,
  evidenceAccepted,
  evidenceKind,
  verifyEvidence,
  verifyEvidenceFile,
  type BundleEvidence,
  type EvidenceIo,
  type EvidenceSources,
  type EvidenceVerification,
} from './evidence.js';
export {
  BUNDLE_VERSION_SIGNED,
  BUNDLE_VERSION_TIMESTAMPED,
  DATAPACKAGE_PATH,
  DIGEST_PATH,
  isBundleVersion,
  verdict,
  type BundleVersion,
  type Check,
  type CheckStatus,
  type PublishedKey,
  type TrustAnchors,
} from './format.js';
export {
  fetchJson,
  keysFromDocument,
  parseJson,
  tsaCertificatesFromDocument,
  tsaCertificatesFromText,
} from './sources.js';
export { digestBytesOf, fromBase64Strict, sha256, sha256Prefixed, toArrayBuffer, toBase64 } from './bytes.js';
export {
  OID,
  certificateDer,
  certificateFromDer,
  certificatesFromPem,
  essCertHashes,
  pemBlocks,
  pkiEngine,
  timeStampingUsageProblem,
} from './pki.js';
export {
  integerValue,
  parseTimestampToken,
  parseTokenContentInfo,
  type ParsedTimestampToken,
  readTokenTstInfo,
  type TimestampTstInfo,
} from './timestamp-token.js';
export {
  PDF_SIGNATURE_CONTENTS_BYTES,
  PDF_SIGNATURE_MARKER,
  PDF_SIGNATURE_OIDS,
  PDF_SIGNING_KEY_INFO_KEY,
  checkPdfSignature,
  embedPdfSignature,
  pdfDate,
  pdfSignedAttributes,
  preparePdfSignature,
  signedPdfBytes,
  spkiFingerprint,
  splitPdfSignature,
  statedPdfSigningKey,
  type PdfSignatureParts,
  type PreparedPdfSignature,
} from './pdf-signature.js';
