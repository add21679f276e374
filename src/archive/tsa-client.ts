import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { bytesEqual } from './digests.js';
import { TsaResponseError, TsaUnavailableError } from './errors.js';
import { OID, integerValue, readTokenTstInfo, toArrayBuffer } from '../../packages/verifier/src/index.js';

/** What a notary needs from a time-stamping authority to time-stamp a bundle (notary.ts). */
export interface Timestamper {
  /** Time-stamps a 32-byte SHA-256 digest (for bundles: the digest behind `bundleHash`). */
  timestamp(digest: Uint8Array): Promise<TimestampResult>;
}

export interface TimestampResult {
  /** DER TimeStampToken (CMS ContentInfo). */
  token: Uint8Array;
  /** ISO 8601 genTime from the token. */
  genTime: string;
  /** The TSA as evidence names it: its URL, or the name given (TsaClientOptions.name). */
  tsa: string;
}

export interface TsaClientOptions {
  url: string;
  /**
   * What results name as `tsa`, published in bundles, certificates and verification results; default the URL. A
   * TSA reached at an address of its own (the built-in one on loopback) is named where readers can look it up.
   */
  name?: string;
  /** Total tries; default 3. */
  attempts?: number;
  /** Wait before retry n (1-based) is backoffMs * 4^(n-1); default 250 ms. */
  backoffMs?: number;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * RFC 3161 client over HTTP (RFC 3161 3.4): POSTs a TimeStampReq (SHA-256 imprint, random nonce,
 * certReq true) as application/timestamp-query and checks the reply is granted, echoes the nonce and
 * carries our imprint. Transport failures (network, timeout, 5xx, 429) are retried with backoff and end
 * in TsaUnavailableError; a TSA that answers wrongly gives TsaResponseError at once.
 */
export function createTsaClient(options: TsaClientOptions): Timestamper {
  const attempts = Math.max(1, options.attempts ?? 3);
  const backoffMs = options.backoffMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const doFetch = options.fetch ?? globalThis.fetch;

  return {
    async timestamp(digest: Uint8Array): Promise<TimestampResult> {
      if (digest.byteLength !== 32) throw new TypeError('digest must be the 32 bytes of a SHA-256 hash');
      let lastError: unknown;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (attempt > 1) await sleep(backoffMs * 4 ** (attempt - 2));
        const nonceBytes = randomNonce();
        const request = new pkijs.TimeStampReq({
          version: 1,
          messageImprint: new pkijs.MessageImprint({
            hashAlgorithm: new pkijs.AlgorithmIdentifier({
              algorithmId: OID.sha256,
              algorithmParams: new asn1js.Null(),
            }),
            hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(digest) }),
          }),
          nonce: new asn1js.Integer({ valueHex: toArrayBuffer(nonceBytes) }),
          certReq: true,
        });
        let reply: Uint8Array;
        try {
          reply = await post(doFetch, options.url, new Uint8Array(request.toSchema().toBER(false)), timeoutMs);
        } catch (error) {
          if (error instanceof TsaResponseError) throw error;
          lastError = error;
          continue;
        }
        const result = checkReply(reply, digest, integerValue(request.nonce as asn1js.Integer), options.url);
        return options.name === undefined ? result : { ...result, tsa: options.name };
      }
      const reason = lastError instanceof Error ? lastError.message : String(lastError);
      throw new TsaUnavailableError(`TSA ${options.url} unavailable after ${attempts} attempts: ${reason}`, attempts, {
        cause: lastError,
      });
    },
  };
}

async function post(
  doFetch: typeof globalThis.fetch,
  url: string,
  body: Uint8Array,
  timeoutMs: number,
): Promise<Uint8Array> {
  const response = await doFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
    body: toArrayBuffer(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (response.status >= 500 || response.status === 429) {
    throw new Error(`HTTP ${response.status}`);
  }
  if (response.status !== 200) {
    throw new TsaResponseError(`TSA ${url} answered HTTP ${response.status}`);
  }
  return bytes;
}

function checkReply(reply: Uint8Array, digest: Uint8Array, nonce: bigint, url: string): TimestampResult {
  // Parsed once: the response read from it, and the token's bytes kept exactly as the TSA encoded them (re-encoding
  // a parsed structure could change them).
  const asn1 = asn1js.fromBER(toArrayBuffer(reply));
  let response: pkijs.TimeStampResp;
  try {
    if (asn1.offset === -1) throw new Error(asn1.result.error);
    response = new pkijs.TimeStampResp({ schema: asn1.result });
  } catch (error) {
    throw new TsaResponseError(`TSA ${url} reply is not a TimeStampResp`, { cause: error });
  }
  const status = response.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    const text = response.status.statusStrings?.map((s) => s.valueBlock.value).join('; ') ?? '';
    throw new TsaResponseError(`TSA ${url} refused the request (PKIStatus ${status}${text ? `: ${text}` : ''})`);
  }
  if (!response.timeStampToken) throw new TsaResponseError(`TSA ${url} granted but sent no token`);
  let token;
  try {
    token = readTokenTstInfo(response.timeStampToken);
  } catch (error) {
    throw new TsaResponseError(`TSA ${url} token unreadable: ${(error as Error).message}`, { cause: error });
  }
  if (token.nonce !== nonce) throw new TsaResponseError(`TSA ${url} did not echo our nonce`);
  if (token.imprintAlgorithm !== OID.sha256 || !bytesEqual(token.imprint, digest)) {
    throw new TsaResponseError(`TSA ${url} time-stamped a different message imprint`);
  }
  const tokenBlock = (asn1.result as asn1js.Sequence).valueBlock.value[1];
  if (!tokenBlock) throw new TsaResponseError('TimeStampResp has no token');
  return {
    token: new Uint8Array(tokenBlock.valueBeforeDecodeView),
    genTime: token.genTime.toISOString(),
    tsa: url,
  };
}

/** 8 random bytes as a positive INTEGER with no leading zero byte (so DER keeps it as is). */
function randomNonce(): Uint8Array {
  const bytes = new Uint8Array(randomBytes(8));
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x01;
  return bytes;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
