import type { BuildOptions } from 'esbuild';

/** How every script the service serves to browsers is bundled by esbuild: one minified ES module, kept in memory. */
export const BROWSER_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  logLevel: 'silent',
  legalComments: 'none',
} as const satisfies BuildOptions;
