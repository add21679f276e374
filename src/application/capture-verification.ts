import { type VerificationResult, verifyBundle } from '../../packages/verifier/src/index.js';
import type { Evidence } from '../archive/evidence-runtime.js';
import type { ServiceContext } from './service-context.js';
import { PENDING_RETRY_AFTER_S, refusal } from '../domain/errors.js';
import { iso } from '../domain/clock.js';
import { createVerificationCache } from './verification-cache.js';
import { ArtifactCorruptError, type ArtifactStore } from '../storage/artifact-store.js';
import { isId } from '../domain/ids.js';
import type { TransparencyService } from '../transparency/log-service.js';
import { captureTransparency, checkpointWitnesses } from '../transparency/verify-transparency.js';
import { verificationResult } from './verification-result.js';
import { type CaptureRow, findCapture } from '../../projections/read-models/captures.js';
import { listSigningKeys, listTsaCertificates } from '../../projections/read-models/evidence-keys.js';

/**
 * Verification of a capture's signed bundle (spec 2.6, 4.9) against the published keys and trusted TSAs.
 * The verify route (JSON and page) and the MCP verify tool call this (DESIGN decision 15).
 */

export type CaptureVerification = ReturnType<typeof createCaptureVerification>;

/** A complete capture with a bundle small enough to verify here. */
export type VerifiableCapture = CaptureRow & { artifacts: { wacz: string }; bundle: NonNullable<CaptureRow['bundle']> };

/** The result for a bundle whose stored bytes are damaged: the first check fails and names why, the rest are skipped. */
function damagedInStorage(detail: string): VerificationResult {
  const skipped = (name: 'bundleHash' | 'signature') => ({
    name,
    status: 'skip' as const,
    detail: 'artifactHashes failed',
  });
  return {
    verified: false,
    version: null,
    signing: null,
    checks: [
      { name: 'artifactHashes', status: 'fail', detail: `the bundle in storage is damaged: ${detail}` },
      skipped('bundleHash'),
      skipped('signature'),
    ],
  };
}

/** `log`: the public transparency log, when this process follows it (docs/transparency.md): its result stands beside the checks. */
export function createCaptureVerification(
  ctx: ServiceContext,
  artifacts: ArtifactStore,
  evidence: Evidence,
  log?: TransparencyService,
) {
  const verifications = createVerificationCache();

  async function publishedKeys() {
    return (await listSigningKeys(ctx.pool)).map((k) => ({
      keyId: k.key_id,
      algorithm: 'Ed25519' as const,
      publicKey: k.public_key,
      archivedAt: iso(k.archived_at)!,
      current: k.is_current,
    }));
  }

  /** Timestamps are trusted when they chain to a configured CA or to a built-in TSA published on the log. */
  async function trustedTsaCertificates() {
    return listTsaCertificates(ctx.pool);
  }

  return {
    publishedKeys,
    trustedTsaCertificates,

    /** 404 unless the capture has a signed bundle; 422 when the bundle is over VERIFY_MAX_BYTES (spec 4.9). */
    async verifiable(captureId: string): Promise<VerifiableCapture> {
      const row = isId('cap', captureId) ? await findCapture(ctx.pool, captureId) : undefined;
      if (row?.status === 'pending') {
        // Spec 4.9 keeps the 404; its detail tells "not yet" from "never".
        throw refusal(
          404,
          `Capture ${captureId} is still pending: its bundle is signed when it completes. Poll GET /v1/captures/${captureId}/status and verify then.`,
          { headers: { 'Retry-After': String(PENDING_RETRY_AFTER_S) } },
        );
      }
      if (row?.status !== 'complete' || !row.bundle || !row.artifacts?.wacz) {
        throw refusal(
          404,
          `Capture ${captureId} has no signed bundle to verify (unknown, not complete, partial, or made without a signing key).`,
        );
      }
      if (row.bundle.size > ctx.config.VERIFY_MAX_BYTES) {
        throw refusal(
          422,
          `The bundle is ${row.bundle.size} bytes; this service verifies bundles up to ${ctx.config.VERIFY_MAX_BYTES} bytes. Download it and use the offline verifier.`,
        );
      }
      return row as VerifiableCapture;
    },

    /**
     * The verification result (spec 2.6): 'verified' false, never an error, when a check fails. The transparency
     * log's result, where this deployment runs one, is the `transparency` extension beside the spec's checks.
     */
    async verify(row: VerifiableCapture) {
      const captureId = row.capture_id;
      const wacz = row.artifacts.wacz;
      // Keyed by what is stored now: a bundle altered or replaced in storage is verified afresh.
      const stored = await artifacts.digest(wacz);
      const result = await verifications.get(`${captureId}:${stored}`, async () => {
        const bytes = await artifacts.get(wacz).catch((err: unknown) => {
          if (err instanceof ArtifactCorruptError) return err;
          throw err;
        });
        if (!bytes) return null;
        // Stored, but not whole: said as such; `capture-ledger storage verify` finds every such object.
        if (bytes instanceof ArtifactCorruptError) return damagedInStorage(bytes.message);
        const published = (await trustedTsaCertificates()).map((c) => c.ca_cert_pem);
        return verifyBundle(Buffer.from(bytes), {
          keys: await publishedKeys(),
          tsaCaCertsPem: [...evidence.tsaCaCertsPem, ...published],
          // Every built-in TSA is self-issued: this process's own and those published on the log.
          selfIssuedTsaCaCertsPem: [...evidence.localTsaCaCertsPem, ...published],
        });
      });
      const transparency = log ? await captureTransparency(log, captureId, result) : null;
      return verificationResult(row, result, transparency, await checkpointWitnesses(log?.witnessPolicy, transparency));
    },
  };
}
