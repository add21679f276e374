import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { hex, toArrayBuffer } from './bytes.js';
import { OID } from './pki.js';

/** A parsed RFC 3161 TimeStampToken: CMS ContentInfo → SignedData → TSTInfo. */
export interface ParsedTimestampToken {
  signedData: pkijs.SignedData;
  tstInfo: pkijs.TSTInfo;
  genTime: Date;
  /** OID of the message imprint's hash algorithm. */
  imprintAlgorithm: string;
  imprint: Uint8Array;
  nonce: bigint | null;
  serialNumber: string;
}

/** Parses token DER; throws an Error whose message says which layer is wrong. */
export function parseTimestampToken(der: Uint8Array): ParsedTimestampToken {
  const asn1 = asn1js.fromBER(toArrayBuffer(der));
  if (asn1.offset === -1) throw new Error('token is not DER/BER');
  const contentInfo = new pkijs.ContentInfo({ schema: asn1.result });
  return parseTokenContentInfo(contentInfo);
}

export function parseTokenContentInfo(contentInfo: pkijs.ContentInfo): ParsedTimestampToken {
  if (contentInfo.contentType !== OID.signedData) {
    throw new Error(`token content type is ${contentInfo.contentType}, not SignedData`);
  }
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  if (signedData.encapContentInfo.eContentType !== OID.tstInfo) {
    throw new Error(`token encapsulates ${signedData.encapContentInfo.eContentType}, not TSTInfo`);
  }
  const eContent = signedData.encapContentInfo.eContent;
  if (!eContent) throw new Error('token has no TSTInfo content');
  const tstInfo = pkijs.TSTInfo.fromBER(eContent.getValue());
  return {
    signedData,
    tstInfo,
    genTime: tstInfo.genTime,
    imprintAlgorithm: tstInfo.messageImprint.hashAlgorithm.algorithmId,
    imprint: new Uint8Array(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView),
    nonce: tstInfo.nonce ? integerValue(tstInfo.nonce) : null,
    serialNumber: hex(new Uint8Array(tstInfo.serialNumber.valueBlock.valueHexView)),
  };
}

/** An ASN.1 INTEGER as a bigint (two's complement, as encoded). */
export function integerValue(integer: asn1js.Integer): bigint {
  const bytes = new Uint8Array(integer.valueBlock.valueHexView);
  if (bytes.length === 0) return 0n;
  let value = BigInt(`0x${hex(bytes)}`);
  if ((bytes[0] as number) & 0x80) value -= 1n << BigInt(bytes.length * 8);
  return value;
}
