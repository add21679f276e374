import type { KV } from '@nats-io/kv';
import type { ArtifactStore } from '../storage/artifact-store.js';

/** Where an issued certificate is kept (certificate.ts: made once, then served as stored). */
export type CertificateStore = Pick<KV, 'get' | 'create'>;

/** The object name of a capture's certificate in the artifact store. */
export const certificateObjectName = (captureId: string) => `${captureId}/certificate.pdf`;

/**
 * Where the artifact store keeps what is made of a capture (`keepsMadeEvidence`: S3), certificates live in it beside the capture's other objects (write-once: a second
 * maker's different bytes are refused, and certificate.ts then serves the first), locked like them until
 * `retainUntil(captureId)` (retention.ts evidenceRetention). One issued before the move, in the KV bucket, is still
 * found there and never made again. Otherwise (JetStream) they stay in the KV bucket.
 */
export function certificateStore(
  artifacts: ArtifactStore,
  kv: CertificateStore,
  retainUntil: (captureId: string) => Promise<Date | null> = async () => null,
): CertificateStore {
  if (!artifacts.keepsMadeEvidence) return kv;
  return {
    async get(captureId: string) {
      const value = await artifacts.get(certificateObjectName(captureId));
      if (value) return { operation: 'PUT', value } as Awaited<ReturnType<KV['get']>>;
      return kv.get(captureId);
    },
    async create(captureId: string, pdf: Uint8Array | string) {
      const bytes = typeof pdf === 'string' ? new TextEncoder().encode(pdf) : pdf;
      const until = await retainUntil(captureId);
      await artifacts.put(certificateObjectName(captureId), bytes, until ? { retainUntil: until } : {});
      return 0;
    },
  } as CertificateStore;
}
