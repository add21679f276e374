import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { loadOrCreateIdentity, positiveRandom, type TsaIdentity } from './local-tsa-identity.js';
import { OID, toArrayBuffer } from '../../packages/verifier/src/index.js';
import { signingCertificateV2Attribute, sortedForDer } from './pki.js';

export { existingLocalTsaCaCertPem } from './local-tsa-identity.js';

/**
 * A built-in RFC 3161 time-stamping authority for the embedded default (TSA_URL unset) and for tests.
 *
 * Its CA and certificate come from local-tsa-identity.ts (created in `dir` on first start). It answers
 * TimeStampReq over HTTP on 127.0.0.1 with granted TimeStampResp tokens: CMS SignedData over TSTInfo, signed attributes contentType, signingTime, messageDigest and signing-certificate-v2
 * (ESSCertIDv2), DER-sorted so that `openssl ts -verify` accepts them; the TSA certificate is included
 * when certReq is true.
 */

export interface LocalTsa {
  url: string;
  caCertPem: string;
  close(): Promise<void>;
}

export interface LocalTsaOptions {
  /** Where the CA and TSA certificates and the TSA key live (e.g. DATA_DIR/tsa). */
  dir: string;
  /** Default 0: a free port. */
  port?: number;
}

/** Documentation-only private enterprise number (RFC 5612): this TSA makes no policy promises. */
export const LOCAL_TSA_POLICY = '1.3.6.1.4.1.32473.3161.1';

const MAX_REQUEST_BYTES = 64 * 1024;

export async function startLocalTsa(options: LocalTsaOptions): Promise<LocalTsa> {
  const identity = await loadOrCreateIdentity(options.dir);
  const signingCertificate = await signingCertificateV2Attribute(identity.tsaCert);

  const server = createServer((request, response) => {
    handle(request, response, identity, signingCertificate).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    caCertPem: identity.caCertPem,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  identity: TsaIdentity,
  signingCertificate: pkijs.Attribute,
): Promise<void> {
  if (request.method !== 'POST') {
    response.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const body = await readBody(request);
  if (!body) {
    response.writeHead(413).end();
    return;
  }
  const reply = await answer(body, identity, signingCertificate);
  response.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': reply.byteLength });
  response.end(reply);
}

async function readBody(request: IncomingMessage): Promise<Uint8Array | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).byteLength;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

const IMPRINT_LENGTHS: Record<string, number> = {
  [OID.sha256]: 32,
  '2.16.840.1.101.3.4.2.2': 48,
  '2.16.840.1.101.3.4.2.3': 64,
};

async function answer(body: Uint8Array, identity: TsaIdentity, signingCertificate: pkijs.Attribute): Promise<Buffer> {
  let request: pkijs.TimeStampReq;
  try {
    request = pkijs.TimeStampReq.fromBER(toArrayBuffer(body));
  } catch {
    return rejection('request is not a TimeStampReq', FAILURE.badDataFormat);
  }
  const algorithm = request.messageImprint.hashAlgorithm.algorithmId;
  const expectedLength = IMPRINT_LENGTHS[algorithm];
  if (expectedLength === undefined) return rejection(`unsupported hash algorithm ${algorithm}`, FAILURE.badAlg);
  if (request.messageImprint.hashedMessage.valueBlock.valueHexView.byteLength !== expectedLength) {
    return rejection('message imprint length does not match its hash algorithm', FAILURE.badDataFormat);
  }
  if (request.reqPolicy !== undefined && request.reqPolicy !== LOCAL_TSA_POLICY) {
    return rejection(`policy ${request.reqPolicy} is not offered`, FAILURE.unacceptedPolicy);
  }

  // Whole seconds: a DER GeneralizedTime fraction must not end in 0, and RFC 3161 needs no more.
  const genTime = new Date(Math.floor(Date.now() / 1000) * 1000);
  const tstInfo = new pkijs.TSTInfo({
    version: 1,
    policy: LOCAL_TSA_POLICY,
    messageImprint: request.messageImprint,
    serialNumber: new asn1js.Integer({ valueHex: toArrayBuffer(positiveRandom(16)) }),
    genTime,
    accuracy: new pkijs.Accuracy({ seconds: 1 }),
    ...(request.nonce ? { nonce: request.nonce } : {}),
  });
  const tstInfoDer = new Uint8Array(tstInfo.toSchema().toBER(false));

  const attributes = sortedForDer([
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.tstInfo })] }),
    new pkijs.Attribute({ type: OID.signingTime, values: [new asn1js.UTCTime({ valueDate: genTime })] }),
    new pkijs.Attribute({
      type: OID.messageDigest,
      values: [new asn1js.OctetString({ valueHex: toArrayBuffer(createHash('sha256').update(tstInfoDer).digest()) })],
    }),
    signingCertificate,
  ]);
  const signedData = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: OID.tstInfo,
      eContent: new asn1js.OctetString({ valueHex: toArrayBuffer(tstInfoDer) }),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({
          issuer: identity.tsaCert.issuer,
          serialNumber: identity.tsaCert.serialNumber,
        }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
      }),
    ],
    ...(request.certReq ? { certificates: [identity.tsaCert] } : {}),
  });
  await signedData.sign(identity.privateKey, 0, 'SHA-256');

  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) }),
  });
  return Buffer.from(response.toSchema().toBER(false));
}

// PKIFailureInfo bit numbers (RFC 3161 2.4.2).
const FAILURE = { badAlg: 0, badRequest: 2, badDataFormat: 5, unacceptedPolicy: 15 } as const;

function rejection(text: string, failureBit: number): Buffer {
  const bits = new Uint8Array(Math.floor(failureBit / 8) + 1);
  bits[Math.floor(failureBit / 8)] = 0x80 >> (failureBit % 8);
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({
      status: pkijs.PKIStatus.rejection,
      statusStrings: [new asn1js.Utf8String({ value: text })],
      failInfo: new asn1js.BitString({ valueHex: toArrayBuffer(bits), unusedBits: 7 - (failureBit % 8) }),
    }),
  });
  return Buffer.from(response.toSchema().toBER(false));
}
