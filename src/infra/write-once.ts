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
