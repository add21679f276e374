import { bytesEqual, ed25519Verify, fromBase64Strict, hex, sha256, toBase64, utf8 } from './bytes.js';
import { parseCheckpointNote } from './transparency.js';

/**
 * Witness cosignatures on a log checkpoint (C2SP tlog-cosignature, Ed25519 type) and the quorum a relying party
 * asks of them. A cosignature is one more signature line of the checkpoint's signed note:
 *
 *   — <witness name> base64(key ID[4] ‖ timestamp[8, big-endian] ‖ Ed25519 signature[64])
 *
 * key ID = SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key)[:4]; the signature is over
 * "cosignature/v1\ntime <timestamp>\n" ‖ the checkpoint body. A witness key is written as a vkey
 * `<name>+<hex key ID>+<base64(0x04 ‖ public key)>`. Pure and WebCrypto-only, like the rest of the package.
 */

export const COSIGNATURE_TYPE = 0x04;
const SIG_PREFIX = '\u2014 ';
const LINE_BYTES = 4 + 8 + 64;

export interface WitnessKey {
  name: string;
  keyId: Uint8Array;
  publicKey: Uint8Array;
}

export async function cosignatureKeyId(name: string, publicKey: Uint8Array): Promise<Uint8Array> {
  const prefix = utf8(`${name}\n`);
  const all = new Uint8Array(prefix.length + 1 + publicKey.length);
  all.set(prefix, 0);
  all[prefix.length] = COSIGNATURE_TYPE;
  all.set(publicKey, prefix.length + 1);
  return (await sha256(all)).subarray(0, 4);
}

/** The vkey of a witness: `<name>+<hex key ID>+<base64(0x04 ‖ Ed25519 public key)>`. */
export async function witnessKeyString(name: string, publicKey: Uint8Array): Promise<string> {
  const material = new Uint8Array(33);
  material[0] = COSIGNATURE_TYPE;
  material.set(publicKey, 1);
  return `${name}+${hex(await cosignatureKeyId(name, publicKey))}+${toBase64(material)}`;
}

/** Parses a witness vkey; throws saying what is wrong. */
export async function parseWitnessKey(text: string): Promise<WitnessKey> {
  const m = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(text.trim());
  if (!m) throw new Error(`a witness key is <name>+<hex key ID>+<base64 key>; got ${JSON.stringify(text.trim())}`);
  const [, name, idHex, keyB64] = m as unknown as [string, string, string, string];
  const key = fromBase64Strict(keyB64);
  if (key?.length !== 33 || key[0] !== COSIGNATURE_TYPE)
    throw new Error(`the witness key ${name} is not an Ed25519 cosignature key (type 0x04)`);
  const publicKey = key.subarray(1);
  const keyId = await cosignatureKeyId(name, publicKey);
  if (hex(keyId) !== idHex) throw new Error(`the witness key ${name}'s key ID does not match its name and key`);
  return { name, keyId, publicKey };
}

/** The message an Ed25519 cosignature signs (tlog-cosignature, "Ed25519 signed message"). */
export function cosignedMessage(body: string, timestamp: number): string {
  return `cosignature/v1\ntime ${timestamp}\n${body}`;
}

/** One signature line's bytes split into key ID, timestamp and signature; null when it is not a cosignature's shape. */
export function splitCosignature(
  raw: Uint8Array,
): { keyId: Uint8Array; timestamp: number; signature: Uint8Array } | null {
  if (raw.length !== LINE_BYTES) return null;
  const view = new DataView(raw.buffer, raw.byteOffset + 4, 8);
  const timestamp = view.getBigUint64(0);
  if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return { keyId: raw.subarray(0, 4), timestamp: Number(timestamp), signature: raw.subarray(12) };
}

export interface WitnessedBy {
  /** The witness's name (its key name). */
  name: string;
  /** Hex key ID of the witness key. */
  keyId: string;
  /** When the witness cosigned, from its cosignature (POSIX seconds, as an ISO date). */
  cosignedAt: string;
}

/** The witnesses among `keys` whose cosignature on `note` verifies (each counted once); unknown keys' lines are ignored. */
export async function verifiedCosigners(note: string, keys: readonly WitnessKey[]): Promise<WitnessedBy[]> {
  const { body, signatures } = parseCheckpointNote(note);
  const found = new Map<string, WitnessedBy>();
  for (const line of signatures) {
    if (!line.startsWith(SIG_PREFIX)) continue;
    const [name, b64] = line.slice(SIG_PREFIX.length).split(' ');
    if (!name || !b64) continue;
    const raw = fromBase64Strict(b64);
    const parts = raw ? splitCosignature(raw) : null;
    if (!parts) continue;
    for (const key of keys) {
      const id = hex(key.keyId);
      if (key.name !== name || !bytesEqual(key.keyId, parts.keyId) || found.has(id)) continue;
      if (await ed25519Verify(key.publicKey, parts.signature, utf8(cosignedMessage(body, parts.timestamp))))
        found.set(id, { name, keyId: id, cosignedAt: new Date(parts.timestamp * 1000).toISOString() });
    }
  }
  return [...found.values()];
}

/**
 * Whether a checkpoint is witnessed by at least `quorum` of the witness keys the caller trusts. An extension beside
 * a result's checks (never one of them): `pass` at quorum, `fail` below it; `witnessed` names who cosigned.
 */
export interface WitnessReport {
  status: 'pass' | 'fail';
  quorum: number;
  /** The trusted witnesses whose cosignature on the checkpoint verifies. */
  witnessed: WitnessedBy[];
  /** Names of the trusted witnesses that did not cosign it. */
  missing: string[];
  /** The checkpoint's tree size, for the reader. */
  treeSize: number | null;
  detail: string;
}

/** The trusted witness keys, checked with their quorum (1 ≤ quorum ≤ keys); throws on a bad key or quorum (the caller's input). */
export async function witnessPolicy(witnessKeys: readonly string[], quorum: number): Promise<WitnessKey[]> {
  const keys = await Promise.all(witnessKeys.map(parseWitnessKey));
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > keys.length)
    throw new Error(`the witness quorum must be between 1 and the ${keys.length} witness keys given; got ${quorum}`);
  return keys;
}

/** Checks `note` against witness vkeys and a quorum; throws on a bad key or quorum (witnessPolicy). */
export async function checkWitnessQuorum(
  note: string,
  witnessKeys: readonly string[],
  quorum: number,
): Promise<WitnessReport> {
  const keys = await witnessPolicy(witnessKeys, quorum);
  let treeSize: number | null = null;
  let witnessed: WitnessedBy[] = [];
  try {
    treeSize = parseCheckpointNote(note).size;
    witnessed = await verifiedCosigners(note, keys);
  } catch (error) {
    return {
      status: 'fail',
      quorum,
      witnessed,
      missing: keys.map((k) => k.name),
      treeSize,
      detail: (error as Error).message,
    };
  }
  const ids = new Set(witnessed.map((w) => w.keyId));
  const missing = keys.filter((k) => !ids.has(hex(k.keyId))).map((k) => k.name);
  const names = witnessed.map((w) => w.name).join(', ') || 'none';
  const of = `${witnessed.length} of ${keys.length} trusted witnesses (quorum ${quorum})`;
  return witnessed.length >= quorum
    ? { status: 'pass', quorum, witnessed, missing, treeSize, detail: `the checkpoint is cosigned by ${of}: ${names}` }
    : {
        status: 'fail',
        quorum,
        witnessed,
        missing,
        treeSize,
        detail: `the checkpoint is cosigned by only ${of}: ${names}; without a quorum a split view of the log is not ruled out`,
      };
}
