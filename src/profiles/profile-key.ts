import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readOrCreateSecretFile } from '../infra/write-once.js';

/**
 * The keys that wrap each tenant's browser-profile data key (PROFILE_KEY): `<keyId>:<base64 of 32 bytes>`,
 * comma-separated. The first wraps; every one opens what it wrapped, so a rotation puts the new key first and keeps
 * the old ones until the vault re-wrapped every data key (profile-vault.ts, `rewrapAll`).
 */
export interface ProfileKeyRing {
  current: { id: string; key: Uint8Array };
  /** Every key by id, the current one included. */
  byId: ReadonlyMap<string, Uint8Array>;
}

export const PROFILE_KEY_FILE_NAME = 'profile-key';

export class ProfileKeyError extends Error {
  override name = 'ProfileKeyError';
}

export function parseProfileKeyRing(text: string, source = 'PROFILE_KEY'): ProfileKeyRing {
  const byId = new Map<string, Uint8Array>();
  let current: ProfileKeyRing['current'] | undefined;
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const colon = part.indexOf(':');
    const id = part.slice(0, colon);
    const key = Buffer.from(part.slice(colon + 1), 'base64');
    if (colon < 1 || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
      throw new ProfileKeyError(`${source} must be comma-separated <keyId>:<base64 of 32 bytes>`);
    }
    if (byId.has(id)) throw new ProfileKeyError(`${source} names key ${id} twice`);
    byId.set(id, key);
    current ??= { id, key };
  }
  if (!current) throw new ProfileKeyError(`${source} holds no key`);
  return { current, byId };
}

/** A new key ring entry, for operators rotating PROFILE_KEY. */
export const generateProfileKeyEntry = (): string =>
  `pk-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}`;

/**
 * PROFILE_KEY, or the embedded default: DATA_DIR/profile-key, created once (mode 0600) the way the signing seed is.
 * A cluster sets PROFILE_KEY on every api and worker process instead: no role reads a file another wrote.
 */
export async function loadProfileKeyRing(config: { PROFILE_KEY?: string; DATA_DIR: string }): Promise<ProfileKeyRing> {
  if (config.PROFILE_KEY) return parseProfileKeyRing(config.PROFILE_KEY);
  await mkdir(config.DATA_DIR, { recursive: true });
  const path = join(config.DATA_DIR, PROFILE_KEY_FILE_NAME);
  return parseProfileKeyRing(await readOrCreateSecretFile(path, () => `${generateProfileKeyEntry()}\n`), path);
}
