import { signingKeyFromSeedBytes } from '../archive/signing-key.js';
import { noteSignerFromSeed } from '../transparency/checkpoint.js';
import { openSecret, sealSecret } from '../webhooks/webhook-secret-store.js';
import {
  type ArchiveManifest,
  manifestMessage,
  type UnsignedManifest,
} from '../../packages/verifier/src/archive-segment.js';
import type { NoteKey } from '../../packages/verifier/src/transparency.js';

/**
 * The archive's keys, all from the transparency log's seed (LOG_SIGNING_KEY), which the archiver's role (the
 * sequencer) holds and a restore needs anyway to continue the same log: manifests are signed with the log key
 * itself (under their own context line), and values that must not sit in the archive in the clear (webhook keys)
 * are sealed as webhook secrets are (webhook-secret-store.ts: AES-256-GCM, the subject as additional data) — their
 * base64 text — under a key derived from the seed (HKDF-SHA256, KEY_WRAP_CONTEXT). Neither seed nor derived key
 * is ever written to the archive.
 */
const KEY_WRAP_CONTEXT = 'capture-ledger archive key-wrap v1';

export interface ArchiveKeys {
  /** The log key as the verifier names it: what a manifest's `key` states and restore trusts. */
  logKey: NoteKey;
  sign(manifest: UnsignedManifest): ArchiveManifest;
  /** `value` sealed for the archive, bound to its subject: base64(iv ‖ tag ‖ ciphertext). */
  seal(subject: string, value: Uint8Array): string;
  open(subject: string, sealed: string): Uint8Array;
}

export const manifestKeyOf = (logKey: NoteKey): ArchiveManifest['key'] => ({
  algorithm: 'Ed25519',
  name: logKey.name,
  keyHash: Buffer.from(logKey.keyHash).toString('hex'),
});

export function archiveKeys(origin: string, logSeed: Uint8Array): ArchiveKeys {
  const signer = noteSignerFromSeed(origin, logSeed);
  const wrapKey = signingKeyFromSeedBytes(logSeed).derive(KEY_WRAP_CONTEXT, 32);
  const logKey = { name: signer.name, keyHash: signer.keyHash, publicKey: signer.publicKey };
  return {
    logKey,
    sign: (manifest) => ({
      ...manifest,
      signature: Buffer.from(signer.sign(manifestMessage(manifest))).toString('base64'),
    }),
    seal: (subject, value) => sealSecret(wrapKey, Buffer.from(value).toString('base64'), subject),
    open: (subject, sealed) => new Uint8Array(Buffer.from(openSecret(wrapKey, sealed, subject), 'base64')),
  };
}
