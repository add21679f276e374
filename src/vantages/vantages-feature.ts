import type { TenantActors } from '../actors/tenant-actors.js';
import { openCertificateStore } from '../evidence/certificate.js';
import type { ApiRuntime, Feature } from '../features/feature.js';
import {
  type CorroborationSet,
  type Corroborations,
  createCorroborations,
  type SignedCorroboration,
} from './corroboration-service.js';
import { corroborationStore } from './corroboration-storage.js';
import { vantageRoutes } from './vantage-routes.js';

export interface VantagesFeature extends Feature {
  /** Corroborated sets, which admission plans and verification and certificates show; absent when nothing is signed. */
  corroborations: Corroborations | undefined;
}

/**
 * Vantage points and corroborated captures: GET /v1/vantages, and the signed records of corroborated sets,
 * kept in the certificates bucket (with S3, under each member capture, locked like its evidence).
 */
export async function vantagesFeature(api: ApiRuntime): Promise<VantagesFeature> {
  const { runtime, data, guard } = api;
  const { config, nats } = runtime;
  const corroborations = runtime.evidenceNotary
    ? createCorroborations({
        pool: data.ctx.pool,
        artifacts: data.artifacts,
        store: corroborationStore(
          data.artifacts,
          await openCertificateStore(nats.nc, config.NATS_REPLICAS),
          api.evidenceRetainUntil,
        ),
        notary: runtime.evidenceNotary,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        recordAttestation: attestationRecorder(data.ctx.tenants),
      })
    : undefined;
  return { corroborations, routes: [vantageRoutes(guard, config.VANTAGES, corroborations)] };
}

/**
 * Records a record just signed on its set's tenant's ledger (`capture.corroboration_attested`), from which the
 * sequencer logs it as a `corroboration` leaf.
 */
function attestationRecorder(tenants: TenantActors) {
  return async (set: CorroborationSet, signed: SignedCorroboration): Promise<void> => {
    await tenants.execute(
      set.tenantId,
      {
        type: 'RecordCorroborationAttestation',
        data: {
          corroborationId: set.id,
          captureIds: set.members.map((m) => m.captureId),
          recordHash: signed.recordHash,
          keyId: signed.signature.keyId,
          genTime: signed.timestamp?.genTime ?? null,
        },
      },
      { correlationId: set.id, causedBy: { kind: 'system', component: 'corroboration' } },
    );
  };
}
