import type pg from 'pg';
import type { Evidence } from '../archive/evidence-runtime.js';
import type { TrustAnchors } from '../../packages/verifier/src/index.js';
import { listSigningKeys, listTsaCertificates } from '../../projections/read-models/evidence-keys.js';
import { iso } from '../domain/clock.js';

/**
 * What this deployment's verifications trust: the signing keys published on the log (never a key found in the
 * evidence), and TSA roots from TSA_CA_CERTS, this DATA_DIR's built-in TSA and every built-in TSA published on
 * the log — the built-in ones reported as self-issued — and the transparency log's verifier key as its sequencer
 * published it on TLOG (a certificate's inclusion proof). Used by GET /v1/verify/{id}, the certificate and its check.
 */
export interface DeploymentTrust {
  /** Published keys, newest state of the log's projection; `current` marks the key signing now. */
  keys(): Promise<
    Array<{ keyId: string; algorithm: 'Ed25519'; publicKey: string; archivedAt: string; current: boolean }>
  >;
  anchors(): Promise<TrustAnchors>;
}

export function deploymentTrust(
  pool: pg.Pool,
  evidence: Pick<Evidence, 'tsaCaCertsPem' | 'localTsaCaCertsPem'>,
  logKey: () => Promise<string | null> = async () => null,
): DeploymentTrust {
  async function keys() {
    return (await listSigningKeys(pool)).map((k) => ({
      keyId: k.key_id,
      algorithm: 'Ed25519' as const,
      publicKey: k.public_key,
      archivedAt: iso(k.archived_at)!,
      current: k.is_current,
    }));
  }
  return {
    keys,
    async anchors() {
      const published = (await listTsaCertificates(pool)).map((c) => c.ca_cert_pem);
      const log = await logKey();
      return {
        keys: (await keys()).map(({ current: _c, ...k }) => k),
        tsaCaCertsPem: [...evidence.tsaCaCertsPem, ...published],
        selfIssuedTsaCaCertsPem: [...evidence.localTsaCaCertsPem, ...published],
        ...(log ? { logKeys: [log] } : {}),
      };
    },
  };
}
