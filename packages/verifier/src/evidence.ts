import { verifyBundle, type VerificationResult, type VerifyOptions } from './bundle.js';
import { isDiffEvidence, verifyDiff, type DiffVerification } from './diff.js';
import { splitCertificate, statedBundleFile, verifyCertificate, type CertificateVerification } from './certificate.js';
import { sha256Prefixed } from './bytes.js';
import { fail, pass, skip, type Check, type PublishedKey } from './format.js';
import {
  fetchJson,
  keysFromDocument,
  parseJson,
  tsaCertificatesFromDocument,
  tsaCertificatesFromText,
} from './sources.js';
import { checkBundleInclusion, fetchBundleInclusion } from './transparency.js';
import { checkWitnessQuorum, type WitnessReport, witnessPolicy } from './witnesses.js';
import { type CorroborationVerification, verifyCorroboration } from './corroboration.js';

/**
 * A bundle's result from the command line may carry, beside the spec's checks (never among them, as the API's):
 *   transparency  its leaf's inclusion in the log (--log-url with --log-key)
 *   certificate   whether it is the file a certificate names (--certificate): the certificate verifies, names this
 *                 bundle hash, and its signed document states this file's SHA-256 and size
 */
export type BundleEvidence = VerificationResult & {
  kind: 'bundle';
  transparency?: Check<'transparency'>;
  certificate?: Check<'certificate'> & { verification: CertificateVerification };
  /** --witness-key: whether the log's checkpoint is cosigned by a quorum of them (witnesses.ts). */
  witnesses?: WitnessReport;
};
export type EvidenceVerification =
  | BundleEvidence
  | (CertificateVerification & { witnesses?: WitnessReport })
  | CorroborationVerification
  | DiffVerification;

/** What the command line's exit status says: verified, and no check asked for beside the spec's failed. */
export function evidenceAccepted(result: EvidenceVerification): boolean {
  if (result.kind === 'corroboration' || result.kind === 'diff') return result.verified;
  if (result.witnesses?.status === 'fail') return false;
  if (result.kind === 'certificate') return result.verified;
  return result.verified && result.transparency?.status !== 'fail' && result.certificate?.status !== 'fail';
}

/**
 * The checkpoint a result was checked against: a certificate's embedded one (its envelope's `transparency`), a
 * bundle's fetched one. null when there is none.
 */
export function certificateCheckpoint(pdf: Uint8Array): string | null {
  try {
    const envelope = JSON.parse(new TextDecoder().decode(splitCertificate(pdf).envelopeJson)) as {
      transparency?: { checkpoint?: unknown };
    };
    return typeof envelope.transparency?.checkpoint === 'string' ? envelope.transparency.checkpoint : null;
  } catch {
    return null;
  }
}

/** The witness report of a checkpoint, or a failing one when there is no checkpoint to be witnessed. */
export async function witnessReport(
  checkpoint: string | null,
  witnessKeys: readonly string[],
  quorum: number,
): Promise<WitnessReport> {
  if (checkpoint === null) {
    const keys = await witnessPolicy(witnessKeys, quorum);
    return {
      status: 'fail',
      quorum,
      witnessed: [],
      missing: keys.map((k) => k.name),
      treeSize: null,
      detail: 'there is no log checkpoint to check witnesses on (a bundle needs --log-url; a certificate, a log proof)',
    };
  }
  return checkWitnessQuorum(checkpoint, witnessKeys, quorum);
}

/**
 * A certificate PDF, a diff of two captures (JSON, docs/watch.md), a corroboration record (JSON) or a WACZ
 * bundle, told apart by their first bytes.
 */
export function evidenceKind(bytes: Uint8Array): 'certificate' | 'bundle' | 'corroboration' | 'diff' {
  if (isDiffEvidence(bytes)) return 'diff';
  if (bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46) return 'certificate';
  // A corroboration record (GET /v1/captures/{id}/corroboration) is JSON; a WACZ starts with PK.
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  return first === 0x7b ? 'corroboration' : 'bundle';
}

export async function verifyEvidence(bytes: Uint8Array, options: VerifyOptions): Promise<EvidenceVerification> {
  if (evidenceKind(bytes) === 'certificate') return verifyCertificate(bytes, options);
  if (evidenceKind(bytes) === 'diff') return verifyDiff(bytes, options);
  if (evidenceKind(bytes) === 'corroboration') {
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      // not JSON: verifyCorroboration reports the format
    }
    return verifyCorroboration(parsed, options);
  }
  return { kind: 'bundle', ...(await verifyBundle(bytes, options)) };
}

/**
 * Where the evidence and the trust come from, for a command line: files or the URLs a deployment publishes
 * (/.well-known/signing-keys, /.well-known/tsa-certificates; CAs from the latter are named self-issued).
 */
export interface EvidenceSources {
  file: string;
  keysFile?: string | undefined;
  keysUrl?: string | undefined;
  tsaCaFiles: string[];
  tsaCaUrl?: string | undefined;
  /** Transparency-log verifier keys (a certificate's embedded proof): files holding one, or GET /v1/log/key URLs. */
  logKeyFiles?: string[] | undefined;
  logKeyUrl?: string | undefined;
  /** Log verifier keys given inline. */
  logKeys?: string[] | undefined;
  /** For a bundle: the log to fetch its inclusion proof from (https://host/v1/log); default: beside logKeyUrl. */
  logUrl?: string | undefined;
  /** For a bundle: the certificate it must be the file of. */
  certificateFile?: string | undefined;
  /** Witness vkeys (files holding one, or inline) whose cosignatures on the log's checkpoint count. */
  witnessKeys?: string[] | undefined;
  /** How many of them must have cosigned (default: all). */
  witnessQuorum?: number | undefined;
}

export interface EvidenceIo {
  readFile(path: string): Promise<Uint8Array>;
  fetch?: typeof globalThis.fetch;
}

/** Throws (with the file or URL named) when a source cannot be read; evidence that fails a check is a result. */
export async function verifyEvidenceFile(sources: EvidenceSources, io: EvidenceIo): Promise<EvidenceVerification> {
  const doFetch = io.fetch ?? globalThis.fetch;
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const bytes = await io.readFile(sources.file);
  let keys: PublishedKey[] = [];
  if (sources.keysFile !== undefined)
    keys = keysFromDocument(parseJson(decode(await io.readFile(sources.keysFile)), sources.keysFile), sources.keysFile);
  else if (sources.keysUrl !== undefined)
    keys = keysFromDocument(await fetchJson(sources.keysUrl, doFetch), sources.keysUrl);
  // A --tsa-ca file is PEM or the /.well-known/tsa-certificates document as served.
  const configured = (
    await Promise.all(
      sources.tsaCaFiles.map(async (path) => tsaCertificatesFromText(decode(await io.readFile(path)), path)),
    )
  ).flat();
  const builtIn =
    sources.tsaCaUrl !== undefined
      ? tsaCertificatesFromDocument(await fetchJson(sources.tsaCaUrl, doFetch), sources.tsaCaUrl)
      : [];
  const logKeys = [
    ...(sources.logKeys ?? []),
    ...(await Promise.all((sources.logKeyFiles ?? []).map(async (path) => decode(await io.readFile(path)).trim()))),
  ];
  if (sources.logKeyUrl !== undefined) {
    const response = await doFetch(sources.logKeyUrl);
    if (!response.ok) throw new Error(`${sources.logKeyUrl} answered HTTP ${response.status}`);
    logKeys.push((await response.text()).trim());
  }
  const trust = { keys, tsaCaCertsPem: [...configured, ...builtIn], selfIssuedTsaCaCertsPem: builtIn, logKeys };
  const witnessKeys = sources.witnessKeys ?? [];
  const quorum = sources.witnessQuorum ?? witnessKeys.length;
  const result = await verifyEvidence(bytes, trust);
  if (result.kind === 'corroboration') return result;
  if (result.kind === 'diff') {
    if (sources.certificateFile !== undefined) throw new Error('--certificate goes with a WACZ bundle, not a diff');
    return result;
  }
  if (result.kind === 'certificate') {
    if (sources.certificateFile !== undefined)
      throw new Error('--certificate goes with a WACZ bundle, not a certificate');
    if (witnessKeys.length === 0) return result;
    return { ...result, witnesses: await witnessReport(certificateCheckpoint(bytes), witnessKeys, quorum) };
  }
  const logUrl = sources.logUrl ?? sources.logKeyUrl?.replace(/\/key\/?$/, '');
  if (logKeys.length > 0 && logUrl === undefined)
    throw new Error(
      "a bundle's inclusion proof comes from its log: give --log-url (https://host/v1/log) with --log-key",
    );
  let checkpoint: string | null = null;
  if (logUrl !== undefined) {
    const checked = await bundleTransparency(result, logUrl, logKeys, doFetch);
    result.transparency = checked.check;
    checkpoint = checked.checkpoint;
  }
  if (witnessKeys.length > 0) result.witnesses = await witnessReport(checkpoint, witnessKeys, quorum);
  if (sources.certificateFile !== undefined)
    result.certificate = await bundleMatchesCertificate(
      bytes,
      result,
      await io.readFile(sources.certificateFile),
      trust,
    );
  return result;
}

async function bundleTransparency(
  result: BundleEvidence,
  logUrl: string,
  logKeys: string[],
  doFetch: typeof globalThis.fetch,
): Promise<{ check: Check<'transparency'>; checkpoint: string | null }> {
  if (logKeys.length === 0) throw new Error("--log-url needs --log-key or --log-key-url (the log's verifier key)");
  if (result.checks[1]?.status !== 'pass')
    return { check: skip('transparency', 'bundleHash check failed'), checkpoint: null };
  const captureId = result.capture?.captureId;
  const signing = result.signing;
  if (!captureId || !signing?.keyId)
    return {
      check: fail('transparency', 'datapackage.json does not name the captureId and keyId its log leaf is made of'),
      checkpoint: null,
    };
  const facts = {
    captureId,
    bundleHash: signing.bundleHash,
    keyId: signing.keyId,
    genTime: signing.timestamp?.genTime ?? null,
  };
  const inclusion = await fetchBundleInclusion(logUrl, captureId, doFetch);
  return { check: await checkBundleInclusion(facts, inclusion, logKeys), checkpoint: inclusion?.checkpoint ?? null };
}

async function bundleMatchesCertificate(
  wacz: Uint8Array,
  bundle: BundleEvidence,
  pdf: Uint8Array,
  trust: VerifyOptions,
): Promise<NonNullable<BundleEvidence['certificate']>> {
  const verification = await verifyCertificate(pdf, trust);
  const check = await (async (): Promise<Check<'certificate'>> => {
    if (!verification.verified) return fail('certificate', 'the certificate itself does not verify');
    const named = verification.certificate;
    if (named?.bundleHash !== bundle.signing?.bundleHash)
      return fail(
        'certificate',
        `the certificate names bundle ${named?.bundleHash}, this file is bundle ${bundle.signing?.bundleHash ?? 'unknown'}`,
      );
    const stated = statedBundleFile(splitCertificate(pdf).document);
    if (!stated) return fail('certificate', 'the certificate does not state the SHA-256 and size of its WACZ file');
    const fileHash = await sha256Prefixed(wacz);
    if (fileHash !== stated.sha256 || wacz.length !== stated.bytes)
      return fail(
        'certificate',
        `this file hashes to ${fileHash} (${wacz.length} bytes); the certificate names the file ${stated.sha256} (${stated.bytes} bytes): not the container it certifies`,
      );
    return pass('certificate', `the file the certificate names: ${fileHash}, ${wacz.length} bytes`);
  })();
  return { ...check, verification };
}
