import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cosignedMessage } from '../../packages/verifier/src/witnesses.js';
import { fromBase64Strict } from '../archive/digests.js';
import { ed25519PublicKey, ed25519Signer } from '../archive/ed25519.js';
import { generateSeedBase64 } from '../archive/signing-key.js';
import { readSecretFile, writeOnce } from '../infra/write-once.js';
import { COSIGNATURE_TYPE, cosignatureKeyIdSync } from './witness-key.js';

/**
 * The witness's own Ed25519 key and the cosignature lines it makes (C2SP tlog-cosignature, Ed25519 type):
 *   — <name> base64(key ID ‖ u64 big-endian timestamp ‖ Ed25519 over "cosignature/v1\ntime <t>\n" ‖ body)
 */
export interface Cosigner {
  name: string;
  publicKey: Uint8Array;
  keyId: Uint8Array;
  /** The vkey others pin: `<name>+<hex key ID>+<base64(0x04 ‖ key)>`. */
  vkey: string;
  /** One signature line (with its final newline) over the checkpoint body, at `timestamp` (POSIX seconds). */
  cosign(body: string, timestamp: number): string;
}

export const WITNESS_SEED_FILE_NAME = 'witness-key.seed';

export function cosignerFromSeed(name: string, seed: Uint8Array): Cosigner {
  if (name === '' || /[\s+]/u.test(name))
    throw new Error(`the witness name ${JSON.stringify(name)} must be non-empty without spaces or '+'`);
  if (seed.byteLength !== 32) throw new Error('a witness key seed is 32 bytes');
  const publicKey = ed25519PublicKey(seed);
  const sign = ed25519Signer(seed);
  const keyId = cosignatureKeyIdSync(name, publicKey);
  const vkey = `${name}+${Buffer.from(keyId).toString('hex')}+${Buffer.from([COSIGNATURE_TYPE, ...publicKey]).toString('base64')}`;
  return {
    name,
    publicKey,
    keyId,
    vkey,
    cosign(body, timestamp) {
      const message = new TextEncoder().encode(cosignedMessage(body, timestamp));
      const time = Buffer.alloc(8);
      time.writeBigUInt64BE(BigInt(timestamp));
      const sig = sign(message);
      return `\u2014 ${name} ${Buffer.concat([keyId, time, sig]).toString('base64')}\n`;
    },
  };
}

/**
 * The witness key: a base64 seed given (WITNESS_SIGNING_KEY), a seed file given (--key-file), or — neither —
 * DATA_DIR/witness-key.seed, generated once on first start (mode 0600) and read from then on.
 */
export async function loadCosigner(
  name: string,
  source: { seedBase64?: string | undefined; keyFile?: string | undefined; dataDir: string },
): Promise<Cosigner> {
  let text = source.seedBase64;
  if (!text) {
    const path = source.keyFile ?? join(source.dataDir, WITNESS_SEED_FILE_NAME);
    if (!source.keyFile) {
      await mkdir(source.dataDir, { recursive: true });
      // First start: a new seed; a later start (or a concurrent one) keeps the file that is there.
      await readSecretFile(path).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
        await writeOnce(path, `${generateSeedBase64()}\n`);
      });
    }
    text = await readSecretFile(path);
  }
  const seed = fromBase64Strict(text.trim());
  if (seed?.byteLength !== 32) throw new Error('the witness key must be the base64 encoding of a 32-byte Ed25519 seed');
  return cosignerFromSeed(name, seed);
}
