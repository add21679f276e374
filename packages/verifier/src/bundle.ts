import { unzipSync } from 'fflate';
import { digestBytesOf, sha256Prefixed, utf8 } from './bytes.js';
import {
  BUNDLE_VERSION_SIGNED,
  BUNDLE_VERSION_TIMESTAMPED,
  DATAPACKAGE_PATH,
  DIGEST_PATH,
  fail,
  isBundleVersion,
  isObject,
  pass,
  skip,
  text,
  type BundleVersion,
  type Check,
  type Json,
  type TrustAnchors,
  verdict,
} from './format.js';
import { checkPublishedSignature } from './signature.js';
import { checkTimestamp } from './timestamp.js';
import type { ParsedTimestampToken } from './timestamp-token.js';
import { zipContainerProblems } from './zip-container.js';

/**
 * The one bundle verification (spec 2.6), used by GET /v1/verify/{captureId}, the operator CLI, this
 * package's CLI and the verification page in the visitor's browser.
 *
 * Checks, in this order:
 *   artifactHashes  every resource in datapackage.json is in the zip with that sha256 and byte size, and
 *                   the zip holds no unlisted file (besides datapackage.json and datapackage-digest.json), and
 *                   the container itself is unambiguous (zip-container.ts: central directory and local headers
 *                   agree, CRC-32s hold, no bytes outside the archive)
 *   bundleHash      sha256 of the datapackage.json bytes equals the digest document's `hash`
 *   signature       Ed25519 over the UTF-8 `bundleHash` string, with the PUBLISHED key named by keyId
 *                   (a key found only in the bundle is never trusted; an unknown keyId fails)
 *   timestamp       v0.2.0 only: the token's imprint is the bundle digest, its CMS signature and
 *                   signing-certificate attribute are valid, the TSA certificate has a critical
 *                   id-kp-timeStamping-only EKU and chains (at genTime) to one of the trusted TSA CAs
 *
 * Prerequisites ('skip' names the failed one): signature and timestamp both vouch for the bundle hash, so
 * they are skipped when bundleHash fails. A failed artifactHashes skips nothing: the manifest can still
 * be proven authentic, which shows that a file changed after signing. signature and timestamp are
 * independent of each other. Bad input never throws; it fails checks with a detail.
 * The version (and so whether `timestamp` runs) comes from datapackage.json's captureLedger.bundleVersion,
 * which the signature covers, so stripping a token from a v0.2.0 bundle fails rather than downgrades.
 * These are exactly the checks of spec 2.6, which names and counts them: a caller that checks more (a
 * transparency-log inclusion proof, say) reports it beside `checks`, never among them, and leaves `verified`
 * the spec's.
 */

/** The check names of spec 2.6, and no other. */
export type BundleCheckName = 'artifactHashes' | 'bundleHash' | 'signature' | 'timestamp';
export type BundleCheck = Check<BundleCheckName>;

export interface VerifyOptions extends TrustAnchors {
  /** Refuse zips whose members would expand beyond this; default 1 GiB. */
  maxUncompressedBytes?: number;
}

export interface SigningSummary {
  bundleHash: string;
  signature: string;
  publicKey: string;
  signedAt: string;
  keyId: string;
  /** selfIssued: the token comes from a deployment's built-in local TSA (see TrustAnchors). */
  timestamp: { genTime: string; tsa: string; selfIssued?: boolean } | null;
}

/** What a bundle says about its capture (datapackage.json's captureLedger block; covered by the signature). */
export interface BundleCapture {
  captureId: string;
  url: string;
  createdAt: string;
  completedAt: string;
}

export interface VerificationResult {
  verified: boolean;
  /** Bundle version, or null when it cannot be told (unreadable zip). */
  version: BundleVersion | null;
  signing: SigningSummary | null;
  checks: BundleCheck[];
  /** null when datapackage.json is unreadable. */
  capture?: BundleCapture | null;
}

interface Bundle {
  files: Map<string, Uint8Array> | null;
  zipProblem: string | null;
  containerProblems: string[];
  datapackageBytes: Uint8Array | null;
  datapackage: Json | null;
  datapackageProblem: string | null;
  digest: Json | null;
  digestProblem: string | null;
  signedData: Json | null;
}

export async function verifyBundle(bytes: Uint8Array, options: VerifyOptions): Promise<VerificationResult> {
  const bundle = openBundle(bytes, options.maxUncompressedBytes ?? 1024 ** 3);
  const version = bundleVersion(bundle);

  const checks: BundleCheck[] = [await checkArtifactHashes(bundle), await checkBundleHash(bundle)];
  const hashOk = checks[1]?.status === 'pass';
  checks.push(hashOk ? await checkSignature(bundle, options) : skip('signature', 'bundleHash check failed'));

  let token: ParsedTimestampToken | null = null;
  let selfIssued = false;
  if (version === BUNDLE_VERSION_TIMESTAMPED) {
    if (hashOk) {
      const stamp = bundle.signedData?.['timestamp'];
      if (!isObject(stamp) || typeof stamp['token'] !== 'string') {
        checks.push(fail('timestamp', 'v0.2.0 bundle carries no timestamp token'));
      } else {
        const digest = digestBytesOf(text(bundle.digest?.['hash'])) as Uint8Array;
        const outcome = await checkTimestamp(
          'timestamp',
          stamp,
          bundle.datapackageBytes as Uint8Array,
          digest,
          options,
          'bundle digest',
        );
        token = outcome.token;
        selfIssued = outcome.selfIssued;
        checks.push(outcome.check);
      }
    } else {
      checks.push(skip('timestamp', 'bundleHash check failed'));
    }
  }

  return {
    verified: verdict(checks),
    version,
    signing: withSelfIssued(signingSummary(bundle, token), selfIssued),
    checks,
    capture: captureOf(bundle),
  };
}

// ---------------------------------------------------------------------------------------------
// Reading the bundle

function openBundle(bytes: Uint8Array, maxUncompressedBytes: number): Bundle {
  const bundle: Bundle = {
    files: null,
    zipProblem: null,
    containerProblems: [],
    datapackageBytes: null,
    datapackage: null,
    datapackageProblem: null,
    digest: null,
    digestProblem: null,
    signedData: null,
  };
  try {
    bundle.files = readZip(bytes, maxUncompressedBytes);
  } catch (error) {
    bundle.zipProblem = `bundle is not a readable ZIP archive: ${(error as Error).message}`;
    bundle.datapackageProblem = bundle.zipProblem;
    bundle.digestProblem = bundle.zipProblem;
    return bundle;
  }
  bundle.containerProblems = zipContainerProblems(bytes, bundle.files);
  bundle.datapackageBytes = bundle.files.get(DATAPACKAGE_PATH) ?? null;
  const datapackage = parseJsonObject(bundle.datapackageBytes, DATAPACKAGE_PATH);
  bundle.datapackage = datapackage.value;
  bundle.datapackageProblem = datapackage.problem;
  const digest = parseJsonObject(bundle.files.get(DIGEST_PATH) ?? null, DIGEST_PATH);
  bundle.digest = digest.value;
  bundle.digestProblem = digest.problem;
  bundle.signedData = isObject(bundle.digest?.['signedData']) ? (bundle.digest['signedData'] as Json) : null;
  return bundle;
}

function readZip(bytes: Uint8Array, maxUncompressedBytes: number): Map<string, Uint8Array> {
  const seen = new Set<string>();
  let total = 0;
  const entries = unzipSync(bytes, {
    filter(file) {
      if (seen.has(file.name)) throw new Error(`duplicate entry ${file.name}`);
      seen.add(file.name);
      total += file.originalSize;
      if (total > maxUncompressedBytes) throw new Error(`members expand beyond ${maxUncompressedBytes} bytes`);
      return true;
    },
  });
  const files = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(entries)) {
    if (!name.endsWith('/')) files.set(name, data);
  }
  return files;
}

function parseJsonObject(bytes: Uint8Array | null, path: string): { value: Json | null; problem: string | null } {
  if (!bytes) return { value: null, problem: `${path} is missing` };
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    if (!isObject(value)) return { value: null, problem: `${path} is not a JSON object` };
    return { value, problem: null };
  } catch (error) {
    return { value: null, problem: `${path} is not valid JSON: ${(error as Error).message}` };
  }
}

function bundleVersion(bundle: Bundle): BundleVersion | null {
  const meta = bundle.datapackage?.['captureLedger'];
  if (isObject(meta) && isBundleVersion(meta['bundleVersion'])) return meta['bundleVersion'];
  if (isBundleVersion(bundle.signedData?.['version'])) return bundle.signedData['version'] as BundleVersion;
  if (bundle.zipProblem) return null;
  return isObject(bundle.signedData?.['timestamp']) ? BUNDLE_VERSION_TIMESTAMPED : BUNDLE_VERSION_SIGNED;
}

function captureOf(bundle: Bundle): BundleCapture | null {
  const meta = bundle.datapackage?.['captureLedger'];
  if (!isObject(meta)) return null;
  return {
    captureId: text(meta['captureId']),
    url: text(meta['url']),
    createdAt: text(meta['createdAt']),
    completedAt: text(meta['completedAt']),
  };
}

function signingSummary(bundle: Bundle, token: ParsedTimestampToken | null): SigningSummary | null {
  const signedData = bundle.signedData;
  if (!bundle.digest || !signedData) return null;
  const stamp = isObject(signedData['timestamp']) ? signedData['timestamp'] : null;
  return {
    bundleHash: text(bundle.digest['hash']),
    signature: text(signedData['signature']),
    publicKey: text(signedData['publicKey']),
    signedAt: text(signedData['created']),
    keyId: text(signedData['keyId']),
    timestamp: stamp
      ? { genTime: token ? token.genTime.toISOString() : text(stamp['genTime']), tsa: text(stamp['tsa']) }
      : null,
  };
}

function withSelfIssued(summary: SigningSummary | null, selfIssued: boolean): SigningSummary | null {
  if (!summary?.timestamp || !selfIssued) return summary;
  return { ...summary, timestamp: { ...summary.timestamp, selfIssued: true } };
}

// ---------------------------------------------------------------------------------------------
// Checks

async function checkArtifactHashes(bundle: Bundle): Promise<BundleCheck> {
  const name = 'artifactHashes';
  if (!bundle.files) return fail(name, bundle.zipProblem ?? 'bundle unreadable');
  if (!bundle.datapackage) return fail(name, bundle.datapackageProblem ?? `${DATAPACKAGE_PATH} unreadable`);
  const resources = bundle.datapackage['resources'];
  if (!Array.isArray(resources) || resources.length === 0) return fail(name, `${DATAPACKAGE_PATH} lists no resources`);
  const problems = bundle.containerProblems.map((p) => `ZIP container: ${p}`);
  const listed = new Set<string>();
  for (const resource of resources) {
    if (!isObject(resource) || typeof resource['path'] !== 'string') {
      problems.push('a resource has no path');
      continue;
    }
    const path = resource['path'];
    listed.add(path);
    const data = bundle.files.get(path);
    if (!data) {
      problems.push(`${path} is missing`);
      continue;
    }
    if (resource['hash'] !== (await sha256Prefixed(data))) problems.push(`${path} does not match its sha256`);
    if (resource['bytes'] !== data.byteLength)
      problems.push(`${path} is ${data.byteLength} bytes, listed as ${String(resource['bytes'])}`);
  }
  for (const path of bundle.files.keys()) {
    if (path !== DATAPACKAGE_PATH && path !== DIGEST_PATH && !listed.has(path))
      problems.push(`${path} is not listed in ${DATAPACKAGE_PATH}`);
  }
  if (problems.length > 0) return fail(name, problems.join('; '));
  return pass(name, `${listed.size} files match their sha256 and size`);
}

async function checkBundleHash(bundle: Bundle): Promise<BundleCheck> {
  const name = 'bundleHash';
  if (!bundle.files) return fail(name, bundle.zipProblem ?? 'bundle unreadable');
  if (!bundle.datapackageBytes) return fail(name, `${DATAPACKAGE_PATH} is missing`);
  if (!bundle.digest) return fail(name, bundle.digestProblem ?? `${DIGEST_PATH} unreadable`);
  if (bundle.digest['path'] !== DATAPACKAGE_PATH)
    return fail(name, `${DIGEST_PATH} does not describe ${DATAPACKAGE_PATH}`);
  const computed = await sha256Prefixed(bundle.datapackageBytes);
  const recorded = bundle.digest['hash'];
  if (recorded !== computed)
    return fail(name, `${DATAPACKAGE_PATH} hashes to ${computed} but ${DIGEST_PATH} records ${String(recorded)}`);
  return pass(name, computed);
}

/** Runs only after bundleHash passed, so digest and datapackage bytes are present. */
async function checkSignature(bundle: Bundle, trust: TrustAnchors): Promise<BundleCheck> {
  const name = 'signature';
  const bundleHash = text(bundle.digest?.['hash']);
  const signedData = bundle.signedData;
  if (!signedData) return fail(name, `${DIGEST_PATH} has no signedData`);
  if (signedData['hash'] !== bundleHash) return fail(name, 'signedData.hash is not the bundle hash');
  const keyId = signedData['keyId'];
  const meta = bundle.datapackage?.['captureLedger'];
  if (typeof keyId === 'string' && isObject(meta) && meta['keyId'] !== undefined && meta['keyId'] !== keyId) {
    return fail(name, `${DATAPACKAGE_PATH} names key ${String(meta['keyId'])} but signedData names ${keyId}`);
  }
  return checkPublishedSignature(
    name,
    {
      keyId,
      signature: signedData['signature'],
      embeddedPublicKey: signedData['publicKey'],
      algorithm: signedData['algorithm'],
      message: utf8(bundleHash),
    },
    trust.keys,
  );
}
