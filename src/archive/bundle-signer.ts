/**
 * Signs a bundle hash and writes datapackage-digest.json (DESIGN decision 7).
 *
 * The Ed25519 signature is over the UTF-8 bytes of the `bundleHash` string ("sha256:<hex>"), as in
 * WACZ signing. Field names follow the WACZ Signing and Verification draft (wacz-auth 0.1.0,
 * "anonymous signature": hash, created, software, version, signature, publicKey) plus:
 *   keyId      first 8 hex of SHA-256(raw public key), selects the published key (spec 2.7)
 *   algorithm  always "Ed25519"
 *   timestamp  { token: base64 DER TimeStampToken, genTime: ISO 8601, tsa: TSA URL }, v0.2.0 only
 * `version` is the bundle version ("0.1.0" | "0.2.0"). Full layout: bundle-format.ts.
 */
import {
  DATAPACKAGE_PATH,
  SOFTWARE,
  type BundleVersion,
  type DigestDocument,
  type SignedData,
  type TimestampInfo,
} from './bundle-format.js';
import { canonicalJsonBytes } from '../domain/canonical-json.js';
import { toBase64, utf8 } from './digests.js';
import type { SigningKey } from './signing-key.js';

export interface SignOptions {
  signedAt: Date;
  version: BundleVersion;
  timestamp?: TimestampInfo;
}

export function signBundleHash(bundleHash: string, key: SigningKey, options: SignOptions): SignedData {
  const signedData: SignedData = {
    hash: bundleHash,
    signature: toBase64(key.sign(utf8(bundleHash))),
    publicKey: key.publicKeyBase64,
    keyId: key.keyId,
    algorithm: 'Ed25519',
    created: options.signedAt.toISOString(),
    software: SOFTWARE,
    version: options.version,
  };
  if (options.timestamp) signedData.timestamp = options.timestamp;
  return signedData;
}

export function digestDocument(bundleHash: string, signedData: SignedData): DigestDocument {
  return { path: DATAPACKAGE_PATH, hash: bundleHash, signedData };
}

/** datapackage-digest.json bytes (RFC 8785, like datapackage.json). */
export function digestDocumentBytes(document: DigestDocument): Uint8Array {
  return canonicalJsonBytes(document);
}
