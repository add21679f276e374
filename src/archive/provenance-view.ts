import { unzipSync } from 'fflate';
import { DIGEST_PATH } from './bundle-format.js';
import type { ProvenanceRecord, ProvenanceSignature } from './provenance-record.js';

/**
 * GET /v1/captures/{id}/provenance (docs/capturing.md, Provenance): the stored provenance record — byte for byte the
 * provenance/provenance.json signed inside the WACZ — plus, when there is a bundle, `signature` from its
 * datapackage-digest.json (which cannot be inside what it signs).
 */
export function provenanceSignature(wacz: Uint8Array): ProvenanceSignature | null {
  try {
    const files = unzipSync(wacz, { filter: (file) => file.name === DIGEST_PATH });
    const digest = files[DIGEST_PATH];
    if (!digest) return null;
    const doc = JSON.parse(new TextDecoder().decode(digest)) as {
      hash?: string;
      signedData?: { keyId?: string; created?: string; timestamp?: { genTime?: string; tsa?: string } };
    };
    const sd = doc.signedData;
    if (!doc.hash || !sd?.keyId || !sd.created) return null;
    return {
      bundleHash: doc.hash,
      keyId: sd.keyId,
      signedAt: sd.created,
      timestamp:
        sd.timestamp?.genTime && sd.timestamp.tsa ? { genTime: sd.timestamp.genTime, tsa: sd.timestamp.tsa } : null,
    };
  } catch {
    return null;
  }
}

export function parseProvenance(bytes: Uint8Array): ProvenanceRecord {
  return JSON.parse(new TextDecoder().decode(bytes)) as ProvenanceRecord;
}
