import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/canonical-json.js';
import type { DomainEvent } from '../domain/events.js';

/**
 * What one leaf of the transparency log says, as RFC 8785 canonical JSON (its UTF-8 bytes are the leaf data
 * that RFC 6962 hashes). Five kinds:
 *
 *   capture        a signed bundle: SHA-256 of its capture ID (the capture ID itself opens the capture's
 *                  artifacts to whoever holds it, so the public log names only its hash), bundleHash, keyId
 *                  and the RFC 3161 genTime (null for a bundle without a timestamp)
 *   signing-key    a bundle-signing key made current: keyId, publicKey, when
 *   tsa-certificate a built-in TSA's CA certificate: SHA-256 fingerprint of its DER, when
 *   corroboration  a corroboration record (docs/evidence.md): SHA-256 of its ID (cor_…), the record's hash, keyId
 *                  and the RFC 3161 genTime of its attestation (null without one)
 *   diff           the diff of two captures issued as evidence (docs/watch.md): SHA-256 of the newer capture's ID,
 *                  the diff record's hash, keyId and the RFC 3161 genTime of its attestation (null without one)
 *
 * Anyone holding a bundle recomputes its leaf from the bundle alone (captureLedgerLeafOfBundle in the verifier).
 */
export type LeafRecord =
  | { v: 1; kind: 'capture'; captureIdHash: string; bundleHash: string; keyId: string; genTime: string | null }
  | { v: 1; kind: 'signing-key'; keyId: string; publicKey: string; rotatedAt: string }
  | { v: 1; kind: 'tsa-certificate'; fingerprint: string; publishedAt: string }
  | { v: 1; kind: 'diff'; captureIdHash: string; recordHash: string; keyId: string; genTime: string | null }
  | {
      v: 1;
      kind: 'corroboration';
      corroborationIdHash: string;
      recordHash: string;
      keyId: string;
      genTime: string | null;
    };

export const captureIdHash = (captureId: string): string =>
  createHash('sha256').update(captureId, 'utf8').digest('hex');

export const encodeLeaf = (leaf: LeafRecord): Uint8Array => new TextEncoder().encode(canonicalJson(leaf));

export function decodeLeaf(data: Uint8Array): LeafRecord {
  const value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data)) as LeafRecord;
  if (value?.v !== 1 || !['capture', 'signing-key', 'tsa-certificate', 'diff', 'corroboration'].includes(value.kind))
    throw new Error('not a capture-ledger log leaf');
  return value;
}

/** The capture leaf of a bundle, from what its datapackage and digest state. */
export function captureLeaf(captureId: string, bundleHash: string, keyId: string, genTime: string | null): LeafRecord {
  return { v: 1, kind: 'capture', captureIdHash: captureIdHash(captureId), bundleHash, keyId, genTime };
}

/** The leaf an event becomes, or null when it is not logged. The one rule every sequencer and monitor applies. */
export function leafOfEvent(event: { type: string; data: unknown }): LeafRecord | null {
  const e = event as DomainEvent;
  switch (e.type) {
    case 'capture.completed': {
      const b = e.data.bundle;
      return b ? captureLeaf(e.data.captureId, b.bundleHash, b.keyId, b.genTime ?? null) : null;
    }
    case 'signing.key_rotated':
      return {
        v: 1,
        kind: 'signing-key',
        keyId: e.data.keyId,
        publicKey: e.data.publicKey,
        rotatedAt: e.data.rotatedAt,
      };
    case 'capture.diff_attested':
      return {
        v: 1,
        kind: 'diff',
        captureIdHash: captureIdHash(e.data.captureId),
        recordHash: e.data.recordHash,
        keyId: e.data.keyId,
        genTime: e.data.genTime,
      };
    case 'capture.corroboration_attested':
      return {
        v: 1,
        kind: 'corroboration',
        corroborationIdHash: captureIdHash(e.data.corroborationId),
        recordHash: e.data.recordHash,
        keyId: e.data.keyId,
        genTime: e.data.genTime,
      };
    case 'tsa.certificate_published':
      return { v: 1, kind: 'tsa-certificate', fingerprint: e.data.fingerprint, publishedAt: e.data.publishedAt };
    default:
      return null;
  }
}
