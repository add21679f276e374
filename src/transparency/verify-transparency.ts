import { type Check, type VerificationResult, type VerifyOptions, verdict, verifyBundle } from '../../packages/verifier/src/index.js';
import { checkInclusion, type TransparencyEvidence } from './inclusion-check.js';
import type { TransparencyService } from './log-service.js';

/** The log's proof for a bundle, or why there is none (the check is then 'skip'). */
export type TransparencyInput = TransparencyEvidence | { unavailable: string };

/**
 * The `transparency` check of a bundle already verified by the verifier package (packages/verifier appends
 * no log checks itself: its callers do, spec checks first). The leaf is made from the bundle's own statements
 * (captureId, bundleHash, keyId, genTime), never taken from the log; skipped when bundleHash failed.
 */
export function bundleTransparencyCheck(result: VerificationResult, evidence: TransparencyInput): Check<'transparency'> {
  const hashOk = result.checks.find((c) => c.name === 'bundleHash')?.status === 'pass';
  if (!hashOk) return { name: 'transparency', status: 'skip', detail: 'bundleHash check failed' };
  if ('unavailable' in evidence) return { name: 'transparency', status: 'skip', detail: evidence.unavailable };
  const captureId = result.capture?.captureId;
  const signing = result.signing;
  if (!captureId || !signing?.keyId || !signing.bundleHash) {
    return { name: 'transparency', status: 'fail', detail: 'datapackage.json does not name the captureId and keyId its log leaf is made of' };
  }
  const outcome = checkInclusion({ captureId, bundleHash: signing.bundleHash, keyId: signing.keyId, genTime: signing.timestamp?.genTime ?? null }, evidence);
  return { name: 'transparency', status: outcome.status, detail: outcome.detail };
}

/** `result` with the transparency check appended and `verified` recomputed over every check. */
export function withTransparency<R extends VerificationResult>(result: R, evidence: TransparencyInput): Omit<R, 'checks'> & { checks: Check[] } {
  const checks: Check[] = [...result.checks, bundleTransparencyCheck(result, evidence)];
  return { ...result, checks, verified: verdict(checks) };
}

/** verifyBundle of the verifier package, plus the transparency check when `transparency` is given. */
export async function verifyBundleWithLog(bytes: Uint8Array, options: VerifyOptions & { transparency?: TransparencyInput | undefined }) {
  const { transparency, ...trust } = options;
  const result = await verifyBundle(bytes, trust);
  return transparency ? withTransparency(result, transparency) : { ...result, checks: result.checks as Check[] };
}

/**
 * The API's `transparency` check for a stored capture, appended after the spec's checks. It is not cached with
 * the bundle's verification: a leaf and a checkpoint appear after the bundle was verified once. The leaf is made
 * from what the verified bundle states (bundleHash, keyId, genTime) and the capture ID it was fetched under.
 * null: no sequencer has ever published a log key here, so there is no log to check against.
 */
export async function transparencyCheck(
  log: TransparencyService,
  captureId: string,
  result: VerificationResult | null,
): Promise<{ check: Check<'transparency'>; evidence: TransparencyEvidence | null } | null> {
  // A deployment that never ran a sequencer has no log: no check at all, as before the log existed.
  if (!(await log.logKey())) return null;
  const hashOk = result?.checks.find((c) => c.name === 'bundleHash')?.status === 'pass';
  if (!result?.signing || !hashOk) return { check: { name: 'transparency', status: 'skip', detail: 'bundleHash check failed' }, evidence: null };
  const evidence = await log.evidenceFor(captureId, { onDemand: true });
  if ('unavailable' in evidence) return { check: { name: 'transparency', status: 'skip', detail: evidence.unavailable }, evidence: null };
  const { signing } = result;
  const outcome = checkInclusion({ captureId, bundleHash: signing.bundleHash, keyId: signing.keyId, genTime: signing.timestamp?.genTime ?? null }, evidence);
  return { check: { name: 'transparency', status: outcome.status, detail: outcome.detail }, evidence };
}
