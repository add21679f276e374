import type { BundleRef } from '../domain/events.js';
import {
  BUNDLE_VERSION_SIGNED,
  BUNDLE_VERSION_TIMESTAMPED,
  type BundleVersion,
  type TimestampInfo,
} from './bundle-format.js';
import { digestDocument, digestDocumentBytes } from './bundle-signer.js';
import { digestBytesOf, toBase64 } from './digests.js';
import type { FinishedCapture } from './finished-capture.js';
import { NotaryRefusal, type Notary } from './notary.js';
import { PROVENANCE_JSON_PATH } from './provenance-record.js';
import { buildManifest, buildWaczMembers, zipWacz } from './wacz-writer.js';

/**
 * The signed WACZ bundle of a capture (spec 1, 2.5, 9; DESIGN decision 7): one capture in, one bundle out.
 *
 * The caller builds the WACZ itself (the bytes never leave it); `notary` — the signer role through
 * remoteNotary, or a localNotary where the key is held — states the key id and whether bundles are
 * time-stamped, time-stamps the hash (RFC 3161) and signs it. With timestamps the bundle is v0.2.0:
 * datapackage.json says bundleVersion "0.2.0". If the TSA still fails after the client's retries, the default
 * ('downgrade') is a v0.1.0 bundle instead (datapackage.json re-issued with bundleVersion "0.1.0", so the
 * version is covered by the signature) with `timestampError` saying why: the capture is never lost for want of
 * a timestamp. 'throw' rethrows the TSA error instead. A notary that does not time-stamp gives v0.1.0.
 */

export interface SignedBundle {
  /** The .wacz file. */
  bytes: Buffer;
  /** What the capture.completed event records of the bundle, exactly. */
  ref: BundleRef;
  /** The exact provenance/provenance.json member, when the capture had a provenance record. */
  provenanceJson?: Uint8Array;
  /** ISO 8601. */
  signedAt: string;
  timestamp?: { genTime: string; tsa: string };
  /** Why the notary time-stamps but the bundle is v0.1.0. */
  timestampError?: string;
}

export interface MakeBundleOptions {
  onTimestampFailure?: 'downgrade' | 'throw';
}

/** The capture's bundle; null when the notary makes no bundles (SIGNING_KEY=none at the signer). */
export async function makeBundle(
  capture: FinishedCapture,
  notary: Notary,
  options: MakeBundleOptions = {},
): Promise<SignedBundle | null> {
  // Signers in one queue group may hold different keys for the moment of a rolling key change: the one that
  // signs can refuse the key another described. Describe and build again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await makeWith(notary, capture, options.onTimestampFailure ?? 'downgrade');
    } catch (err) {
      if (!(err instanceof NotaryRefusal && err.code === 'key-changed') || attempt >= KEY_CHANGE_ATTEMPTS) throw err;
    }
  }
}

const KEY_CHANGE_ATTEMPTS = 3;

async function makeWith(
  notary: Notary,
  capture: FinishedCapture,
  onTimestampFailure: 'downgrade' | 'throw',
): Promise<SignedBundle | null> {
  const described = await notary.describe();
  if (!described) return null;
  const { keyId } = described;
  if (capture.provenance) {
    capture = {
      ...capture,
      provenance: {
        ...capture.provenance,
        signing: { algorithm: 'Ed25519', keyId, signatureIn: 'datapackage-digest.json' },
      },
    };
  }
  const members = await buildWaczMembers(capture);

  let version: BundleVersion = described.timestamps ? BUNDLE_VERSION_TIMESTAMPED : BUNDLE_VERSION_SIGNED;
  let manifest = buildManifest(capture, members, { bundleVersion: version, keyId });
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
      manifest = buildManifest(capture, members, { bundleVersion: version, keyId });
    }
  }

  const signedData = await notary.sign({
    captureId: capture.captureId,
    bundleHash: manifest.bundleHash,
    keyId,
    version,
    ...(timestamp ? { timestamp } : {}),
  });
  const digestBytes = digestDocumentBytes(digestDocument(manifest.bundleHash, signedData));
  const bytes = zipWacz(members, manifest.datapackageBytes, digestBytes, new Date(capture.completedAt));

  return {
    bytes,
    ref: {
      bundleHash: manifest.bundleHash,
      size: bytes.byteLength,
      version,
      keyId,
      ...(timestamp ? { genTime: timestamp.genTime } : {}),
    },
    ...(members.has(PROVENANCE_JSON_PATH) ? { provenanceJson: members.get(PROVENANCE_JSON_PATH)! } : {}),
    signedAt: signedData.created,
    ...(timestamp ? { timestamp: { genTime: timestamp.genTime, tsa: timestamp.tsa } } : {}),
    ...(timestampError !== undefined ? { timestampError } : {}),
  };
}
