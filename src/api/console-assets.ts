import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { projectRoot } from '../infra/project-root.js';
import { BROWSER_BUNDLE } from './browser-bundle.js';

/**
 * The console's browser bundle (src/console/): one script and one stylesheet, built by esbuild on first request
 * (like the verifier module, src/api/verifier-assets.ts) and kept in memory with a strong ETag, the SHA-256 of the
 * bytes, so a browser revalidates with one conditional request and gets 304 until the process runs other code.
 */
export const CONSOLE_SCRIPT_PATH = '/console/assets/console.js';
export const CONSOLE_STYLE_PATH = '/console/assets/console.css';

export interface ConsoleAsset {
  bytes: Uint8Array;
  contentType: string;
  /** A strong validator: the quoted hex SHA-256 of `bytes`. */
  etag: string;
}

export interface ConsoleAssets {
  script: ConsoleAsset;
  style: ConsoleAsset;
}

const consoleDir = join(projectRoot, 'src', 'console');

async function bundle(): Promise<ConsoleAssets> {
  const { build } = await import('esbuild'); // on first request only: a process that serves no console never loads it
  const result = await build({
    entryPoints: [
      { in: join(consoleDir, 'main.ts'), out: 'console' },
      { in: join(consoleDir, 'console.css'), out: 'console' },
    ],
    ...BROWSER_BUNDLE,
    outdir: '/console-assets',
  });
  const asset = (ext: string, contentType: string): ConsoleAsset => {
    const file = result.outputFiles.find((f) => f.path.endsWith(`/console.${ext}`));
    if (!file) throw new Error(`esbuild produced no console.${ext}`);
    return {
      bytes: file.contents,
      contentType,
      etag: `"${createHash('sha256').update(file.contents).digest('hex')}"`,
    };
  };
  return {
    script: asset('js', 'application/javascript; charset=utf-8'),
    style: asset('css', 'text/css; charset=utf-8'),
  };
}

export function consoleAssets(): { get(): Promise<ConsoleAssets> } {
  let built: Promise<ConsoleAssets> | null = null;
  return {
    get() {
      built ??= bundle();
      // A failed build is tried again on the next request, not cached.
      built.catch(() => (built = null));
      return built;
    },
  };
}
