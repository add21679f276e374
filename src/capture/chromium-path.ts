/**
 * Finds the Chromium binary: the path the caller configured (CHROMIUM_PATH), else the Debian locations.
 * A configured path that does not work is an error, not a reason to silently pick another browser.
 */
import { accessSync, constants, statSync } from 'node:fs';

/** Debian's real binary first: /usr/bin/chromium is a wrapper script that adds flags of its own. */
export const DEFAULT_CHROMIUM_CANDIDATES = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'] as const;

const INSTALL_HINT =
  'Install Chromium (Debian/Ubuntu: `apt-get install -y chromium`) or set CHROMIUM_PATH to its binary.';

export class ChromiumNotFoundError extends Error {
  override readonly name = 'ChromiumNotFoundError';
}

export function resolveChromiumPath(
  options: {
    /** The configured path (CHROMIUM_PATH), if any. */
    explicitPath?: string | undefined;
    candidates?: readonly string[];
    isExecutable?: (path: string) => boolean;
  } = {},
): string {
  const isExecutable = options.isExecutable ?? executableFile;
  const explicit = options.explicitPath?.trim();
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    throw new ChromiumNotFoundError(`CHROMIUM_PATH=${explicit} is not an executable file. ${INSTALL_HINT}`);
  }
  const candidates = options.candidates ?? DEFAULT_CHROMIUM_CANDIDATES;
  const found = candidates.find(isExecutable);
  if (found) return found;
  throw new ChromiumNotFoundError(`Chromium was not found (looked in ${candidates.join(', ')}). ${INSTALL_HINT}`);
}

function executableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
