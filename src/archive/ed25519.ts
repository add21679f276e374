import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/** Bytes in an Ed25519 seed (the private key) and in a public key. */
export const ED25519_SEED_BYTES = 32;

/** PKCS#8 wrapping of a raw 32-byte Ed25519 seed (RFC 8410): this prefix, then the seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** SubjectPublicKeyInfo wrapping of a raw 32-byte Ed25519 public key (RFC 8410): this prefix, then the key. */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function privateKeyOf(seed: Uint8Array): KeyObject {
  if (seed.byteLength !== ED25519_SEED_BYTES) throw new RangeError('an Ed25519 seed is exactly 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The raw 32-byte public key of the seed's key pair. */
export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  const spki = createPublicKey(privateKeyOf(seed)).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(SPKI_ED25519_PREFIX.length));
}

/**
 * Detached Ed25519 signatures with the seed's key, in OpenSSL (node:crypto). Ed25519 is deterministic: the same
 * seed and message give the same bytes in every implementation (a unit test compares them with tweetnacl's).
 */
export function ed25519Signer(seed: Uint8Array): (message: Uint8Array) => Uint8Array {
  const key = privateKeyOf(seed);
  return (message) => new Uint8Array(sign(null, message, key));
}

/** Whether `signature` is a valid Ed25519 signature of `message` by the raw 32-byte `publicKey`. */
export function ed25519Verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (publicKey.byteLength !== ED25519_SEED_BYTES || signature.byteLength !== 64) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]), format: 'der', type: 'spki' });
    return verify(null, message, key, signature);
  } catch {
    return false; // not a point on the curve
  }
}
