import {
  BUNDLE_VERSION_SIGNED,
  BUNDLE_VERSION_TIMESTAMPED,
  type BundleVersion,
  type TimestampInfo,
} from './bundle-format.js';
import type { BundleInput } from './bundle-input.js';
import { digestDocument, digestDocumentBytes } from './bundle-signer.js';
import { localNotary, NotaryRefusal, type Notary } from './notary.js';
import { digestBytesOf, toBase64 } from './digests.js';
import { PROVENANCE_JSON_PATH } from './provenance-record.js';
import type { SigningKey } from './signing-key.js';
import type { Timestamper } from './tsa-client.js';
import { buildManifest, buildWaczMembers, zipWacz } from './wacz-writer.js';

/**
 * Builds the signed WACZ bundle of a capture (spec 1, 2.5, 9; DESIGN decision 7).
 *
 * With a timestamper the bundle is v0.2.0: datapackage.json says bundleVersion "0.2.0", its SHA-256 is
 * time-stamped (RFC 3161) and signed. If the TSA still fails after the client's retries, the default
 * ('downgrade') is to issue a v0.1.0 bundle instead (datapackage.json re-issued with bundleVersion
 * "0.1.0", so the version is covered by the signature) and report `timestampError`: the capture is never
 * lost for want of a timestamp. 'throw' rethrows the TSA error instead. Without a timestamper: v0.1.0.
 */
interface TimestampFailureOption {
  onTimestampFailure?: 'downgrade' | 'throw';
}
/** Who signs and time-stamps: the signer role through remoteNotary, or a localNotary. */
export type NotarySigning = { notary: Notary } & TimestampFailureOption;
/** Sign here with this key (tools, tests); the same as `notary: localNotary(signingKey, {timestamper, now})`. */
export type LocalSigning = { signingKey: SigningKey; timestamper?: Timestamper; now?: () => Date } & TimestampFailureOption;
export type BuildBundleOptions = NotarySigning | LocalSigning;

export interface SignedBundle {
  /** The .wacz file. */
  bytes: Buffer;
  /** The exact provenance/provenance.json member, when the input had a provenance record. */
  provenanceJson?: Uint8Array;
  /** 'sha256:<hex>' of datapackage.json (spec 2.5). */
  bundleHash: string;
  size: number;
  version: BundleVersion;
  keyId: string;
  /** ISO 8601. */
  signedAt: string;
  timestamp?: { genTime: string; tsa: string };
  /** Why a timestamper was given but the bundle is v0.1.0. */
  timestampError?: string;
}

/** A bundle for a capture; null when the notary makes no bundles (SIGNING_KEY=none at the signer). */
export async function buildSignedBundle(input: BundleInput, options: LocalSigning): Promise<SignedBundle>;
export async function buildSignedBundle(input: BundleInput, options: BuildBundleOptions): Promise<SignedBundle | null>;
export async function buildSignedBundle(input: BundleInput, options: BuildBundleOptions): Promise<SignedBundle | null> {
  const notary = 'notary' in options ? options.notary : localNotary(options.signingKey, { timestamper: options.timestamper, ...(options.now ? { now: options.now } : {}) });
  // Signers in one queue group may hold different keys for the moment of a rolling key change: the one that
  // signs can refuse the key another described. Describe and build again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await buildWith(notary, input, options.onTimestampFailure);
    } catch (err) {
      if (!(err instanceof NotaryRefusal && err.code === 'key-changed') || attempt >= KEY_CHANGE_ATTEMPTS) throw err;
    }
  }
}

const KEY_CHANGE_ATTEMPTS = 3;

async function buildWith(notary: Notary, input: BundleInput, onTimestampFailure: BuildBundleOptions['onTimestampFailure']): Promise<SignedBundle | null> {
  const described = await notary.describe();
  if (!described) return null;
  const { keyId } = described;
  if (input.provenance) {
    input = { ...input, provenance: { ...input.provenance, signing: { algorithm: 'Ed25519', keyId, signatureIn: 'datapackage-digest.json' } } };
  }
  const members = await buildWaczMembers(input);

  let version: BundleVersion = described.timestamps ? BUNDLE_VERSION_TIMESTAMPED : BUNDLE_VERSION_SIGNED;
  let manifest = buildManifest(input, members, { bundleVersion: version, keyId });
  let timestamp: TimestampInfo | undefined;
  let timestampError: string | undefined;

  if (described.timestamps) {
    try {
      const digest = digestBytesOf(manifest.bundleHash) as Uint8Array;
      const result = await notary.timestamp(digest);
      timestamp = { token: toBase64(result.token), genTime: result.genTime, tsa: result.tsa };
    } catch (error) {
      if (onTimestampFailure === 'throw') throw error;
      timestampError = error instanceof Error ? error.message : String(error);
      version = BUNDLE_VERSION_SIGNED;
      manifest = buildManifest(input, members, { bundleVersion: version, keyId });
    }
  }

  const signedData = await notary.sign({ captureId: input.captureId, bundleHash: manifest.bundleHash, keyId, version, ...(timestamp ? { timestamp } : {}) });
  const digestBytes = digestDocumentBytes(digestDocument(manifest.bundleHash, signedData));
  const bytes = Buffer.from(zipWacz(members, manifest.datapackageBytes, digestBytes, new Date(input.completedAt)));

  return {
    bytes,
    ...(members.has(PROVENANCE_JSON_PATH) ? { provenanceJson: members.get(PROVENANCE_JSON_PATH)! } : {}),
    bundleHash: manifest.bundleHash,
    size: bytes.byteLength,
    version,
    keyId,
    signedAt: signedData.created,
    ...(timestamp ? { timestamp: { genTime: timestamp.genTime, tsa: timestamp.tsa } } : {}),
    ...(timestampError !== undefined ? { timestampError } : {}),
  };
}
