import { serveNotary } from '../archive/notary-service.js';
import type { ProcessRuntime } from './process-runtime.js';

/** The signer role: the only one that holds the signing key; it renders nothing and answers hashes (notary-service.ts). */
export function startSignerRole(runtime: ProcessRuntime): () => Promise<void> {
  const notary = runtime.evidence.notary;
  if (!notary) return async () => undefined; // SIGNING_KEY=none: nothing to sign
  const service = serveNotary(runtime.nats.nc, notary, runtime.log.child({ role: 'signer' }));
  return () => service.stop();
}
