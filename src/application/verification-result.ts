import { type BundleCheck, type VerificationResult, verdict } from '../../packages/verifier/src/index.js';
import { iso } from '../domain/clock.js';
import type { CaptureRow } from '../../projections/read-models/captures.js';
import type { TransparencyResult } from '../transparency/verify-transparency.js';
import type { WitnessReport } from '../../packages/verifier/src/witnesses.js';

/** The check names of spec 2.6, in its order: the only names `checks` ever holds (a contract test pins them). */
export const SPEC_CHECK_NAMES = ['artifactHashes', 'bundleHash', 'signature', 'timestamp'] as const;

/** When the bundle is gone from storage, the spec's three checks say so. */
const MISSING_BUNDLE: BundleCheck[] = [
  { name: 'artifactHashes', status: 'fail', detail: 'the bundle is missing from storage' },
  { name: 'bundleHash', status: 'skip', detail: 'artifactHashes failed' },
  { name: 'signature', status: 'skip', detail: 'artifactHashes failed' },
];

/**
 * The verification result of spec 2.6 for a stored capture, from the verifier package's result (null: the bundle
 * is missing from storage). `checks` and `verified` are exactly the spec's; the transparency log's result, an
 * extension, stands beside them in `transparency` (README) and does not change `verified`. Pure.
 */
export function verificationResult(
  row: CaptureRow,
  bundle: VerificationResult | null,
  transparency: TransparencyResult | null,
  /** The witnesses' cosignatures on the transparency checkpoint, an extension beside it (docs/transparency.md). */
  witnesses: WitnessReport | null = null,
) {
  const checks: BundleCheck[] = bundle?.checks ?? MISSING_BUNDLE;
  return {
    verified: verdict(checks),
    capture: {
      id: row.capture_id,
      // Extension beside spec 2.6: what was captured, so an agent need not look it up.
      url: row.url,
      createdAt: iso(row.created_at)!,
      completedAt: iso(row.completed_at)!,
      ...(row.render_quality ? { renderQuality: row.render_quality } : {}),
    },
    signing: bundle?.signing
      ? {
          bundleHash: bundle.signing.bundleHash,
          signature: bundle.signing.signature,
          publicKey: bundle.signing.publicKey,
          keyId: bundle.signing.keyId,
          signedAt: bundle.signing.signedAt,
          timestamp: bundle.signing.timestamp,
        }
      : null,
    checks,
    ...(row.capture_settings ? { captureSettings: row.capture_settings } : {}),
    ...(transparency ? { transparency } : {}),
    ...(witnesses ? { witnesses } : {}),
  };
}
