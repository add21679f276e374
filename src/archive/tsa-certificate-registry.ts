import { createHash } from 'node:crypto';
import type { EventStore } from '../ledger/event-store.js';
import { certificateDer, certificatesFromPem } from '../../packages/verifier/src/pki.js';
import { appendSystemEvent } from './system-log.js';

/** SHA-256 (hex) of a PEM certificate's DER: how a published TSA certificate is named. */
export function certificateFingerprint(pem: string): string {
  const [cert] = certificatesFromPem([pem]);
  if (!cert) throw new Error('no certificate in the PEM text');
  return createHash('sha256').update(certificateDer(cert)).digest('hex');
}

/**
 * Publish the built-in TSA's CA certificate on the log once (DESIGN decision 10): every API process and the
 * offline verifier (via GET /.well-known/tsa-certificates) then trust the timestamps of every worker's TSA.
 */
export async function publishTsaCertificate(store: EventStore, caCertPem: string, now: () => Date): Promise<boolean> {
  const fingerprint = certificateFingerprint(caCertPem);
  return appendSystemEvent(
    store,
    (events) =>
      events.some((e) => e.type === 'tsa.certificate_published' && e.data.fingerprint === fingerprint)
        ? null
        : { type: 'tsa.certificate_published', data: { fingerprint, caCertPem, publishedAt: now().toISOString() } },
    { now, causedBy: { kind: 'system', component: 'built-in TSA' }, correlationId: `tsa:${fingerprint.slice(0, 16)}` },
  );
}
