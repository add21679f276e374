import { createHash } from 'node:crypto';
import { HASH_SIZE } from './merkle.js';
import { ed25519PublicKey, ed25519Signer, ed25519Verify } from '../archive/ed25519.js';

/**
 * C2SP tlog-checkpoint in a C2SP signed note (https://c2sp.org/tlog-checkpoint, https://c2sp.org/signed-note):
 *
 *   <origin>\n<tree size>\n<base64 root hash>\n[extension lines\n]
 *   \n
 *   — <key name> <base64(4-byte key hash ‖ 64-byte Ed25519 signature)>\n
 *
 * The signature is over the note text (every line before the blank line, each ending in \n). The key hash is
 * the first 4 bytes of SHA-256(key name ‖ \n ‖ 0x01 ‖ public key), 0x01 being the Ed25519 signature type.
 * A verifier key is written `<name>+<hex key hash>+<base64(0x01 ‖ public key)>` (the Go note package's form).
 */

export const ED25519_TYPE = 0x01;
const SIG_PREFIX = '\u2014 ';

export interface Checkpoint {
  origin: string;
  size: number;
  rootHash: Uint8Array;
  extensions: string[];
}

export interface NoteSigner {
  name: string;
  keyHash: Uint8Array;
  publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export interface NoteVerifier {
  name: string;
  keyHash: Uint8Array;
  publicKey: Uint8Array;
}

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

const validName = (name: string) => name.length > 0 && !/[\s+]/u.test(name);

export function noteKeyHash(name: string, publicKey: Uint8Array): Uint8Array {
  return new Uint8Array(
    createHash('sha256')
      .update(name)
      .update('\n')
      .update(Uint8Array.of(ED25519_TYPE))
      .update(publicKey)
      .digest()
      .subarray(0, 4),
  );
}

/** A note signer from a 32-byte Ed25519 seed; `name` is the log's origin. */
export function noteSignerFromSeed(name: string, seed: Uint8Array): NoteSigner {
  if (!validName(name))
    throw new CheckpointError(`note key name ${JSON.stringify(name)} must be non-empty without spaces or '+'`);
  const publicKey = ed25519PublicKey(seed);
  return {
    name,
    publicKey,
    keyHash: noteKeyHash(name, publicKey),
    sign: ed25519Signer(seed),
  };
}

export function verifierKeyString(v: NoteVerifier): string {
  return `${v.name}+${Buffer.from(v.keyHash).toString('hex')}+${Buffer.from([ED25519_TYPE, ...v.publicKey]).toString('base64')}`;
}

export function parseVerifierKey(text: string): NoteVerifier {
  // The key's base64 may itself hold '+': split at the first two only (the name and the hex hash cannot).
  const m = /^([^+]+)\+([^+]*)\+(.*)$/s.exec(text.trim());
  if (!m) throw new CheckpointError('a verifier key is <name>+<hex key hash>+<base64 key>');
  const [, name, hashHex, keyB64] = m as unknown as [string, string, string, string];
  const key = Buffer.from(keyB64, 'base64');
  if (key.toString('base64') !== keyB64) throw new CheckpointError('the verifier key is not base64');
  if (!validName(name) || !/^[0-9a-f]{8}$/.test(hashHex) || key.length !== 33 || key[0] !== ED25519_TYPE) {
    throw new CheckpointError('the verifier key is not an Ed25519 note key');
  }
  const publicKey = new Uint8Array(key.subarray(1));
  const keyHash = noteKeyHash(name, publicKey);
  if (Buffer.from(keyHash).toString('hex') !== hashHex)
    throw new CheckpointError('the verifier key hash does not match its name and key');
  return { name, keyHash, publicKey };
}

/** The checkpoint body (the signed note's text). */
export function checkpointBody(c: Checkpoint): string {
  if (c.origin.includes('\n') || c.origin === '') throw new CheckpointError('origin must be one non-empty line');
  if (c.rootHash.byteLength !== HASH_SIZE) throw new CheckpointError('root hash must be 32 bytes');
  const ext = c.extensions.map((l) => `${l}\n`).join('');
  return `${c.origin}\n${c.size}\n${Buffer.from(c.rootHash).toString('base64')}\n${ext}`;
}

export function signCheckpoint(c: Checkpoint, signer: NoteSigner): string {
  const body = checkpointBody(c);
  const sig = signer.sign(new TextEncoder().encode(body));
  return `${body}\n${SIG_PREFIX}${signer.name} ${Buffer.concat([signer.keyHash, sig]).toString('base64')}\n`;
}

export function parseCheckpointBody(body: string): Checkpoint {
  if (!body.endsWith('\n')) throw new CheckpointError('checkpoint text must end with a newline');
  const lines = body.slice(0, -1).split('\n');
  if (lines.length < 3) throw new CheckpointError('a checkpoint has an origin, a tree size and a root hash');
  const [origin, sizeText, rootText, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin === '') throw new CheckpointError('empty origin line');
  if (!/^(0|[1-9]\d*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText)))
    throw new CheckpointError(`tree size ${JSON.stringify(sizeText)} is not a decimal number`);
  const root = Buffer.from(rootText, 'base64');
  if (root.length !== HASH_SIZE || root.toString('base64') !== rootText)
    throw new CheckpointError('root hash is not base64 of 32 bytes');
  if (extensions.some((l) => l === '')) throw new CheckpointError('empty line inside the checkpoint');
  return { origin, size: Number(sizeText), rootHash: new Uint8Array(root), extensions };
}

/**
 * Opens a signed note and checks the signature of `verifier`; signatures of other keys are ignored (a witness
 * may cosign). Throws CheckpointError saying what is wrong.
 */
export function openCheckpoint(note: string, verifier: NoteVerifier): Checkpoint & { body: string } {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n'))
    throw new CheckpointError('not a signed note: no blank line before the signatures');
  const body = note.slice(0, split + 1);
  const sigLines = note.slice(split + 2, -1).split('\n');
  let found = false;
  for (const line of sigLines) {
    if (!line.startsWith(SIG_PREFIX)) throw new CheckpointError(`malformed signature line ${JSON.stringify(line)}`);
    const [name, b64, extra] = line.slice(SIG_PREFIX.length).split(' ');
    if (!name || !b64 || extra !== undefined)
      throw new CheckpointError(`malformed signature line ${JSON.stringify(line)}`);
    if (name !== verifier.name) continue;
    const raw = Buffer.from(b64, 'base64');
    if (raw.length < 4 || !raw.subarray(0, 4).equals(Buffer.from(verifier.keyHash))) continue;
    if (raw.length !== 4 + 64) throw new CheckpointError('the Ed25519 note signature is not 64 bytes');
    if (!ed25519Verify(new TextEncoder().encode(body), raw.subarray(4), verifier.publicKey)) {
      throw new CheckpointError(`the checkpoint signature of ${name} is invalid`);
    }
    found = true;
  }
  if (!found)
    throw new CheckpointError(
      `the checkpoint carries no signature of key ${verifier.name}+${Buffer.from(verifier.keyHash).toString('hex')}`,
    );
  const cp = parseCheckpointBody(body);
  if (cp.origin !== verifier.name)
    throw new CheckpointError(`checkpoint origin ${cp.origin} is not the log's ${verifier.name}`);
  return { ...cp, body };
}
