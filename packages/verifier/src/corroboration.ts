import { digestBytesOf, sha256Prefixed, utf8 } from './bytes.js';
import { certificateMessage } from './certificate.js';
import { fail, isObject, pass, skip, verdict, type Check, type TrustAnchors } from './format.js';
import { checkPublishedSignature } from './signature.js';
import { checkTimestamp } from './timestamp.js';
import { canonicalJson } from './transparency.js';

/**
 * A corroboration record (GET /v1/captures/{id}/corroboration when complete) checked offline:
 * `recordHash` is the SHA-256 of the record's RFC 8785 bytes, the Ed25519 signature by a published signing key is
 * over certificateMessage(record.id, CORROBORATION_CONTEXT, recordHash) — the context stands where a certificate
 * names a bundle hash, so neither can pass for the other — and the RFC 3161 token is over the same bytes.
 * A record changed after signing (a verdict turned, a member dropped) fails `recordHash`.
 */
export const CORROBORATION_CONTEXT = 'corroboration-record/1';
export const CORROBORATION_RECORD_FORMAT = 'capture-ledger-corroboration/1';

export type CorroborationCheckName = 'format' | 'recordHash' | 'signature' | 'timestamp';

export interface CorroborationVerification {
  verified: boolean;
  kind: 'corroboration';
  checks: Array<Check<CorroborationCheckName>>;
  /** What the record says, once it verified: the set, its verdict and the fields that differ. */
  corroboration: { id: string; url: string; verdict: string; differing: string[] } | null;
}

export async function verifyCorroboration(signed: unknown, trust: TrustAnchors): Promise<CorroborationVerification> {
  const checks: Array<Check<CorroborationCheckName>> = [];
  const done = (): CorroborationVerification => {
    const valid = verdict(checks);
    const record = isObject(signed) && isObject(signed['record']) ? signed['record'] : null;
    return {
      verified: valid,
      kind: 'corroboration',
      checks,
      corroboration:
        valid && record
          ? {
              id: String(record['id']),
              url: String(record['url']),
              verdict: String(record['verdict']),
              differing: Array.isArray(record['differing']) ? record['differing'].map(String) : [],
            }
          : null,
    };
  };
  if (!isObject(signed) || !isObject(signed['record']) || signed['record']['format'] !== CORROBORATION_RECORD_FORMAT) {
    checks.push(fail('format', `not a ${CORROBORATION_RECORD_FORMAT} record with its signature`));
    return done();
  }
  const record = signed['record'];
  if (typeof record['id'] !== 'string' || typeof signed['recordHash'] !== 'string' || !isObject(signed['signature'])) {
    checks.push(fail('format', 'the record has no id, recordHash or signature'));
    return done();
  }
  checks.push(pass('format', CORROBORATION_RECORD_FORMAT));
  const bytes = utf8(canonicalJson(record));
  const computed = await sha256Prefixed(bytes);
  checks.push(
    computed === signed['recordHash']
      ? pass('recordHash', computed)
      : fail('recordHash', `the record hashes to ${computed}, not the signed ${String(signed['recordHash'])}`),
  );
  const sig = signed['signature'];
  checks.push(
    await checkPublishedSignature(
      'signature',
      {
        keyId: sig['keyId'],
        signature: sig['signature'],
        embeddedPublicKey: sig['publicKey'],
        algorithm: sig['algorithm'],
        message: certificateMessage(record['id'], CORROBORATION_CONTEXT, signed['recordHash']),
      },
      trust.keys,
    ),
  );
  if (signed['timestamp'] === null || signed['timestamp'] === undefined) {
    checks.push(skip('timestamp', 'the record was signed without a timestamp (TSA_URL=none)'));
  } else {
    const outcome = await checkTimestamp(
      'timestamp',
      signed['timestamp'],
      bytes,
      digestBytesOf(computed) as Uint8Array,
      trust,
      'corroboration record digest',
    );
    checks.push(outcome.check);
  }
  return done();
}
