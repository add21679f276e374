import type { EventEnvelope } from '../../src/ledger/envelope.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import { readModel, type Sql } from './read-model.js';

/**
 * `signing_keys` and `tsa_certificates`: the identities verification needs, published on the log by the
 * processes that hold them (system events on `ledger.system`, DESIGN decision 10). Not per tenant, so not
 * in the tenant audit.
 */

const EVIDENCE_KEYS_HANDLES = ['signing.key_rotated', 'tsa.certificate_published'] as const;

export interface SigningKeyRow {
  key_id: string;
  public_key: string;
  archived_at: Date;
  is_current: boolean;
}

export interface TsaCertificateRow {
  fingerprint: string;
  ca_cert_pem: string;
  published_at: Date;
}

// ---- batch writer (rare events: one statement each, in order) ------------------------------------------

function createEvidenceKeysWriter(q: Sql) {
  return {
    async apply(stored: StoredEvent): Promise<void> {
      const e = stored.event as EventEnvelope;
      if (e.type === 'tsa.certificate_published') {
        await q.query(
          'INSERT INTO tsa_certificates (fingerprint, ca_cert_pem, published_at) VALUES ($1, $2, $3) ON CONFLICT (fingerprint) DO NOTHING',
          [e.data.fingerprint, e.data.caCertPem, e.data.publishedAt],
        );
      } else if (e.type === 'signing.key_rotated') {
        await q.query('UPDATE signing_keys SET is_current = false WHERE is_current');
        await q.query(
          `INSERT INTO signing_keys (key_id, public_key, archived_at, is_current) VALUES ($1, $2, $3, true)
           ON CONFLICT (key_id) DO UPDATE SET is_current = true`,
          [e.data.keyId, e.data.publicKey, e.data.rotatedAt],
        );
      }
    },
  };
}

// ---- queries --------------------------------------------------------------------------------------------

/** Every signing key ever used, oldest first (spec 4.10). */
export async function listSigningKeys(q: Sql): Promise<SigningKeyRow[]> {
  return (
    await q.query<SigningKeyRow>(
      'SELECT key_id, public_key, archived_at, is_current FROM signing_keys ORDER BY archived_at, key_id',
    )
  ).rows;
}

/** CA certificates of the built-in TSAs, oldest first. */
export async function listTsaCertificates(q: Sql): Promise<TsaCertificateRow[]> {
  return (
    await q.query<TsaCertificateRow>(
      'SELECT fingerprint, ca_cert_pem, published_at FROM tsa_certificates ORDER BY published_at, fingerprint',
    )
  ).rows;
}

// ---- the read model (system events; not in the tenant audit) ----------------------------------------------

export const evidenceKeysReadModel = readModel({
  name: 'evidenceKeys',
  tables: ['signing_keys', 'tsa_certificates'],
  handles: EVIDENCE_KEYS_HANDLES,
  system: true,
  writer: createEvidenceKeysWriter,
});
