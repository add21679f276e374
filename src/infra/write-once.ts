import { randomBytes } from 'node:crypto';
import { link, open, unlink } from 'node:fs/promises';

/**
 * Create `path` with `text` (mode 0600) unless it already exists: written to a temporary file, synced, then
 * hard-linked into place, so processes starting together agree on one complete file (the first wins).
 */
export async function writeOnce(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
}

/**
 * Read a file that holds a secret (a signing seed, a TSA key): refused when group or others may read or
 * write it, as ssh does for private keys, with the command that fixes it.
 */
export async function readSecretFile(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const { mode } = await handle.stat();
    if ((mode & 0o077) !== 0) {
      throw new Error(
        `${path} holds a secret but is open to other users (mode ${(mode & 0o777).toString(8)}); run \`chmod 600 ${path}\``,
      );
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The secret file at `path`, created once with `make()` when absent (mode 0600, writeOnce: processes starting
 * together agree on one). A file open to others is refused as readSecretFile refuses it.
 */
export async function readOrCreateSecretFile(path: string, make: () => string): Promise<string> {
  try {
    return await readSecretFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await writeOnce(path, make());
  return readSecretFile(path);
}
