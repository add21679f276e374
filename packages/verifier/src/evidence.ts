import { verifyBundle, type VerificationResult, type VerifyOptions } from './bundle.js';
import { verifyCertificate, type CertificateVerification } from './certificate.js';
import { fetchJson, keysFromDocument, parseJson, tsaCertificatesFromDocument } from './sources.js';
import type { PublishedKey } from './format.js';

export type EvidenceVerification = (VerificationResult & { kind: 'bundle' }) | CertificateVerification;

/** A certificate PDF or a WACZ bundle, told apart by their first bytes. */
export function evidenceKind(bytes: Uint8Array): 'certificate' | 'bundle' {
  return bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46 ? 'certificate' : 'bundle';
}

export async function verifyEvidence(bytes: Uint8Array, options: VerifyOptions): Promise<EvidenceVerification> {
  if (evidenceKind(bytes) === 'certificate') return verifyCertificate(bytes, options);
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
  const configured = await Promise.all(sources.tsaCaFiles.map(async (path) => decode(await io.readFile(path))));
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
  return verifyEvidence(bytes, {
    keys,
    tsaCaCertsPem: [...configured, ...builtIn],
    selfIssuedTsaCaCertsPem: builtIn,
    logKeys,
  });
}
