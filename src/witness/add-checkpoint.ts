import { createHash } from 'node:crypto';
import { ed25519Verify } from '../archive/ed25519.js';
import {
  type Checkpoint,
  CheckpointError,
  type NoteVerifier,
  parseCheckpointBody,
} from '../transparency/checkpoint.js';
import { HASH_SIZE, verifyConsistency } from '../transparency/merkle.js';

/**
 * The C2SP tlog-witness `add-checkpoint` call, as pure functions: parsing the request body and deciding the
 * answer from the witness's record of the log. The HTTP server (witness-server.ts) only moves bytes and
 * persists what this returns.
 *
 *   old <size>\n            the size of the checkpoint the client thinks the witness last cosigned
 *   <base64 hash>\n ×0..63  RFC 6962 consistency proof from that size to the checkpoint's
 *   \n
 *   <checkpoint signed note>
 */

export const MAX_PROOF_LINES = 63;

export interface AddCheckpointRequest {
  oldSize: number;
  proof: Uint8Array[];
  /** The checkpoint as sent (a signed note, possibly with several signatures). */
  note: string;
}

/** What the witness keeps per log origin: the latest checkpoint it cosigned. */
export interface WitnessedCheckpoint {
  size: number;
  /** Base64 root hash. */
  rootHash: string;
}

export type AddCheckpointAnswer =
  | { status: 200; checkpoint: Checkpoint & { body: string }; record: WitnessedCheckpoint }
  | {
      status: 400 | 403 | 404 | 409 | 422;
      /** For a 409 on the old size: the latest cosigned size, answered as text/x.tlog.size. */
      latestSize?: number;
      reason: string;
      /** A validly signed checkpoint that contradicts the record: evidence of a split view. */
      conflict?: boolean;
    };

export class RequestError extends Error {
  override name = 'RequestError';
}

const DECIMAL = /^(0|[1-9]\d*)$/;

/** Parses the request body; throws RequestError (→ 400) naming what is malformed. */
export function parseAddCheckpoint(text: string): AddCheckpointRequest {
  const split = text.indexOf('\n\n');
  if (split < 0)
    throw new RequestError('the body must be an old size line, proof lines, an empty line and a checkpoint');
  const [oldLine, ...proofLines] = text.slice(0, split).split('\n') as [string, ...string[]];
  const old = /^old (\S+)$/.exec(oldLine);
  if (!old || !DECIMAL.test(old[1]!) || !Number.isSafeInteger(Number(old[1])))
    throw new RequestError(`the first line must be 'old <decimal size>'; got ${JSON.stringify(oldLine)}`);
  if (proofLines.length > MAX_PROOF_LINES)
    throw new RequestError(`at most ${MAX_PROOF_LINES} consistency proof lines; got ${proofLines.length}`);
  const proof = proofLines.map((line, i) => {
    const hash = Buffer.from(line, 'base64');
    if (hash.length !== HASH_SIZE || hash.toString('base64') !== line)
      throw new RequestError(`consistency proof line ${i + 1} is not the base64 of a 32-byte hash`);
    return new Uint8Array(hash);
  });
  const note = text.slice(split + 2);
  if (!note.endsWith('\n')) throw new RequestError('every line must end with a newline');
  return { oldSize: Number(old[1]), proof, note };
}

/** The note's body and signature lines; throws RequestError when it is not a checkpoint in a signed note. */
function splitNote(note: string): { checkpoint: Checkpoint & { body: string }; signatures: string[] } {
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new RequestError('the checkpoint is not a signed note (no empty line before its signatures)');
  const body = note.slice(0, split + 1);
  try {
    return { checkpoint: { ...parseCheckpointBody(body), body }, signatures: note.slice(split + 2, -1).split('\n') };
  } catch (error) {
    if (error instanceof CheckpointError) throw new RequestError(error.message);
    throw error;
  }
}

/** Does one of the signature lines verify under one of the log's keys? Lines of other keys are ignored (spec). */
function signedByLog(body: string, signatures: string[], keys: readonly NoteVerifier[]): boolean {
  const message = new TextEncoder().encode(body);
  for (const line of signatures) {
    const m = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (!m) continue;
    const raw = Buffer.from(m[2]!, 'base64');
    for (const key of keys) {
      if (key.name !== m[1] || raw.length !== 68 || !raw.subarray(0, 4).equals(Buffer.from(key.keyHash))) continue;
      if (ed25519Verify(message, raw.subarray(4), key.publicKey)) return true;
    }
  }
  return false;
}

/**
 * The witness's answer to one add-checkpoint request (C2SP tlog-witness, in the spec's order of checks):
 * 404 unknown origin · 403 no trusted log signature · 400 old size above the checkpoint's · 409 old size is not the
 * recorded one (latestSize says which) · 409 same size, another root (a fork) · 422 consistency proof fails · 200.
 * `logs`: the trusted log keys by origin; `record`: what the witness last cosigned for that origin (none: size 0).
 */
export function decideAddCheckpoint(
  request: AddCheckpointRequest,
  logs: ReadonlyMap<string, readonly NoteVerifier[]>,
  recordOf: (origin: string) => WitnessedCheckpoint | undefined,
): AddCheckpointAnswer {
  const { checkpoint, signatures } = splitNote(request.note);
  const keys = logs.get(checkpoint.origin);
  if (!keys) return { status: 404, reason: `this witness does not witness the log ${checkpoint.origin}` };
  if (!signedByLog(checkpoint.body, signatures, keys))
    return { status: 403, reason: `the checkpoint carries no valid signature of a key of ${checkpoint.origin}` };
  if (request.oldSize > checkpoint.size)
    return { status: 400, reason: `old size ${request.oldSize} is above the checkpoint's size ${checkpoint.size}` };
  const record = recordOf(checkpoint.origin);
  const latest = record?.size ?? 0;
  if (request.oldSize !== latest)
    return {
      status: 409,
      latestSize: latest,
      reason: `old size ${request.oldSize} is not the size this witness last cosigned (${latest})`,
    };
  const newRoot = checkpoint.rootHash;
  const root = Buffer.from(newRoot).toString('base64');
  // With no record the witness holds the empty tree (size 0), whose root is SHA-256 of nothing.
  const recordedRoot = record?.rootHash ?? Buffer.from(emptyRoot).toString('base64');
  if (latest === checkpoint.size && recordedRoot !== root)
    return {
      status: 409,
      conflict: record !== undefined,
      reason: `a checkpoint of size ${latest} with root ${root}, but the tree this witness holds at that size has root ${recordedRoot}: the log is forked`,
    };
  const oldRoot = new Uint8Array(Buffer.from(recordedRoot, 'base64'));
  if (!verifyConsistency(request.oldSize, checkpoint.size, oldRoot, newRoot, request.proof))
    return {
      status: 422,
      conflict: request.oldSize > 0,
      reason: `the consistency proof from ${request.oldSize} to ${checkpoint.size} does not verify: the new tree does not extend the one this witness cosigned`,
    };
  return { status: 200, checkpoint, record: { size: checkpoint.size, rootHash: root } };
}

const emptyRoot = new Uint8Array(createHash('sha256').digest());

/** The request body for `checkpoint` (a signed note) with a consistency proof from `oldSize`. */
export function addCheckpointBody(oldSize: number, proof: readonly Uint8Array[], note: string): string {
  return `old ${oldSize}\n${proof.map((h) => `${Buffer.from(h).toString('base64')}\n`).join('')}\n${note}`;
}
