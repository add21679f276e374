import type { Check, VerificationResult } from '../archive/bundle-verifier.js';
import { checkInclusion, type TransparencyEvidence } from './inclusion-check.js';
import type { TransparencyService } from './log-service.js';

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
): Promise<{ check: Check; evidence: TransparencyEvidence | null } | null> {
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
