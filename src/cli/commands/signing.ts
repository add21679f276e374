import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { registerSigningKey } from '../../archive/signing-key-registry.js';
import { generateSeedBase64, SEED_FILE_NAME, type SigningKey, signingKeyFromSeed } from '../../archive/signing-key.js';
import { CliError, EXIT_OK } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import type { CommandSpec } from '../command-spec.js';
import { jsonLine } from '../output-format.js';

/**
 * `signing rotate`: a new Ed25519 seed in DATA_DIR/signing-key.seed (where loadOrCreateSigningKey reads it),
 * the old one kept as signing-key.<keyId>.seed, and `signing.key_rotated` appended so the new key is published
 * as current while the old one stays in /.well-known/signing-keys (old bundles keep verifying).
 */

/** The archived name of a seed file: DATA_DIR/signing-key.<keyId>.seed. */
export const archivedSeedName = (keyId: string): string => SEED_FILE_NAME.replace(/\.seed$/, `.${keyId}.seed`);

async function readSeed(path: string): Promise<SigningKey | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(
      `cannot read ${path}: ${(err as Error).message}`,
      'Fix its permissions, or move it aside if the key is no longer wanted.',
    );
  }
  try {
    return signingKeyFromSeed(text, path);
  } catch (err) {
    throw new CliError((err as Error).message, `Restore a valid seed to ${path} (or move it aside) before rotating.`);
  }
}

export const signingRotate: CommandSpec = {
  path: ['signing', 'rotate'],
  summary: 'Rotate the bundle signing key kept in DATA_DIR and record the rotation in the ledger.',
  description: `
For the embedded default (SIGNING_KEY unset): writes a new seed to DATA_DIR/${SEED_FILE_NAME} atomically, keeps
the old seed as DATA_DIR/${archivedSeedName('<keyId>')}, and appends signing.key_rotated so
/.well-known/signing-key shows the new key and /.well-known/signing-keys keeps the old ones. Running workers
keep signing with the key they loaded until they restart; restart them to sign with the new key. Prints
{keyId, previousKeyId, publicKey, seedFile, archivedSeed} as JSON.
With SIGNING_KEY set the service reads the environment, not DATA_DIR: put a new seed in SIGNING_KEY instead
(the service records the rotation itself when it starts with it).`,
  options: {},
  examples: ['capture-ledger signing rotate', 'DATA_DIR=/var/lib/capture-ledger capture-ledger signing rotate'],
  async run(_args, io) {
    const session = openSession(io);
    try {
      const configured = session.config.SIGNING_KEY;
      if (configured === 'none')
        throw new CliError(
          'SIGNING_KEY is none: this deployment issues no signed bundles',
          'Unset SIGNING_KEY to use a key in DATA_DIR, then run the rotation.',
        );
      if (configured) {
        throw new CliError(
          'SIGNING_KEY is set, so the service does not read a seed from DATA_DIR',
          'Rotate by setting SIGNING_KEY to a new base64 32-byte seed (e.g. `openssl rand -base64 32`) on every worker and API process and restarting them; the service records the rotation itself.',
        );
      }
      const store = await session.store(); // reach NATS before touching files
      await mkdir(session.dataDir, { recursive: true });
      const seedPath = join(session.dataDir, SEED_FILE_NAME);
      const previous = await readSeed(seedPath);
      const seed = generateSeedBase64();
      const next = signingKeyFromSeed(seed, 'the new seed');

      // The seed path always holds one complete key: write beside it, keep the old one under its archive
      // name (a hard link), then rename over it.
      const temporary = `${seedPath}.${randomBytes(6).toString('hex')}.tmp`;
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(`${seed}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      let archivedSeed: string | null = null;
      try {
        if (previous) {
          archivedSeed = join(session.dataDir, archivedSeedName(previous.keyId));
          try {
            await link(seedPath, archivedSeed);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
            const kept = await readSeed(archivedSeed);
            if (kept?.keyId !== previous.keyId)
              throw new CliError(
                `${archivedSeed} exists and holds another key`,
                'Move it away and run the rotation again.',
              );
          }
        }
        await rename(temporary, seedPath);
      } catch (err) {
        await unlink(temporary).catch(() => undefined);
        throw err;
      }
      await registerSigningKey(store, next, () => new Date(), 'cli signing rotate');
      await io.stdout(
        jsonLine({
          keyId: next.keyId,
          previousKeyId: previous?.keyId ?? null,
          publicKey: next.publicKeyBase64,
          seedFile: seedPath,
          archivedSeed,
        }),
      );
      io.stderr(
        `new signing key ${next.keyId} is current${previous ? ` (previous ${previous.keyId} stays published)` : ''}. ` +
          'Running workers pick it up on restart; until then they sign with the key they loaded.\n',
      );
      return EXIT_OK;
    } finally {
      await session.close();
    }
  },
};
