import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { OID, certificateDer, toArrayBuffer } from '../../packages/verifier/src/index.js';

/**
 * pkijs on Node's WebCrypto and the X.509 / CMS helpers only the service needs (writing PEM, the local TSA's
 * signing-certificate attribute). What verification needs too (OID, the pkijs engine on WebCrypto, parsing)
 * lives in the verifier package.
 */

export function toPem(label: string, der: ArrayBuffer | Uint8Array): string {
  const base64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * SigningCertificateV2 (RFC 5035) naming one certificate by its SHA-256 hash. SHA-256 is the
 * DEFAULT hashAlgorithm, so DER omits it; issuerSerial is optional and left out.
 */
export async function signingCertificateV2Attribute(certificate: pkijs.Certificate): Promise<pkijs.Attribute> {
  const certHash = await webcrypto.subtle.digest('SHA-256', toArrayBuffer(certificateDer(certificate)));
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash })] });
  const value = new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
  return new pkijs.Attribute({ type: OID.signingCertificateV2, values: [value] });
}

// DER encodes SET OF in ascending order of the element encodings; verifiers such as OpenSSL re-encode
// the signed attributes that way before checking the signature, so we must sign them in that order.
export function sortedForDer(attributes: pkijs.Attribute[]): pkijs.Attribute[] {
  const encoded = attributes.map((attribute) => ({
    attribute,
    der: new Uint8Array(attribute.toSchema().toBER(false)),
  }));
  encoded.sort((a, b) => {
    const length = Math.max(a.der.length, b.der.length);
    for (let i = 0; i < length; i++) {
      const difference = (a.der[i] ?? 0) - (b.der[i] ?? 0);
      if (difference !== 0) return difference;
    }
    return 0;
  });
  return encoded.map((entry) => entry.attribute);
}
