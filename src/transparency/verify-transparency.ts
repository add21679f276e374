import { type VerificationResult, type VerifyOptions, verifyBundle } from '../../packages/verifier/src/index.js';
import { checkInclusion, type TransparencyEvidence } from './inclusion-check.js';
import type { TransparencyService, WitnessPolicy } from './log-service.js';
import { checkWitnessQuorum, type WitnessReport } from '../../packages/verifier/src/witnesses.js';

/** The log's proof for a bundle, or why there is none (the result is then 'skip'). */
export type TransparencyInput = TransparencyEvidence | { unavailable: string };

/**
 * The transparency-log extension of a bundle's verification result (docs/transparency.md, "Verification: the transparency
 * extension"): whether the bundle's leaf is in a checkpoint signed by the log, and the proof it was checked with.
 * It stands beside the spec's `checks` (spec 2.6 enumerates their names and counts them), never among them, and
 * takes no part in the spec's `verified`. 'skip' when bundleHash failed or the log has no proof yet.
 */
export interface TransparencyResult extends Partial<TransparencyEvidence> {
  status: 'pass' | 'fail' | 'skip';
  detail: string;
}

/**
 * The transparency result of a bundle already verified by the verifier package (packages/verifier knows no log:
 * its callers check it). The leaf is made from the bundle's own statements (captureId, bundleHash, keyId,
 * genTime), never taken from the log.
 */
export function bundleTransparency(result: VerificationResult, evidence: TransparencyInput): TransparencyResult {
  const hashOk = result.checks.find((c) => c.name === 'bundleHash')?.status === 'pass';
  if (!hashOk) return { status: 'skip', detail: 'bundleHash check failed' };
  if ('unavailable' in evidence) return { status: 'skip', detail: evidence.unavailable };
  const captureId = result.capture?.captureId;
  const signing = result.signing;
  if (!captureId || !signing?.keyId || !signing.bundleHash) {
    return { status: 'fail', detail: 'datapackage.json does not name the captureId and keyId its log leaf is made of' };
  }
  return inclusionResult(
    { captureId, bundleHash: signing.bundleHash, keyId: signing.keyId, genTime: signing.timestamp?.genTime ?? null },
    evidence,
  );
}

/** `result` with the transparency extension beside it; `checks` and `verified` stay the spec's. */
export function withTransparency<R extends VerificationResult>(
  result: R,
  evidence: TransparencyInput,
): R & { transparency: TransparencyResult } {
  return { ...result, transparency: bundleTransparency(result, evidence) };
}

/** verifyBundle of the verifier package, plus the transparency extension when `transparency` is given. */
export async function verifyBundleWithLog(
  bytes: Uint8Array,
  options: VerifyOptions & { transparency?: TransparencyInput | undefined },
): Promise<VerificationResult & { transparency?: TransparencyResult }> {
  const { transparency, ...trust } = options;
  const result = await verifyBundle(bytes, trust);
  return transparency ? withTransparency(result, transparency) : result;
}

/**
 * The API's transparency result for a stored capture. It is not cached with the bundle's verification: a leaf
 * and a checkpoint appear after the bundle was verified once. The leaf is made from what the verified bundle
 * states (bundleHash, keyId, genTime) and the capture ID it was fetched under.
 * null: no sequencer has ever published a log key here, so there is no log to check against.
 */
export async function captureTransparency(
  log: TransparencyService,
  captureId: string,
  result: VerificationResult | null,
): Promise<TransparencyResult | null> {
  // A deployment that never ran a sequencer has no log: no transparency field at all, as before the log existed.
  if (!(await log.logKey())) return null;
  const hashOk = result?.checks.find((c) => c.name === 'bundleHash')?.status === 'pass';
  if (!result?.signing || !hashOk) return { status: 'skip', detail: 'bundleHash check failed' };
  const evidence = await log.evidenceFor(captureId, { onDemand: true });
  if ('unavailable' in evidence) return { status: 'skip', detail: evidence.unavailable };
  const { signing } = result;
  return inclusionResult(
    { captureId, bundleHash: signing.bundleHash, keyId: signing.keyId, genTime: signing.timestamp?.genTime ?? null },
    evidence,
  );
}

function inclusionResult(
  facts: Parameters<typeof checkInclusion>[0],
  evidence: TransparencyEvidence,
): TransparencyResult {
  const outcome = checkInclusion(facts, evidence);
  return {
    status: outcome.status,
    detail: outcome.detail,
    leafIndex: evidence.leafIndex,
    checkpoint: evidence.checkpoint,
    inclusionProof: evidence.inclusionProof,
    logKey: evidence.logKey,
  };
}

/**
 * The `witnesses` extension of a verify result: whether the checkpoint the transparency result was checked against
 * is cosigned by a quorum of the deployment's witnesses (LOG_WITNESSES, LOG_WITNESS_QUORUM). null when the
 * deployment has no witnesses or no checkpoint covers the bundle yet.
 */
export async function checkpointWitnesses(
  policy: WitnessPolicy | undefined,
  transparency: TransparencyResult | null,
): Promise<WitnessReport | null> {
  if (!policy || policy.witnesses.length === 0 || !transparency?.checkpoint) return null;
  return checkWitnessQuorum(
    transparency.checkpoint,
    policy.witnesses.map((w) => w.vkey),
    policy.quorum,
  );
}
