import type pg from 'pg';
import { findCapture, findCaptureStatusFields } from '../../projections/read-models/captures.js';
import { certificateTool, verificationTools } from '../api/mcp/mcp-tools.js';
import { startReplayServer } from '../api/replay-server.js';
import { certificateRoutes } from '../api/routes/certificates.js';
import { verificationRoutes } from '../api/routes/verification.js';
import { type CertificateLookup, createCaptureCertificates } from '../application/capture-certificates.js';
import type { CaptureReads } from '../application/capture-reads.js';
import { createCaptureVerification } from '../application/capture-verification.js';
import { createCertificates, openCertificateStore } from '../evidence/certificate.js';
import { certificateStore } from '../evidence/certificate-storage.js';
import { deploymentTrust } from '../evidence/trust-anchors.js';
import type { Corroborations } from '../vantages/corroboration-service.js';
import type { ApiRuntime, Feature } from './feature.js';

export interface VerificationFeature extends Feature {
  /** Where archived pages replay: an origin of its own, never the verifier's. */
  replayOrigin: string;
}

/**
 * Verification and certificates: GET /v1/verify (and the verification page framing the replay server), and the
 * capture certificate PDF, signed by the signer role (in this process when it has that role, else over NATS).
 */
export async function verificationFeature(
  api: ApiRuntime,
  reads: CaptureReads,
  corroborations: Corroborations | undefined,
): Promise<VerificationFeature> {
  const { runtime, data, guard } = api;
  const { config, evidence, log, nats } = runtime;
  const { ctx, artifacts } = data;
  const transparency = runtime.transparency ?? undefined;
  const verification = createCaptureVerification(ctx, artifacts, evidence, transparency);
  const certificateKv = await openCertificateStore(nats.nc, config.NATS_REPLICAS);
  const trust = deploymentTrust(ctx.pool, evidence, async () => (transparency ? transparency.logKey() : null));
  const certificates = createCertificates({
    pool: ctx.pool,
    artifacts,
    // With S3, certificates are stored beside the artifacts, locked like them; the KV bucket stays readable.
    store: certificateStore(artifacts, certificateKv, api.evidenceRetainUntil),
    notary: runtime.evidenceNotary,
    trust,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
    transparency,
    corroborations,
  });
  const captureCertificates = createCaptureCertificates(certificates, trust, certifiedCaptures(ctx.pool));
  const certificatePdf = (captureId: string) => captureCertificates.certificatePdf(captureId, log);
  // Started last: nothing after it can fail and leave it listening.
  const replay = await startReplayServer({ config, verification, reads, guard, log });
  data.ownListeners.add(config.HOST, replay.port);
  return {
    replayOrigin: replay.origin,
    routes: [
      verificationRoutes(
        guard,
        verification,
        evidence,
        replay.origin,
        { publicBaseUrl: config.PUBLIC_BASE_URL, log: Boolean(transparency) },
        corroborations,
      ),
      certificateRoutes(guard, captureCertificates),
    ],
    mcpTools: [...verificationTools({ verification }), certificateTool(certificatePdf, config.PUBLIC_BASE_URL)],
    stop: () => replay.close(),
  };
}

/** What a certificate is checked against: the bundle hash and status the captures read model records. */
function certifiedCaptures(pool: pg.Pool): CertificateLookup {
  return {
    async bundleHashOf(captureId) {
      const row = await findCapture(pool, captureId);
      return row?.status === 'complete' && row.bundle ? row.bundle.bundleHash : null;
    },
    async statusOf(captureId) {
      return (await findCaptureStatusFields(pool, captureId))?.status ?? null;
    },
  };
}
