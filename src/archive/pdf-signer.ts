import { createECDH, createHash, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  OID,
  PDF_SIGNATURE_OIDS,
  certificateDer,
  pdfSignedAttributes,
  spkiFingerprint,
  toArrayBuffer,
  toBase64,
} from '../../packages/verifier/src/index.js';
import { positiveRandom } from './local-tsa-identity.js';
import { sortedForDer } from './pki.js';
import type { SigningKey } from './signing-key.js';
import type { Timestamper } from './tsa-client.js';

/**
 * The signer role's PDF-signing identity (docs/evidence.md, Certificates). PDF readers check a certificate's
 * standard PDF signature with CMS, and poppler's NSS backend (like Acrobat) does not verify Ed25519 in CMS, so the
 * certificate PDF is signed with an ECDSA P-256 key. The key is derived from the Ed25519 seed (HKDF-SHA256, context
 * below): every signer of a deployment holds the same key without another secret to configure, it changes when the
 * Ed25519 key rotates, and it never leaves the signer role. Its certificate is self-issued at start (X.509 v3,
 * digitalSignature + nonRepudiation) and travels inside every signature; the signed document names the key by the
 * SHA-256 of its SubjectPublicKeyInfo, which the Ed25519 signature of the document covers.
 */

const CONTEXT = 'capture-ledger pdf-signing ecdsa-p256 v1';
/** Order of P-256 (SEC 2). */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

export interface PdfSigningIdentity {
  certificate: pkijs.Certificate;
  /** base64 DER of the certificate. */
  certificateBase64: string;
  /** `sha256:<hex>` of its SubjectPublicKeyInfo. */
  fingerprint: string;
  /** A CMS SignedData (DER) for a PDF signature: detached over the byte range whose SHA-256 is `digest`. */
  signCms(digest: Uint8Array, timestamper: Timestamper | undefined): Promise<Uint8Array>;
}

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

export async function pdfSigningIdentity(signingKey: SigningKey, issuer: string): Promise<PdfSigningIdentity> {
  // FIPS 186-5 A.2.1: 48 bytes reduced mod n-1, plus one, is an unbiased private scalar.
  const extra = signingKey.derive(CONTEXT, 48);
  const scalar = (BigInt(`0x${Buffer.from(extra).toString('hex')}`) % (N - 1n)) + 1n;
  const d = Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    x: base64url(point.subarray(1, 33)),
    y: base64url(point.subarray(33, 65)),
  };
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const privateKey = await webcrypto.subtle.importKey('jwk', { ...jwk, d: base64url(d) }, algorithm, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('jwk', jwk, algorithm, true, ['verify']);

  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ valueHex: toArrayBuffer(positiveRandom(16)) });
  const name = new pkijs.RelativeDistinguishedNames({
    typesAndValues: [
      new pkijs.AttributeTypeAndValue({ type: OID.organizationName, value: new asn1js.Utf8String({ value: issuer }) }),
      new pkijs.AttributeTypeAndValue({
        type: OID.commonName,
        value: new asn1js.Utf8String({ value: `Capture Ledger certificate signing (key ${signingKey.keyId})` }),
      }),
    ],
  });
  certificate.subject = name;
  certificate.issuer = name;
  const now = Date.now();
  certificate.notBefore.value = new Date(now - 5 * 60 * 1000);
  certificate.notAfter.value = new Date(now + 10 * 365 * 24 * 60 * 60 * 1000);
  await certificate.subjectPublicKeyInfo.importKey(publicKey);
  const spkiSha1 = createHash('sha1').update(certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
  certificate.extensions = [
    new pkijs.Extension({
      extnID: OID.basicConstraints,
      critical: true,
      extnValue: new pkijs.BasicConstraints({ cA: false }).toSchema().toBER(false),
    }),
    new pkijs.Extension({
      extnID: OID.keyUsage,
      critical: true,
      // digitalSignature, nonRepudiation
      extnValue: new asn1js.BitString({ valueHex: new Uint8Array([0xc0]).buffer, unusedBits: 6 }).toBER(false),
    }),
    new pkijs.Extension({
      extnID: OID.subjectKeyIdentifier,
      critical: false,
      extnValue: new asn1js.OctetString({ valueHex: toArrayBuffer(new Uint8Array(spkiSha1.digest())) }).toBER(false),
    }),
  ];
  await certificate.sign(privateKey, 'SHA-256');
  const signed = pkijs.Certificate.fromBER(certificate.toSchema(true).toBER(false));
  const der = certificateDer(signed);
  const certHash = new Uint8Array(createHash('sha256').update(der).digest());

  return {
    certificate: signed,
    certificateBase64: toBase64(der),
    fingerprint: await spkiFingerprint(signed),
    async signCms(digest, timestamper) {
      const signedData = new pkijs.SignedData({
        version: 1,
        encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: PDF_SIGNATURE_OIDS.data }),
        signerInfos: [
          new pkijs.SignerInfo({
            version: 1,
            sid: new pkijs.IssuerAndSerialNumber({ issuer: signed.issuer, serialNumber: signed.serialNumber }),
            signedAttrs: new pkijs.SignedAndUnsignedAttributes({
              type: 0,
              attributes: sortedForDer(pdfSignedAttributes(digest, certHash)),
            }),
          }),
        ],
        certificates: [signed],
      });
      await signedData.sign(privateKey, 0, 'SHA-256');
      const signerInfo = signedData.signerInfos[0]!;
      if (timestamper) {
        // ETSI EN 319 122-1 5.3: the signature-time-stamp's imprint is the hash of the signature value.
        const value = signerInfo.signature.valueBlock.valueHexView;
        const stamped = await timestamper.timestamp(new Uint8Array(createHash('sha256').update(value).digest()));
        const token = asn1js.fromBER(toArrayBuffer(stamped.token));
        if (token.offset === -1) throw new Error('the TSA answered a token that is not DER');
        signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
          type: 1,
          attributes: [new pkijs.Attribute({ type: PDF_SIGNATURE_OIDS.signatureTimeStamp, values: [token.result] })],
        });
      }
      const info = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
      return new Uint8Array(info.toSchema().toBER(false));
    },
  };
}
