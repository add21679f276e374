import { digestBytesOf, sha256Prefixed, utf8 } from './bytes.js';
import { certificateMessage } from './certificate.js';
import { fail, isObject, pass, skip, text, verdict, type Check, type TrustAnchors } from './format.js';
import { checkPublishedSignature } from './signature.js';
import { checkTimestamp } from './timestamp.js';

/**
 * The diff of two captures as evidence (docs/watch.md): a JSON file holding the diff record — exact
 * canonical JSON naming both captures, their bundle hashes, the options and the SHA-256 of each part of the diff —,
 * its hash, the service's Ed25519 attestation and an RFC 3161 timestamp of that hash. The attestation is the
 * one a capture certificate carries (certificateMessage: newer capture id, its bundle hash, the attested
 * document's hash), the attested document being the record.
 */
export const DIFF_FORMAT = 'capture-ledger-diff/1';

export interface DiffEvidence {
  format: typeof DIFF_FORMAT;
  /** The record, as the exact string whose UTF-8 bytes are hashed and attested. */
  record: string;
  recordHash: string;
  signature: { algorithm: 'Ed25519'; keyId: string; publicKey: string; signature: string; signedAt: string };
  timestamp: { token: string; genTime: string; tsa: string } | null;
}

export interface DiffSideRecord {
  captureId: string;
  url: string;
  completedAt: string;
  bundleHash: string;
}

interface DiffRecordFacts {
  base: DiffSideRecord;
  capture: DiffSideRecord;
  changed: boolean;
  summary: unknown;
}

export type DiffCheckName = 'envelope' | 'recordHash' | 'signature' | 'timestamp';

export interface DiffVerification {
  verified: boolean;
  kind: 'diff';
  /** null unless the signature verifies (it covers the record through its hash). */
  diff: DiffRecordFacts | null;
  /**
   * null unless the signature verifies. `signedAt` and `timestamp.tsa` are always null: the file states them beside
   * the signed record, and no check covers them. `timestamp` is null unless the timestamp check passed.
   */
  signing: {
    keyId: string;
    signedAt: null;
    timestamp: { genTime: string; tsa: null; selfIssued?: boolean } | null;
  } | null;
  checks: Check<DiffCheckName>[];
}

/** Whether `bytes` is a diff evidence file (JSON naming DIFF_FORMAT), told from bundles and certificates. */
export function isDiffEvidence(bytes: Uint8Array): boolean {
  if (bytes[0] !== 0x7b) return false;
  const head = new TextDecoder().decode(bytes.subarray(0, 200));
  return head.includes(`"format":"${DIFF_FORMAT}"`) || head.includes(`"format": "${DIFF_FORMAT}"`);
}

export async function verifyDiff(bytes: Uint8Array, trust: TrustAnchors): Promise<DiffVerification> {
  const checks: Check<DiffCheckName>[] = [];
  let envelope: DiffEvidence | null = null;
  let record = null as DiffRecordFacts | null;
  try {
    const parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
    if (!isObject(parsed) || parsed['format'] !== DIFF_FORMAT) throw new Error(`not a ${DIFF_FORMAT} file`);
    if (typeof parsed['record'] !== 'string' || typeof parsed['recordHash'] !== 'string')
      throw new Error('record and recordHash must be strings');
    if (!isObject(parsed['signature'])) throw new Error('signature must be an object');
    envelope = parsed as unknown as DiffEvidence;
    const r = JSON.parse(envelope.record) as Record<string, unknown>;
    if (!isObject(r) || r['kind'] !== 'capture-diff' || !isObject(r['base']) || !isObject(r['capture']))
      throw new Error('the record is not a capture-diff record');
    record = r as unknown as DiffRecordFacts;
    checks.push(
      pass('envelope', `${DIFF_FORMAT}: diff of ${record.capture.captureId} against ${record.base.captureId}`),
    );
  } catch (error) {
    checks.push(fail('envelope', (error as Error).message));
  }
  if (!envelope || !record) {
    checks.push(
      skip('recordHash', 'envelope check failed'),
      skip('signature', 'envelope check failed'),
      skip('timestamp', 'envelope check failed'),
    );
    return { verified: false, kind: 'diff', diff: null, signing: null, checks };
  }

  const recordBytes = utf8(envelope.record);
  const computed = await sha256Prefixed(recordBytes);
  const hashOk = computed === envelope.recordHash;
  checks.push(
    hashOk
      ? pass('recordHash', computed)
      : fail('recordHash', `the record hashes to ${computed} but the file states ${envelope.recordHash}`),
  );
  let selfIssued = false;
  if (!hashOk) {
    checks.push(skip('signature', 'recordHash check failed'), skip('timestamp', 'recordHash check failed'));
  } else {
    const sig = envelope.signature;
    checks.push(
      await checkPublishedSignature(
        'signature',
        {
          keyId: sig.keyId,
          signature: sig.signature,
          embeddedPublicKey: sig.publicKey,
          algorithm: sig.algorithm,
          message: certificateMessage(record.capture.captureId, record.capture.bundleHash, envelope.recordHash),
        },
        trust.keys,
      ),
    );
    if (envelope.timestamp === null) {
      checks.push(skip('timestamp', 'the diff was signed without a timestamp (TSA_URL=none)'));
    } else {
      const outcome = await checkTimestamp(
        'timestamp',
        envelope.timestamp,
        recordBytes,
        digestBytesOf(computed) as Uint8Array,
        trust,
        'diff record digest',
      );
      selfIssued = outcome.selfIssued;
      checks.push(outcome.check);
    }
  }
  // Shown only what a passing check covers: the record's facts and the signer's key rest on the signature over the
  // record hash; the timestamp's genTime on the timestamp check. signedAt and the TSA's URL stand beside the signed
  // record and no check covers them, so they are never repeated (null).
  const signed = checks.some((c) => c.name === 'signature' && c.status === 'pass');
  const stamped = checks.some((c) => c.name === 'timestamp' && c.status === 'pass');
  return {
    verified: verdict(checks),
    kind: 'diff',
    diff: signed
      ? { base: record.base, capture: record.capture, changed: record.changed, summary: record.summary }
      : null,
    signing: signed
      ? {
          keyId: text(envelope.signature.keyId),
          signedAt: null,
          timestamp:
            stamped && isObject(envelope.timestamp)
              ? { genTime: text(envelope.timestamp.genTime), tsa: null, ...(selfIssued ? { selfIssued: true } : {}) }
              : null,
        }
      : null,
    checks,
  };
}
