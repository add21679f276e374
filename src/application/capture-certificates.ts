import { ArtifactCorruptError } from '../storage/artifact-store.js';
import { refusal, stillPending, unavailable } from '../domain/errors.js';
import { isId } from '../domain/ids.js';
import { CertificateNotReady, CertificateRefused, type Certificates } from '../evidence/certificate.js';
import type { DeploymentTrust } from '../evidence/trust-anchors.js';
import { verifyCertificate } from '../../packages/verifier/src/index.js';
import { createConcurrencyLimit } from './concurrency-limit.js';

/**
 * The capture certificate (docs/evidence.md, The certificate a reader gets): its PDF and the check of an uploaded one. The REST routes
 * (src/api/routes/certificates.ts) and the MCP get_certificate tool call this (DESIGN decision 15).
 */

export type CaptureCertificates = ReturnType<typeof createCaptureCertificates>;

export interface CertificateLookup {
  /** The bundle hash this service records for a complete capture; null when it has none. */
  bundleHashOf(captureId: string): Promise<string | null>;
  /** The capture's status, or null for an unknown capture. */
  statusOf(captureId: string): Promise<'pending' | 'complete' | 'failed' | null>;
}

/** Uploaded certificates checked at once; more wait (as GET /v1/verify/{id} does, verification-cache.ts). */
const CERTIFICATE_VERIFICATIONS_AT_ONCE = 2;

export function createCaptureCertificates(
  certificates: Certificates,
  trust: DeploymentTrust,
  lookup: CertificateLookup,
) {
  const slot = createConcurrencyLimit(CERTIFICATE_VERIFICATIONS_AT_ONCE);
  return {
    /**
     * The PDF; 409 with Retry-After while the capture is pending; 404 unless it is complete with a signed bundle; 503 with Retry-After when no signer answered
     * or the bundle is not in a published transparency-log checkpoint yet; 500 when the log holds another leaf for it.
     */
    async certificatePdf(captureId: string, log?: { warn(obj: object, msg: string): void }): Promise<Uint8Array> {
      let pdf: Uint8Array | null = null;
      if (isId('cap', captureId)) {
        try {
          pdf = await certificates.certificate(captureId);
        } catch (err) {
          if (err instanceof CertificateNotReady) {
            throw unavailable(err.message, err.retryAfterSec);
          }
          if (err instanceof CertificateRefused) {
            log?.warn({ err, captureId }, 'certificate refused');
            throw refusal(
              500,
              `No certificate can be issued for capture ${captureId}: ${err.message}. Run \`capture-ledger log audit\` and report it to the operator.`,
            );
          }
          // A stored object lost or damaged is a loss to report (500 naming it), not a signer to wait for.
          if (err instanceof ArtifactCorruptError) throw err;
          log?.warn({ err, captureId }, 'certificate could not be made');
          throw unavailable('The certificate could not be signed now (no signer answered); retry shortly.', 10);
        }
      }
      if (!pdf && isId('cap', captureId) && (await lookup.statusOf(captureId)) === 'pending')
        throw stillPending(captureId, 'certificate');
      if (!pdf)
        throw refusal(
          404,
          `Capture ${captureId} has no certificate (unknown, not complete, or without a signed bundle).`,
        );
      return pdf;
    },

    /** The package's certificate checks, then `capture`: the capture and bundle it names are this service's record. */
    async verify(bytes: Uint8Array) {
      const result = await slot(async () => verifyCertificate(bytes, await trust.anchors()));
      const named = result.certificate;
      const recorded = named && isId('cap', named.captureId) ? await lookup.bundleHashOf(named.captureId) : null;
      const capture = !named
        ? {
            name: 'capture',
            status: 'skip' as const,
            detail: 'skipped: the certificate names no capture a passing check covers (envelope or signature failed)',
          }
        : recorded === null
          ? {
              name: 'capture',
              status: 'fail' as const,
              detail: `capture ${named.captureId} is not a complete capture of this service`,
            }
          : recorded !== named.bundleHash
            ? {
                name: 'capture',
                status: 'fail' as const,
                detail: `this service records bundle ${recorded} for the capture; the certificate names ${named.bundleHash}`,
              }
            : {
                name: 'capture',
                status: 'pass' as const,
                detail: `capture ${named.captureId} and its bundle hash are this service's record`,
              };
      return { ...result, checks: [...result.checks, capture], verified: result.verified && capture.status !== 'fail' };
    },
  };
}
