import { createHash } from 'node:crypto';

/** The Ed25519 cosignature key type (C2SP tlog-cosignature): key ID = SHA-256(name ‖ "\n" ‖ 0x04 ‖ key)[:4]. */
export const COSIGNATURE_TYPE = 0x04;

export function cosignatureKeyIdSync(name: string, publicKey: Uint8Array): Uint8Array {
  return new Uint8Array(
    createHash('sha256')
      .update(`${name}\n`)
      .update(Uint8Array.of(COSIGNATURE_TYPE))
      .update(publicKey)
      .digest()
      .subarray(0, 4),
  );
}

export interface WitnessPublicKey {
  name: string;
  keyId: Uint8Array;
  publicKey: Uint8Array;
  /** The vkey as given. */
  vkey: string;
}

/** A witness vkey `<name>+<hex key ID>+<base64(0x04 ‖ Ed25519 key)>` (tlog-cosignature); throws saying what is wrong. */
export function parseWitnessVkey(text: string): WitnessPublicKey {
  const vkey = text.trim();
  const m = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(vkey);
  if (!m) throw new Error(`a witness key is <name>+<hex key ID>+<base64 key>; got ${JSON.stringify(vkey)}`);
  const [, name, idHex, keyB64] = m as unknown as [string, string, string, string];
  const key = Buffer.from(keyB64, 'base64');
  if (key.toString('base64') !== keyB64 || key.length !== 33 || key[0] !== COSIGNATURE_TYPE)
    throw new Error(`the witness key ${name} is not an Ed25519 cosignature key (base64 of 0x04 and 32 bytes)`);
  const publicKey = new Uint8Array(key.subarray(1));
  const keyId = cosignatureKeyIdSync(name, publicKey);
  if (Buffer.from(keyId).toString('hex') !== idHex)
    throw new Error(`the witness key ${name}'s key ID does not match its name and key`);
  return { name, keyId, publicKey, vkey };
}
