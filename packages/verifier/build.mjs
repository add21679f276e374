// Builds the package on its own (npm run build, and npm pack's prepack): esbuild bundles the CLI and the library
// with their dependencies (fflate, pkijs, asn1js) into dist/, so the package installs nothing from a registry, and
// tsc writes the type declarations. The service serves the same CLI bundle (src/api/verifier-assets.ts).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

/** One ES module for Node ≥ 20, dependencies included; readable (not minified), so anyone can audit it. */
export const NODE_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'inline',
  logLevel: 'warning',
};

const here = new URL('.', import.meta.url).pathname;
rmSync(`${here}dist`, { recursive: true, force: true });
await build({ ...NODE_BUNDLE, entryPoints: [`${here}src/cli.ts`], outfile: `${here}dist/cli.js` });
await build({ ...NODE_BUNDLE, entryPoints: [`${here}src/index.ts`], outfile: `${here}dist/index.js` });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', `${here}tsconfig.json`, '--emitDeclarationOnly'], { stdio: 'inherit' });
