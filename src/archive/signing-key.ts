import { hkdfSync, randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readOrCreateSecretFile } from '../infra/write-once.js';
import { ED25519_SEED_BYTES, ed25519PublicKey, ed25519Signer } from './ed25519.js';
import { fromBase64Strict, sha256Hex, toBase64 } from './digests.js';
import { SigningKeyError } from './errors.js';

/**
 * The Ed25519 bundle signing key (node:crypto), made from a 32-byte seed: SIGNING_KEY (base64) or,
 * when unset, a seed generated once into DATA_DIR (run contract, DESIGN).
 */
export interface SigningKey {
  readonly algorithm: 'Ed25519';
  /** First 8 hex chars of SHA-256 of the raw 32-byte public key (spec 2.7). */
  readonly keyId: string;
  /** Raw 32-byte public key. */
  readonly publicKey: Uint8Array;
  /** Base64 of `publicKey`, as published at /.well-known/signing-key. */
  readonly publicKeyBase64: string;
  /** Detached 64-byte Ed25519 signature of `message`. */
  sign(message: Uint8Array): Uint8Array;
  /** `length` bytes derived from the seed for one purpose (HKDF-SHA256, `context` as info): the PDF-signing key. */
  derive(context: string, length: number): Uint8Array;
}

export const SEED_FILE_NAME = 'signing-key.seed';

/** keyId of a raw Ed25519 public key (spec 2.7). */
export function keyIdOf(publicKey: Uint8Array): string {
  return sha256Hex(publicKey).slice(0, 8);
}

/** Builds the key from a base64 32-byte seed; the error says what is wrong with the text. */
export function signingKeyFromSeed(seedBase64: string, source = 'SIGNING_KEY'): SigningKey {
  const text = seedBase64.trim();
  if (text === '') {
    throw new SigningKeyError(`${source} is empty; expected base64 of a 32-byte Ed25519 seed`);
  }
  const seed = fromBase64Strict(text);
  if (!seed) {
    throw new SigningKeyError(
      `${source} is not valid base64 (standard alphabet with '=' padding); expected base64 of a 32-byte Ed25519 seed`,
    );
  }
  if (seed.byteLength !== ED25519_SEED_BYTES) {
    throw new SigningKeyError(
      `${source} decodes to ${seed.byteLength} bytes; an Ed25519 seed is exactly ${ED25519_SEED_BYTES} bytes`,
    );
  }
  return signingKeyFromSeedBytes(seed);
}

export function signingKeyFromSeedBytes(seed: Uint8Array): SigningKey {
  const publicKey = ed25519PublicKey(seed);
  const signer = ed25519Signer(seed);
  return Object.freeze({
    algorithm: 'Ed25519' as const,
    keyId: keyIdOf(publicKey),
    publicKey,
    publicKeyBase64: toBase64(publicKey),
    sign: signer,
    derive: (context: string, length: number) =>
      new Uint8Array(hkdfSync('sha256', seed, new Uint8Array(0), context, length)),
  });
}

/** A fresh random seed, base64 (for operators creating a SIGNING_KEY). */
export function generateSeedBase64(): string {
  return toBase64(randomBytes(ED25519_SEED_BYTES));
}

/**
 * The embedded default: reads DATA_DIR/signing-key.seed, creating it (mode 0600) when absent. The seed
 * is written to a temporary file and hard-linked into place, so concurrent starters agree on one
 * complete key.
 */
export async function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, SEED_FILE_NAME);
  return signingKeyFromSeed(await readOrCreateSecretFile(path, () => `${generateSeedBase64()}\n`), path);
}
