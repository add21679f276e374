import { unzipSync } from 'fflate';
import { type NoteVerifier, openCheckpoint } from './checkpoint.js';
import type { TransparencyEvidence } from './inclusion-check.js';
import type { LogClient } from './log-client.js';
import { verifyConsistency } from './merkle.js';

/**
 * What the offline verifier fetches from a log for one bundle: the latest checkpoint, the bundle's inclusion
 * proof against it, and — given a checkpoint the user saved earlier — whether today's tree is consistent with
 * it. Nothing fetched is trusted: the inclusion check itself (inclusion-check.ts) runs on the result.
 */
export function captureIdOfBundle(bytes: Uint8Array): string | null {
  try {
    const files = unzipSync(bytes, { filter: (f) => f.name === 'datapackage.json' });
    const dp = JSON.parse(new TextDecoder().decode(files['datapackage.json'])) as {
      captureLedger?: { captureId?: unknown };
    };
    return typeof dp.captureLedger?.captureId === 'string' ? dp.captureLedger.captureId : null;
  } catch {
    return null;
  }
}

export async function fetchEvidence(
  client: LogClient,
  verifier: NoteVerifier,
  logKey: string,
  captureId: string,
  trustedCheckpoint?: string,
): Promise<TransparencyEvidence | { unavailable: string } | { inconsistent: string }> {
  const note = await client.checkpoint();
  const cp = openCheckpoint(note, verifier);
  if (trustedCheckpoint !== undefined) {
    const trusted = openCheckpoint(trustedCheckpoint, verifier);
    const [first, second] = trusted.size <= cp.size ? [trusted, cp] : [cp, trusted];
    const proof =
      first.size === second.size
        ? []
        : (await client.consistency(first.size, second.size)).map((h) => Buffer.from(h, 'base64'));
    if (!verifyConsistency(first.size, second.size, first.rootHash, second.rootHash, proof)) {
      return {
        inconsistent: `the log's checkpoint of ${cp.size} leaves is not consistent with the trusted checkpoint of ${trusted.size}: the log was rewritten or forked`,
      };
    }
    if (trusted.size > cp.size)
      return {
        inconsistent: `the log went back: the trusted checkpoint has ${trusted.size} leaves, today's ${cp.size}`,
      };
  }
  const proof = await client.inclusionByCapture(captureId, cp.size);
  if (!proof) return { unavailable: `the log of ${cp.size} leaves has no leaf for capture ${captureId}` };
  return { logKey, checkpoint: note, leafIndex: proof.leafIndex, inclusionProof: proof.hashes };
}
