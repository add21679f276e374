import * as pkijs from 'pkijs';
import { bytesEqual, fromBase64Strict, toArrayBuffer } from './bytes.js';
import { fail, isObject, pass, type Check, type TrustAnchors } from './format.js';
import {
  OID,
  certificateDer,
  certificatesFromPem,
  commonNameOf,
  essCertHashes,
  pkiEngine,
  timeStampingUsageProblem,
} from './pki.js';
import { parseTimestampToken, type ParsedTimestampToken } from './timestamp-token.js';

export interface TimestampOutcome<N extends string> {
  check: Check<N>;
  token: ParsedTimestampToken | null;
  selfIssued: boolean;
}

/**
 * An RFC 3161 token over `data` (`{token: base64 DER, genTime, tsa}` as the evidence records it): the token's
 * imprint is SHA-256(data) = `digest`, its CMS signature and signing-certificate attribute are valid, the
 * TSA certificate has a critical id-kp-timeStamping-only EKU and chains (at genTime) to one of the trusted
 * TSA CAs; the recorded genTime is the token's. Bad input fails with a detail, never throws.
 */
export async function checkTimestamp<N extends string>(
  name: N,
  stamp: unknown,
  data: Uint8Array,
  digest: Uint8Array,
  trust: Pick<TrustAnchors, 'tsaCaCertsPem' | 'selfIssuedTsaCaCertsPem'>,
  /** What `digest` is, for the details: "bundle digest", "certificate digest". */
  subject: string,
): Promise<TimestampOutcome<N>> {
  const failed = (detail: string, token: ParsedTimestampToken | null = null) => ({
    check: fail(name, detail),
    token,
    selfIssued: false,
  });

  if (!isObject(stamp) || typeof stamp['token'] !== 'string') return failed(`no timestamp token for the ${subject}`);
  const der = fromBase64Strict(stamp['token']);
  if (!der) return failed('timestamp token is not base64');
  let token: ParsedTimestampToken;
  try {
    token = parseTimestampToken(der);
  } catch (error) {
    return failed(`timestamp token unreadable: ${(error as Error).message}`);
  }

  if (token.imprintAlgorithm !== OID.sha256) return failed('token message imprint is not SHA-256', token);
  if (!bytesEqual(token.imprint, digest)) return failed(`token's message imprint is not the ${subject}`, token);

  let signer: pkijs.Certificate | null;
  try {
    const outcome = (await token.signedData.verify(
      { signer: 0, data: toArrayBuffer(data), extendedMode: true },
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
    trusted = certificatesFromPem(trust.tsaCaCertsPem);
  } catch (error) {
    return failed(`trusted TSA CA certificates unreadable: ${(error as Error).message}`, token);
  }
  if (trusted.length === 0) return failed('no trusted TSA CA certificates were given', token);
  const others = (token.signedData.certificates ?? []).filter(
    (certificate): certificate is pkijs.Certificate =>
      certificate instanceof pkijs.Certificate && certificate !== signer,
  );
  try {
    const chain = await new pkijs.CertificateChainValidationEngine({
      trustedCerts: trusted,
      certs: [...others, signer], // the engine takes the last certificate as the leaf
      checkDate: token.genTime,
    }).verify({}, pkiEngine);
    if (!chain.result)
      return failed(`TSA certificate does not chain to a trusted TSA CA: ${chain.resultMessage}`, token);
  } catch (error) {
    const message = (error as { resultMessage?: string; message?: string }).resultMessage ?? (error as Error).message;
    return failed(`TSA certificate does not chain to a trusted TSA CA: ${message}`, token);
  }

  const recorded = stamp['genTime'];
  if (typeof recorded === 'string' && Date.parse(recorded) !== token.genTime.getTime()) {
    return failed(`recorded genTime ${recorded} is not the token's ${token.genTime.toISOString()}`, token);
  }
  const selfIssued = await chainsTo(trust.selfIssuedTsaCaCertsPem ?? [], [...others, signer], token.genTime);
  const origin = selfIssued ? "; self-issued by this service's built-in local TSA, not a public TSA" : '';
  // The TSA is named by its certificate (signed, chained to a trusted CA), not by the URL the evidence records beside it.
  const tsaName = commonNameOf(signer);
  return {
    check: pass(
      name,
      `RFC 3161 token signed by TSA certificate ${tsaName ? `"${tsaName}"` : 'without a common name'}, genTime ${token.genTime.toISOString()}, serial ${token.serialNumber}${origin}`,
    ),
    token,
    selfIssued,
  };
}

async function chainsTo(caCertsPem: string[], certs: pkijs.Certificate[], checkDate: Date): Promise<boolean> {
  if (caCertsPem.length === 0) return false;
  try {
    const chain = await new pkijs.CertificateChainValidationEngine({
      trustedCerts: certificatesFromPem(caCertsPem),
      certs,
      checkDate,
    }).verify({}, pkiEngine);
    return chain.result;
  } catch {
    return false;
  }
}

/** RFC 3161 / RFC 5816: the signer info names the TSA certificate in a signing-certificate(-v2) attribute. */
async function signingCertificateProblem(
  signedData: pkijs.SignedData,
  signer: pkijs.Certificate,
): Promise<string | null> {
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
