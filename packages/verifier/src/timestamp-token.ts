import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { hex, toArrayBuffer } from './bytes.js';
import { OID } from './pki.js';

/** What a TimeStampToken's TSTInfo says: when, over which imprint, with which nonce. */
export interface TimestampTstInfo {
  tstInfo: pkijs.TSTInfo;
  genTime: Date;
  /** OID of the message imprint's hash algorithm. */
  imprintAlgorithm: string;
  imprint: Uint8Array;
  nonce: bigint | null;
  serialNumber: string;
}

/** A parsed RFC 3161 TimeStampToken: CMS ContentInfo → SignedData → TSTInfo. */
export interface ParsedTimestampToken extends TimestampTstInfo {
  signedData: pkijs.SignedData;
}

/** Parses token DER; throws an Error whose message says which layer is wrong. */
export function parseTimestampToken(der: Uint8Array): ParsedTimestampToken {
  const asn1 = asn1js.fromBER(toArrayBuffer(der));
  if (asn1.offset === -1) throw new Error('token is not DER/BER');
  const contentInfo = new pkijs.ContentInfo({ schema: asn1.result });
  return parseTokenContentInfo(contentInfo);
}

export function parseTokenContentInfo(contentInfo: pkijs.ContentInfo): ParsedTimestampToken {
  checkSignedData(contentInfo);
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  return { signedData, ...tstInfoOf(signedData.encapContentInfo) };
}

/**
 * The TSTInfo of a token, read without parsing the rest of its SignedData (certificates, signer infos): what a
 * TSA client checks of a reply (its nonce, imprint and time). Parsing the whole SignedData took most of a
 * time-stamp's CPU in the client; verifying a token needs it (parseTokenContentInfo), checking a reply does not.
 */
export function readTokenTstInfo(contentInfo: pkijs.ContentInfo): TimestampTstInfo {
  checkSignedData(contentInfo);
  // SignedData (RFC 5652 5.1): version, digestAlgorithms, encapContentInfo, then certificates, crls, signerInfos.
  const fields: unknown = (contentInfo.content as asn1js.Sequence).valueBlock?.value;
  const encap = Array.isArray(fields) ? fields[2] : undefined;
  if (!encap) throw new Error('token SignedData has no encapContentInfo');
  return tstInfoOf(new pkijs.EncapsulatedContentInfo({ schema: encap }));
}

function checkSignedData(contentInfo: pkijs.ContentInfo): void {
  if (contentInfo.contentType !== OID.signedData) {
    throw new Error(`token content type is ${contentInfo.contentType}, not SignedData`);
  }
}

function tstInfoOf(encapContentInfo: pkijs.EncapsulatedContentInfo): TimestampTstInfo {
  if (encapContentInfo.eContentType !== OID.tstInfo) {
    throw new Error(`token encapsulates ${encapContentInfo.eContentType}, not TSTInfo`);
  }
  const eContent = encapContentInfo.eContent;
  if (!eContent) throw new Error('token has no TSTInfo content');
  const tstInfo = pkijs.TSTInfo.fromBER(eContent.getValue());
  return {
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
