import { createHash, randomBytes, webcrypto } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { readSecretFile, writeOnce } from '../infra/write-once.js';
import {
  OID,
  certificateDer,
  certificatesFromPem,
  pemBlocks,
  toArrayBuffer,
} from '../../packages/verifier/src/index.js';
import { toPem } from './pki.js';
import { IDENTITY_FILE, type StoredIdentity } from './local-tsa-ca-file.js';

export { existingLocalTsaCaCertPem } from './local-tsa-ca-file.js';

/**
 * The identity of the built-in TSA (local-tsa.ts): on first use a self-signed root CA (RSA 2048) and a TSA
 * certificate issued by it with a critical extendedKeyUsage of only id-kp-timeStamping; the CA private key
 * is not kept. Stored as one JSON file (mode 0600) in the TSA's directory, linked into place atomically.
 */

const RSA_SHA256: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

export interface TsaIdentity {
  caCertPem: string;
  tsaCertPem: string;
  tsaCert: pkijs.Certificate;
  privateKey: CryptoKey;
}

export async function loadOrCreateIdentity(dir: string): Promise<TsaIdentity> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, IDENTITY_FILE);
  let text: string;
  try {
    text = await readSecretFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await writeOnce(path, JSON.stringify(await createIdentity(), null, 2));
    text = await readSecretFile(path);
  }
  let stored: StoredIdentity;
  try {
    stored = JSON.parse(text) as StoredIdentity;
  } catch {
    throw new Error(`${path} is not valid JSON; delete it to create a new local TSA identity`);
  }
  const [tsaCert] = certificatesFromPem([stored.tsaCertPem]);
  const [keyDer] = pemBlocks(stored.tsaKeyPem, 'PRIVATE KEY');
  if (!tsaCert || !keyDer) throw new Error(`${path} is missing the TSA certificate or key`);
  const privateKey = await webcrypto.subtle.importKey(
    'pkcs8',
    keyDer,
    { name: RSA_SHA256.name, hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return { caCertPem: stored.caCertPem, tsaCertPem: stored.tsaCertPem, tsaCert, privateKey };
}

async function createIdentity(): Promise<StoredIdentity> {
  const caKeys = await webcrypto.subtle.generateKey(RSA_SHA256, true, ['sign', 'verify']);
  const tsaKeys = await webcrypto.subtle.generateKey(RSA_SHA256, true, ['sign', 'verify']);
  const now = Date.now();
  const notBefore = new Date(now - 5 * 60 * 1000);
  const notAfter = new Date(now + 10 * 365 * 24 * 60 * 60 * 1000);

  const caName = distinguishedName('Capture Ledger Local TSA Root CA');
  const caSki = await keyIdentifier(caKeys.publicKey);
  const ca = await issue({
    subject: caName,
    issuer: caName,
    publicKey: caKeys.publicKey,
    signingKey: caKeys.privateKey,
    notBefore,
    notAfter,
    extensions: [
      extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: true }).toSchema()),
      extension(OID.keyUsage, true, keyUsage(0x06, 1)), // keyCertSign, cRLSign
      extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: caSki })),
    ],
  });

  const tsa = await issue({
    subject: distinguishedName('Capture Ledger Local TSA'),
    issuer: caName,
    publicKey: tsaKeys.publicKey,
    signingKey: caKeys.privateKey,
    notBefore,
    notAfter,
    extensions: [
      extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: false }).toSchema()),
      extension(OID.keyUsage, true, keyUsage(0xc0, 6)), // digitalSignature, nonRepudiation
      extension(OID.extKeyUsage, true, new pkijs.ExtKeyUsage({ keyPurposes: [OID.timeStamping] }).toSchema()),
      extension(
        OID.subjectKeyIdentifier,
        false,
        new asn1js.OctetString({ valueHex: await keyIdentifier(tsaKeys.publicKey) }),
      ),
      extension(
        OID.authorityKeyIdentifier,
        false,
        new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: caSki }) }).toSchema(),
      ),
    ],
  });

  const tsaKey = await webcrypto.subtle.exportKey('pkcs8', tsaKeys.privateKey);
  return {
    caCertPem: toPem('CERTIFICATE', certificateDer(ca)),
    tsaCertPem: toPem('CERTIFICATE', certificateDer(tsa)),
    tsaKeyPem: toPem('PRIVATE KEY', tsaKey),
  };
}

interface IssueParams {
  subject: pkijs.RelativeDistinguishedNames;
  issuer: pkijs.RelativeDistinguishedNames;
  publicKey: CryptoKey;
  signingKey: CryptoKey;
  notBefore: Date;
  notAfter: Date;
  extensions: pkijs.Extension[];
}

async function issue(params: IssueParams): Promise<pkijs.Certificate> {
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ valueHex: toArrayBuffer(positiveRandom(16)) });
  certificate.subject = params.subject;
  certificate.issuer = params.issuer;
  certificate.notBefore.value = params.notBefore;
  certificate.notAfter.value = params.notAfter;
  certificate.extensions = params.extensions;
  await certificate.subjectPublicKeyInfo.importKey(params.publicKey);
  await certificate.sign(params.signingKey, 'SHA-256');
  // Round-trip so the object carries its DER (tbsView) as a verifier will see it.
  return pkijs.Certificate.fromBER(certificate.toSchema(true).toBER(false));
}

function distinguishedName(commonName: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [
      new pkijs.AttributeTypeAndValue({
        type: OID.organizationName,
        value: new asn1js.Utf8String({ value: 'Capture Ledger' }),
      }),
      new pkijs.AttributeTypeAndValue({ type: OID.commonName, value: new asn1js.Utf8String({ value: commonName }) }),
    ],
  });
}

function extension(extnID: string, critical: boolean, value: asn1js.AsnType): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

function keyUsage(firstByte: number, unusedBits: number): asn1js.BitString {
  return new asn1js.BitString({ valueHex: new Uint8Array([firstByte]).buffer, unusedBits });
}

// RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING value.
async function keyIdentifier(publicKey: CryptoKey): Promise<ArrayBuffer> {
  const info = new pkijs.PublicKeyInfo();
  await info.importKey(publicKey);
  const hash = createHash('sha1').update(info.subjectPublicKey.valueBlock.valueHexView).digest();
  return toArrayBuffer(new Uint8Array(hash));
}

/** A positive INTEGER of `length` random bytes (certificate and token serial numbers). */
export function positiveRandom(length: number): Uint8Array {
  const bytes = new Uint8Array(randomBytes(length));
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x01;
  return bytes;
}
