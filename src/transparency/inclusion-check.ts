import { CheckpointError, openCheckpoint, parseVerifierKey } from './checkpoint.js';
import { captureLeaf, encodeLeaf } from './leaf.js';
import { leafHash, verifyInclusion } from './merkle.js';

/**
 * The `transparency` check of a verification: the capture's leaf — recomputed from the bundle itself, never
 * taken from the log — is included, by the proof, in the tree of a checkpoint signed by the log's note key.
 * Pure (no I/O), so the API, the offline CLI and a standalone verifier run the same code.
 */
export interface TransparencyEvidence {
  /** The log's verifier key, `<origin>+<hex key hash>+<base64 key>`. */
  logKey: string;
  /** A signed checkpoint (C2SP signed note) at least as large as leafIndex + 1. */
  checkpoint: string;
  leafIndex: number;
  /** Inclusion proof of leafIndex in the checkpoint's tree, base64 hashes in RFC 9162 order. */
  inclusionProof: string[];
}

export interface BundleFacts {
  captureId: string;
  bundleHash: string;
  keyId: string;
  genTime: string | null;
}

export type TransparencyOutcome = { status: 'pass' | 'fail'; detail: string };

export function checkInclusion(facts: BundleFacts, evidence: TransparencyEvidence): TransparencyOutcome {
  let cp;
  try {
    cp = openCheckpoint(evidence.checkpoint, parseVerifierKey(evidence.logKey));
  } catch (err) {
    if (err instanceof CheckpointError) return { status: 'fail', detail: `checkpoint: ${err.message}` };
    throw err;
  }
  const proof = evidence.inclusionProof.map((h) => Buffer.from(h, 'base64'));
  if (proof.some((h) => h.length !== 32))
    return { status: 'fail', detail: 'the inclusion proof holds a hash that is not 32 bytes' };
  const leaf = leafHash(encodeLeaf(captureLeaf(facts.captureId, facts.bundleHash, facts.keyId, facts.genTime)));
  if (!verifyInclusion(evidence.leafIndex, cp.size, leaf, proof, cp.rootHash)) {
    return {
      status: 'fail',
      detail: `the bundle's leaf is not at index ${evidence.leafIndex} of the checkpoint's tree of ${cp.size} (the log holds another leaf there, or the proof is wrong)`,
    };
  }
  return {
    status: 'pass',
    detail: `leaf ${evidence.leafIndex} of ${cp.origin}, included in its signed checkpoint of ${cp.size} leaves`,
  };
}
