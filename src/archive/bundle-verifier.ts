import { unzipSync } from 'fflate';
import * as pkijs from 'pkijs';
import nacl from 'tweetnacl';
import {
  BUNDLE_VERSION_SIGNED,
  BUNDLE_VERSION_TIMESTAMPED,
  DATAPACKAGE_PATH,
  DIGEST_PATH,
  isBundleVersion,
  type BundleVersion,
} from './bundle-format.js';
import { bytesEqual, digestBytesOf, fromBase64Strict, sha256Prefixed, utf8 } from './digests.js';
import {
  OID,
  certificateDer,
  certificatesFromPem,
  essCertHashes,
  pkiEngine,
  timeStampingUsageProblem,
  toArrayBuffer,
} from './pki.js';
import { keyIdOf } from './signing-key.js';
import { parseTimestampToken, type ParsedTimestampToken } from './timestamp-token.js';
import { checkInclusion, type TransparencyEvidence } from '../transparency/inclusion-check.js';

/**
 * The one bundle verification (spec 2.6), used by GET /v1/verify/{captureId} and by the offline CLI.
 *
 * Checks, in this order:
 *   artifactHashes  every resource in datapackage.json is in the zip with that sha256 and byte size, and
 *                   the zip holds no unlisted file (besides datapackage.json and datapackage-digest.json)
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
 *   transparency    only when VerifyOptions.transparency is given, after the spec's checks: the bundle's leaf
 *                   is in the public log under a signed checkpoint (src/transparency/inclusion-check.ts);
 *                   skipped when the log has no proof yet or bundleHash failed.
 * The version (and so whether `timestamp` runs) comes from datapackage.json's captureLedger.bundleVersion,
 * which the signature covers, so stripping a token from a v0.2.0 bundle fails rather than downgrades.
 */

export type CheckName = 'artifactHashes' | 'bundleHash' | 'signature' | 'timestamp' | 'transparency';
export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface Check {
  name: CheckName;
  status: CheckStatus;
  detail?: string;
}

/** One entry of GET /.well-known/signing-keys (spec 2.7, 4.10). */
export interface PublishedKey {
  keyId: string;
  publicKey: string;
  algorithm?: string;
  archivedAt?: string;
}

export interface VerifyOptions {
  keys: PublishedKey[];
  tsaCaCertsPem: string[];
  /**
   * CAs of this service's built-in local TSA (a subset of tsaCaCertsPem). A timestamp chaining to one of them
   * is valid but self-issued — not the independent third party a public TSA is — and says so (README, Provenance).
   */
  selfIssuedTsaCaCertsPem?: string[];
  /** Refuse zips whose members would expand beyond this; default 1 GiB. */
  maxUncompressedBytes?: number;
  /** The log's proof for this bundle, or why there is none (the check is then 'skip'); absent: no transparency check. */
  transparency?: TransparencyEvidence | { unavailable: string };
}

export interface SigningSummary {
  bundleHash: string;
  signature: string;
  publicKey: string;
  signedAt: string;
  keyId: string;
  /** selfIssued: the token comes from this service's built-in local TSA (see VerifyOptions). */
  timestamp: { genTime: string; tsa: string; selfIssued?: boolean } | null;
}

export interface VerificationResult {
  verified: boolean;
  /** Bundle version, or null when it cannot be told (unreadable zip). */
  version: BundleVersion | null;
  signing: SigningSummary | null;
  checks: Check[];
}

type Json = Record<string, unknown>;

interface Bundle {
  files: Map<string, Uint8Array> | null;
  zipProblem: string | null;
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

  const checks: Check[] = [checkArtifactHashes(bundle), checkBundleHash(bundle)];
  const hashOk = checks[1]?.status === 'pass';
  checks.push(hashOk ? checkSignature(bundle, options.keys) : skip('signature', 'bundleHash check failed'));

  let token: ParsedTimestampToken | null = null;
  let selfIssued = false;
  if (version === BUNDLE_VERSION_TIMESTAMPED) {
    if (hashOk) {
      const outcome = await checkTimestamp(bundle, options.tsaCaCertsPem, options.selfIssuedTsaCaCertsPem ?? []);
      token = outcome.token;
      selfIssued = outcome.selfIssued;
      checks.push(outcome.check);
    } else {
      checks.push(skip('timestamp', 'bundleHash check failed'));
    }
  }

  if (options.transparency) checks.push(hashOk ? checkTransparency(bundle, options.transparency) : skip('transparency', 'bundleHash check failed'));

  return {
    verified: checks.every((check) => check.status !== 'fail'),
    version,
    signing: withSelfIssued(signingSummary(bundle, token), selfIssued),
    checks,
  };
}

/** The bundle's own statements (captureId, hash, key id, genTime) make the leaf the log must hold. */
function checkTransparency(bundle: Bundle, evidence: TransparencyEvidence | { unavailable: string }): Check {
  if ('unavailable' in evidence) return skip('transparency', evidence.unavailable);
  const meta = bundle.datapackage?.['captureLedger'];
  const captureId = isObject(meta) ? meta['captureId'] : undefined;
  const keyId = isObject(meta) ? meta['keyId'] : undefined;
  const hash = bundle.digest?.['hash'];
  const stamp = bundle.signedData?.['timestamp'];
  const genTime = isObject(stamp) && typeof stamp['genTime'] === 'string' ? stamp['genTime'] : null;
  if (typeof captureId !== 'string' || typeof keyId !== 'string' || typeof hash !== 'string') {
    return fail('transparency', 'datapackage.json does not name the captureId and keyId its log leaf is made of');
  }
  const outcome = checkInclusion({ captureId, bundleHash: hash, keyId, genTime }, evidence);
  return outcome.status === 'pass' ? pass('transparency', outcome.detail) : fail('transparency', outcome.detail);
}

// ---------------------------------------------------------------------------------------------
// Reading the bundle

function openBundle(bytes: Uint8Array, maxUncompressedBytes: number): Bundle {
  const bundle: Bundle = {
    files: null,
    zipProblem: null,
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

// ---------------------------------------------------------------------------------------------
// Checks

function checkArtifactHashes(bundle: Bundle): Check {
  const name = 'artifactHashes';
  if (!bundle.files) return fail(name, bundle.zipProblem ?? 'bundle unreadable');
  if (!bundle.datapackage) return fail(name, bundle.datapackageProblem ?? `${DATAPACKAGE_PATH} unreadable`);
  const resources = bundle.datapackage['resources'];
  if (!Array.isArray(resources) || resources.length === 0) {
    return fail(name, `${DATAPACKAGE_PATH} lists no resources`);
  }
  const problems: string[] = [];
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
    if (resource['hash'] !== sha256Prefixed(data)) problems.push(`${path} does not match its sha256`);
    if (resource['bytes'] !== data.byteLength) {
      problems.push(`${path} is ${data.byteLength} bytes, listed as ${String(resource['bytes'])}`);
    }
  }
  for (const path of bundle.files.keys()) {
    if (path !== DATAPACKAGE_PATH && path !== DIGEST_PATH && !listed.has(path)) {
      problems.push(`${path} is not listed in ${DATAPACKAGE_PATH}`);
    }
  }
  if (problems.length > 0) return fail(name, problems.join('; '));
  return pass(name, `${listed.size} files match their sha256 and size`);
}

function checkBundleHash(bundle: Bundle): Check {
  const name = 'bundleHash';
  if (!bundle.files) return fail(name, bundle.zipProblem ?? 'bundle unreadable');
  if (!bundle.datapackageBytes) return fail(name, `${DATAPACKAGE_PATH} is missing`);
  if (!bundle.digest) return fail(name, bundle.digestProblem ?? `${DIGEST_PATH} unreadable`);
  if (bundle.digest['path'] !== DATAPACKAGE_PATH) return fail(name, `${DIGEST_PATH} does not describe ${DATAPACKAGE_PATH}`);
  const computed = sha256Prefixed(bundle.datapackageBytes);
  const recorded = bundle.digest['hash'];
  if (recorded !== computed) {
    return fail(name, `${DATAPACKAGE_PATH} hashes to ${computed} but ${DIGEST_PATH} records ${String(recorded)}`);
  }
  return pass(name, computed);
}

/** Runs only after bundleHash passed, so digest and datapackage bytes are present. */
function checkSignature(bundle: Bundle, keys: PublishedKey[]): Check {
  const name = 'signature';
  const bundleHash = text(bundle.digest?.['hash']);
  const signedData = bundle.signedData;
  if (!signedData) return fail(name, `${DIGEST_PATH} has no signedData`);
  if (signedData['hash'] !== bundleHash) return fail(name, 'signedData.hash is not the bundle hash');
  if (signedData['algorithm'] !== undefined && signedData['algorithm'] !== 'Ed25519') {
    return fail(name, `unsupported signature algorithm ${String(signedData['algorithm'])}`);
  }
  const keyId = signedData['keyId'];
  if (typeof keyId !== 'string' || keyId === '') return fail(name, 'signedData has no keyId');
  const published = keys.find((key) => key.keyId === keyId);
  if (!published) {
    return fail(
      name,
      keys.length === 0 ? 'no published signing keys were given' : `keyId ${keyId} is not one of the published signing keys`,
    );
  }
  if (published.algorithm !== undefined && published.algorithm !== 'Ed25519') {
    return fail(name, `published key ${keyId} is ${published.algorithm}, not Ed25519`);
  }
  const publicKey = fromBase64Strict(published.publicKey);
  if (!publicKey || publicKey.byteLength !== nacl.sign.publicKeyLength) {
    return fail(name, `published key ${keyId} is not base64 of a 32-byte Ed25519 key`);
  }
  if (keyIdOf(publicKey) !== keyId) return fail(name, `published key ${keyId} does not hash to that keyId`);
  if (signedData['publicKey'] !== undefined) {
    const embedded = typeof signedData['publicKey'] === 'string' ? fromBase64Strict(signedData['publicKey']) : null;
    if (!embedded || !bytesEqual(embedded, publicKey)) {
      return fail(name, `the public key in the bundle is not published key ${keyId}`);
    }
  }
  const meta = bundle.datapackage?.['captureLedger'];
  if (isObject(meta) && meta['keyId'] !== undefined && meta['keyId'] !== keyId) {
    return fail(name, `${DATAPACKAGE_PATH} names key ${String(meta['keyId'])} but signedData names ${keyId}`);
  }
  const signature = typeof signedData['signature'] === 'string' ? fromBase64Strict(signedData['signature']) : null;
  if (!signature || signature.byteLength !== nacl.sign.signatureLength) {
    return fail(name, 'signedData.signature is not base64 of a 64-byte Ed25519 signature');
  }
  if (!nacl.sign.detached.verify(utf8(bundleHash), signature, publicKey)) {
    return fail(name, `Ed25519 signature does not verify with published key ${keyId}`);
  }
  return pass(name, `Ed25519 signature by published key ${keyId}`);
}

/** Runs only after bundleHash passed. */
async function checkTimestamp(
  bundle: Bundle,
  tsaCaCertsPem: string[],
  selfIssuedCaCertsPem: string[],
): Promise<{ check: Check; token: ParsedTimestampToken | null; selfIssued: boolean }> {
  const name = 'timestamp';
  const failed = (detail: string, token: ParsedTimestampToken | null = null) => ({ check: fail(name, detail), token, selfIssued: false });

  const stamp = bundle.signedData?.['timestamp'];
  if (!isObject(stamp) || typeof stamp['token'] !== 'string') return failed('v0.2.0 bundle carries no timestamp token');
  const der = fromBase64Strict(stamp['token']);
  if (!der) return failed('timestamp token is not base64');
  let token: ParsedTimestampToken;
  try {
    token = parseTimestampToken(der);
  } catch (error) {
    return failed(`timestamp token unreadable: ${(error as Error).message}`);
  }

  const digest = digestBytesOf(text(bundle.digest?.['hash'])) as Uint8Array;
  if (token.imprintAlgorithm !== OID.sha256) return failed('token message imprint is not SHA-256', token);
  if (!bytesEqual(token.imprint, digest)) return failed("token's message imprint is not the bundle digest", token);

  let signer: pkijs.Certificate | null;
  try {
    const outcome = (await token.signedData.verify(
      { signer: 0, data: toArrayBuffer(bundle.datapackageBytes as Uint8Array), extendedMode: true },
      pkiEngine,
    )) as pkijs.SignedDataVerifyResult;
    if (!outcome.signatureVerified) return failed('CMS signature of the token does not verify', token);
    signer = outcome.signerCertificate ?? null;
  } catch (error) {
    return failed(`CMS signature of the token does not verify: ${(error as Error).message}`, token);
  }
  if (!signer) return failed('token does not include the TSA certificate', token);

  const essProblem = await signingCertificateProblem(token.signedData, signer);
  if (essProblem) return failed(essProblem, token);
  const usageProblem = timeStampingUsageProblem(signer);
  if (usageProblem) return failed(usageProblem, token);

  let trusted: pkijs.Certificate[];
  try {
    trusted = certificatesFromPem(tsaCaCertsPem);
  } catch (error) {
    return failed(`trusted TSA CA certificates unreadable: ${(error as Error).message}`, token);
  }
  if (trusted.length === 0) return failed('no trusted TSA CA certificates were given', token);
  const others = (token.signedData.certificates ?? []).filter(
    (certificate): certificate is pkijs.Certificate => certificate instanceof pkijs.Certificate && certificate !== signer,
  );
  try {
    const chain = await new pkijs.CertificateChainValidationEngine({
      trustedCerts: trusted,
      certs: [...others, signer], // the engine takes the last certificate as the leaf
      checkDate: token.genTime,
    }).verify({}, pkiEngine);
    if (!chain.result) return failed(`TSA certificate does not chain to a trusted TSA CA: ${chain.resultMessage}`, token);
  } catch (error) {
    const message = (error as { resultMessage?: string; message?: string }).resultMessage ?? (error as Error).message;
    return failed(`TSA certificate does not chain to a trusted TSA CA: ${message}`, token);
  }

  const recorded = stamp['genTime'];
  if (typeof recorded === 'string' && Date.parse(recorded) !== token.genTime.getTime()) {
    return failed(`recorded genTime ${recorded} is not the token's ${token.genTime.toISOString()}`, token);
  }
  const selfIssued = await chainsTo(selfIssuedCaCertsPem, [...others, signer], token.genTime);
  const origin = selfIssued ? "; self-issued by this service's built-in local TSA, not a public TSA" : '';
  return {
    check: pass(
      name,
      `RFC 3161 token from ${text(stamp['tsa']) || 'unknown TSA'}, genTime ${token.genTime.toISOString()}, serial ${token.serialNumber}${origin}`,
    ),
    token,
    selfIssued,
  };
}

async function chainsTo(caCertsPem: string[], certs: pkijs.Certificate[], checkDate: Date): Promise<boolean> {
  if (caCertsPem.length === 0) return false;
  try {
    const chain = await new pkijs.CertificateChainValidationEngine({ trustedCerts: certificatesFromPem(caCertsPem), certs, checkDate }).verify({}, pkiEngine);
    return chain.result;
  } catch {
    return false;
  }
}

function withSelfIssued(summary: SigningSummary | null, selfIssued: boolean): SigningSummary | null {
  if (!summary?.timestamp || !selfIssued) return summary;
  return { ...summary, timestamp: { ...summary.timestamp, selfIssued: true } };
}

/** RFC 3161 / RFC 5816: the signer info names the TSA certificate in a signing-certificate(-v2) attribute. */
async function signingCertificateProblem(signedData: pkijs.SignedData, signer: pkijs.Certificate): Promise<string | null> {
  const attributes = signedData.signerInfos[0]?.signedAttrs?.attributes ?? [];
  const attribute =
    attributes.find((candidate) => candidate.type === OID.signingCertificateV2) ??
    attributes.find((candidate) => candidate.type === OID.signingCertificate);
  if (!attribute) return 'token has no signing-certificate attribute';
  try {
    const der = toArrayBuffer(certificateDer(signer));
    for (const { algorithm, hash } of essCertHashes(attribute)) {
      const actual = new Uint8Array(await pkiEngine.digest({ name: algorithm }, der));
      if (bytesEqual(actual, hash)) return null;
    }
    return "token's signing-certificate attribute does not name the TSA certificate";
  } catch (error) {
    return `token's signing-certificate attribute unreadable: ${(error as Error).message}`;
  }
}

// ---------------------------------------------------------------------------------------------

function pass(name: CheckName, detail?: string): Check {
  return detail === undefined ? { name, status: 'pass' } : { name, status: 'pass', detail };
}

function fail(name: CheckName, detail: string): Check {
  return { name, status: 'fail', detail };
}

function skip(name: CheckName, because: string): Check {
  return { name, status: 'skip', detail: `skipped: ${because}` };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
