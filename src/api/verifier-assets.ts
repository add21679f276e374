import { join } from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../infra/project-root.js';
import { BROWSER_BUNDLE } from './browser-bundle.js';

/**
 * The verifier package (packages/verifier) as one ES module for browsers, served at /verifier/verifier.js so the
 * verification page checks a WACZ in the visitor's browser with the same code the API and the CLIs run.
 * Bundled from the package's sources by esbuild on first request (fflate, pkijs and asn1js included; the
 * package has no Node-only import outside its CLI) and kept in memory.
 */
export const VERIFIER_SCRIPT_PATH = '/verifier/verifier.js';

export function verifierAssets(): { script(): Promise<Uint8Array> } {
  let bundled: Promise<Uint8Array> | null = null;
  return {
    script() {
      bundled ??= build({
        entryPoints: [join(projectRoot, 'packages', 'verifier', 'src', 'index.ts')],
        ...BROWSER_BUNDLE,
      }).then((result) => result.outputFiles[0]!.contents);
      bundled.catch(() => (bundled = null));
      return bundled;
    },
  };
}
