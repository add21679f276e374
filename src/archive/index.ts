/** Public surface of the archive module: WACZ bundles, signing, RFC 3161 timestamps, verification. */
export type { BundleInput } from './bundle-input.js';
export {
  BUNDLE_VERSION_SIGNED,
  BUNDLE_VERSION_TIMESTAMPED,
  DATAPACKAGE_PATH,
  DIGEST_PATH,
  type BundleVersion,
  type Datapackage,
  type DigestDocument,
  type SignedData,
} from './bundle-format.js';
export { canonicalJson, canonicalJsonBytes } from '../domain/canonical-json.js';
export { buildWacz, buildWaczMembers, buildManifest, zipWacz, type WaczManifest, type WaczMembers } from './wacz-writer.js';
export { artifactUri } from './warc-writer.js';
export {
  generateSeedBase64,
  keyIdOf,
  loadOrCreateSigningKey,
  signingKeyFromSeed,
  type SigningKey,
} from './signing-key.js';
export { signBundleHash, digestDocument, digestDocumentBytes } from './bundle-signer.js';
export { createTsaClient, type Timestamper, type TimestampResult, type TsaClientOptions } from './tsa-client.js';
export { startLocalTsa, type LocalTsa, type LocalTsaOptions } from './local-tsa.js';
export { buildSignedBundle, type BuildBundleOptions, type SignedBundle } from './bundle-builder.js';
export {
  verifyBundle,
  type Check,
  type CheckName,
  type CheckStatus,
  type PublishedKey,
  type SigningSummary,
  type VerificationResult,
  type VerifyOptions,
} from './bundle-verifier.js';
export { verifyBundleFile, type VerifySources, type VerifyFileIo } from './verify-file.js';
export { ArchiveError, SigningKeyError, TsaResponseError, TsaUnavailableError, type ArchiveErrorCode } from './errors.js';
