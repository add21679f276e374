import { createPrivateKey, sign } from 'node:crypto';

/** PKCS#8 wrapping of a raw 32-byte Ed25519 seed (RFC 8410): this prefix, then the seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Detached Ed25519 signatures with the seed's key, in OpenSSL (node:crypto) instead of JavaScript: Ed25519 is
 * deterministic, so the signatures are the bytes tweetnacl's `sign.detached` gives for the same seed.
 */
export function ed25519Signer(seed: Uint8Array): (message: Uint8Array) => Uint8Array {
  if (seed.byteLength !== 32) throw new RangeError('an Ed25519 seed is exactly 32 bytes');
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return (message) => new Uint8Array(sign(null, message, key));
}
