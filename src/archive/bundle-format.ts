/**
 * The on-disk layout of a Capture Ledger bundle: a WACZ 1.1.1 file (DESIGN decision 7, spec 2.5, 9).
 *
 * Members (all STORED, none deflated):
 *   archive/data.warc.gz      WARC/1.1, one gzip member per record
 *   indexes/index.cdxj        CDXJ, lines sorted bytewise, offsets/lengths into data.warc.gz
 *   pages/pages.jsonl         json-pages-1.0 header line + the main page
 *   attachments/page.pdf      the page printed to PDF, when the capture asked for it (docs/capturing.md, Capture options)
 *   attachments/session.webm  the session recording, when the capture asked for it (recordSession)
 *   provenance/provenance.json, provenance/provenance.html   the provenance record (provenance-record.ts)
 *   datapackage.json          RFC 8785 canonical JSON (exact bytes are what `bundleHash` covers)
 *   datapackage-digest.json   RFC 8785 canonical JSON, signature + optional RFC 3161 token
 *
 * datapackage.json:
 *   {
 *     "profile": "data-package", "wacz_version": "1.1.1",
 *     "title", "created" (= capture completedAt), "software",
 *     "mainPageUrl", "mainPageDate",
 *     "resources": [{ "name", "path", "hash": "sha256:<hex>", "bytes" }]   // sorted by path
 *     "captureLedger": {
 *       "bundleVersion": "0.1.0" | "0.2.0",   // "0.2.0" promises an RFC 3161 token in the digest doc
 *       "captureId", "url", "createdAt", "completedAt",
 *       "keyId"                               // signing key; covered by bundleHash and so by the signature
 *       "captureSettings"                     // optional: how the page was captured (record's captureSettings)
 *     }
 *   }
 *
 * datapackage-digest.json (names follow the WACZ Signing and Verification draft, wacz-auth 0.1.0):
 *   {
 *     "path": "datapackage.json",
 *     "hash": "sha256:<hex>",                 // = bundleHash
 *     "signedData": {
 *       "hash": "sha256:<hex>",               // the exact string that was signed (UTF-8 bytes)
 *       "signature": "<base64 Ed25519 signature, 64 bytes>",
 *       "publicKey": "<base64 raw Ed25519 key, 32 bytes>",   // informational; verifiers use the published key
 *       "keyId": "<8 hex>",                   // first 8 hex of SHA-256(raw public key), spec 2.7
 *       "algorithm": "Ed25519",
 *       "created": "<ISO 8601>",              // signedAt
 *       "software": "capture-ledger <version>",
 *       "version": "0.1.0" | "0.2.0",         // bundle version, repeated for readers of this file alone
 *       "timestamp": {                        // v0.2.0 only
 *         "token": "<base64 DER TimeStampToken (CMS ContentInfo)>",
 *         "genTime": "<ISO 8601 from the token>",
 *         "tsa": "<TSA URL>"
 *       }
 *     }
 *   }
 */

export const WACZ_VERSION = '1.1.1';
export const BUNDLE_VERSION_SIGNED = '0.1.0';
export const BUNDLE_VERSION_TIMESTAMPED = '0.2.0';
export type BundleVersion = typeof BUNDLE_VERSION_SIGNED | typeof BUNDLE_VERSION_TIMESTAMPED;

export const SOFTWARE = 'capture-ledger 0.1.0';

export const WARC_PATH = 'archive/data.warc.gz';
export const WARC_FILENAME = 'data.warc.gz';
export const CDXJ_PATH = 'indexes/index.cdxj';
export const PAGES_PATH = 'pages/pages.jsonl';
export const PDF_PATH = 'attachments/page.pdf';
export const SESSION_VIDEO_PATH = 'attachments/session.webm';
export const DATAPACKAGE_PATH = 'datapackage.json';
export const DIGEST_PATH = 'datapackage-digest.json';

export function isBundleVersion(value: unknown): value is BundleVersion {
  return value === BUNDLE_VERSION_SIGNED || value === BUNDLE_VERSION_TIMESTAMPED;
}

export interface DatapackageResource {
  name: string;
  path: string;
  hash: string;
  bytes: number;
}

export interface CaptureLedgerMeta {
  bundleVersion: BundleVersion;
  captureId: string;
  url: string;
  createdAt: string;
  completedAt: string;
  keyId: string;
  captureSettings?: Record<string, unknown>;
}

export interface Datapackage {
  profile: 'data-package';
  wacz_version: string;
  title: string;
  created: string;
  software: string;
  mainPageUrl: string;
  mainPageDate: string;
  resources: DatapackageResource[];
  captureLedger: CaptureLedgerMeta;
}

export interface TimestampInfo {
  /** base64 DER TimeStampToken */
  token: string;
  genTime: string;
  tsa: string;
}

export interface SignedData {
  hash: string;
  signature: string;
  publicKey: string;
  keyId: string;
  algorithm: 'Ed25519';
  created: string;
  software: string;
  version: BundleVersion;
  timestamp?: TimestampInfo;
}

export interface DigestDocument {
  path: typeof DATAPACKAGE_PATH;
  hash: string;
  signedData: SignedData;
}
