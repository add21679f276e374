import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { toArrayBuffer } from './bytes.js';

/** pkijs on the platform's WebCrypto (Node ≥ 20 or a browser), and the X.509 / CMS helpers verification needs. */

export const pkiEngine = new pkijs.CryptoEngine({ name: 'webcrypto', crypto: globalThis.crypto });
pkijs.setEngine('webcrypto', pkiEngine);

export const OID = {
  sha256: '2.16.840.1.101.3.4.2.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  extKeyUsage: '2.5.29.37',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
} as const;

/** Every DER block with the given label in a PEM text (a bundle of certificates is fine). */
export function pemBlocks(pem: string, label: string): Uint8Array[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`, 'g');
  const blocks: Uint8Array[] = [];
  for (const match of pem.matchAll(pattern)) {
    const binary = atob((match[1] ?? '').replace(/\s+/g, ''));
    const der = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) der[i] = binary.charCodeAt(i);
    blocks.push(der);
  }
  return blocks;
}

export function certificateFromDer(der: Uint8Array): pkijs.Certificate {
  return pkijs.Certificate.fromBER(toArrayBuffer(der));
}

/** Parses all CERTIFICATE blocks of PEM texts; throws on a block that is not a certificate. */
export function certificatesFromPem(pems: string[]): pkijs.Certificate[] {
  return pems.flatMap((pem) => pemBlocks(pem, 'CERTIFICATE').map(certificateFromDer));
}

/** The subject's common name as the certificate states it (signed by its issuer), at most 128 characters; null: none. */
export function commonNameOf(certificate: pkijs.Certificate): string | null {
  const name = certificate.subject.typesAndValues.find((t) => t.type === OID.commonName)?.value.valueBlock.value;
  return typeof name === 'string' && name !== '' ? name.slice(0, 128) : null;
}

export function certificateDer(certificate: pkijs.Certificate): Uint8Array {
  // toSchema(false) keeps the TBS bytes as parsed or signed; re-encoding could change a parsed certificate.
  return new Uint8Array(certificate.toSchema(false).toBER(false));
}

/**
 * RFC 3161 2.3: the TSA certificate has exactly one, critical extendedKeyUsage extension whose only
 * purpose is id-kp-timeStamping. Returns the reason it does not, or null.
 */
export function timeStampingUsageProblem(certificate: pkijs.Certificate): string | null {
  const extensions = certificate.extensions?.filter((extension) => extension.extnID === OID.extKeyUsage) ?? [];
  if (extensions.length === 0) return 'TSA certificate has no extendedKeyUsage extension';
  if (extensions.length > 1) return 'TSA certificate has more than one extendedKeyUsage extension';
  const extension = extensions[0] as pkijs.Extension;
  if (!extension.critical) return 'TSA certificate extendedKeyUsage is not critical';
  const usage = extension.parsedValue as pkijs.ExtKeyUsage | undefined;
  const purposes = usage?.keyPurposes ?? [];
  if (purposes.length !== 1 || purposes[0] !== OID.timeStamping) {
    return `TSA certificate extendedKeyUsage is [${purposes.join(', ')}], not only id-kp-timeStamping`;
  }
  return null;
}

/**
 * The certificate hashes an ESS signing-certificate attribute (v2: SHA-256 unless stated; v1: SHA-1)
 * names, with the hash algorithm's WebCrypto name.
 */
export function essCertHashes(attribute: pkijs.Attribute): Array<{ algorithm: string; hash: Uint8Array }> {
  const value = attribute.values[0];
  if (!(value instanceof asn1js.Sequence)) throw new Error('signing-certificate attribute is not a SEQUENCE');
  const certs = value.valueBlock.value[0];
  if (!(certs instanceof asn1js.Sequence)) throw new Error('signing-certificate certs is not a SEQUENCE');
  const v2 = attribute.type === OID.signingCertificateV2;
  return certs.valueBlock.value.map((certId) => {
    if (!(certId instanceof asn1js.Sequence)) throw new Error('ESSCertID is not a SEQUENCE');
    const parts = certId.valueBlock.value;
    let algorithm = v2 ? 'SHA-256' : 'SHA-1';
    let index = 0;
    if (v2 && parts[0] instanceof asn1js.Sequence) {
      const algorithmId = new pkijs.AlgorithmIdentifier({ schema: parts[0] }).algorithmId;
      const known = pkiEngine.getAlgorithmByOID<{ name: string }>(algorithmId);
      if (!('name' in known)) throw new Error(`unsupported ESSCertIDv2 hash algorithm ${algorithmId}`);
      algorithm = known.name;
      index = 1;
    }
    const hash = parts[index];
    if (!(hash instanceof asn1js.OctetString)) throw new Error('ESSCertID certHash is not an OCTET STRING');
    return { algorithm, hash: new Uint8Array(hash.valueBlock.valueHexView) };
  });
}
