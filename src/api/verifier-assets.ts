import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BuildOptions } from 'esbuild';
import { projectRoot } from '../infra/project-root.js';
import { BROWSER_BUNDLE } from './browser-bundle.js';

/**
 * The verifier package (packages/verifier), served three ways, each built by esbuild from the package's sources on
 * first request and kept in memory (`make build` also writes the two downloads to dist/verifier/):
 *
 *   /verifier/verifier.js                 one ES module for browsers: the verification page checks a WACZ in the
 *                                         visitor's browser with the same code the API and the CLIs run
 *   /verifier/capture-ledger-verify.mjs   the command line as one dependency-free file for plain `node`
 *   /verifier/capture-ledger-verifier.tgz an npm package whose only bin is that same file and which declares no
 *                                         dependencies, so `npx <its URL> ...` installs it without a registry
 */
export const VERIFIER_SCRIPT_PATH = '/verifier/verifier.js';
export const VERIFIER_CLI_PATH = '/verifier/capture-ledger-verify.mjs';
export const VERIFIER_TARBALL_PATH = '/verifier/capture-ledger-verifier.tgz';

const PACKAGE_DIR = join(projectRoot, 'packages', 'verifier');
const CLI_FILE = 'capture-ledger-verify.mjs';

/** As packages/verifier/build.mjs bundles its CLI (which cannot import this TypeScript): Node ≥ 20, readable. */
const NODE_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'inline',
  write: false,
  logLevel: 'silent',
} as const satisfies BuildOptions;

async function bundled(entry: string, options: BuildOptions): Promise<Uint8Array> {
  // esbuild loads with the first bundle, not with the api role.
  const { build } = await import('esbuild');
  const result = await build({ entryPoints: [join(PACKAGE_DIR, 'src', entry)], ...options, write: false });
  return result.outputFiles![0]!.contents;
}

/** The command line as one file: the package's CLI with fflate, pkijs and asn1js bundled in. */
export const buildVerifierCli = (): Promise<Uint8Array> => bundled('cli.ts', NODE_BUNDLE);

/**
 * The npm tarball of the command line: package/package.json (no dependencies; its one bin is the bundled CLI),
 * package/README.md and package/capture-ledger-verify.mjs. Same input, same bytes (fixed mtime, no gzip time).
 */
export function verifierTarball(cli: Uint8Array): Uint8Array {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
  const manifest = {
    name: pkg['name'],
    version: pkg['version'],
    description: pkg['description'],
    license: pkg['license'],
    type: 'module',
    engines: pkg['engines'],
    bin: { 'capture-ledger-verify': CLI_FILE },
  };
  return gzipSync(
    tar([
      ['package/package.json', new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`), 0o644],
      ['package/README.md', readFileSync(join(PACKAGE_DIR, 'README.md')), 0o644],
      [`package/${CLI_FILE}`, cli, 0o755],
    ]),
  );
}

/** A POSIX ustar archive of regular files (names under 100 bytes), as npm reads a package tarball. */
function tar(files: ReadonlyArray<[name: string, data: Uint8Array, mode: number]>): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const [name, data, mode] of files) {
    const header = new Uint8Array(512);
    const put = (at: number, value: string) => header.set(new TextEncoder().encode(value), at);
    const octal = (at: number, width: number, value: number) =>
      put(at, `${value.toString(8).padStart(width - 1, '0')}\0`);
    put(0, name);
    octal(100, 8, mode);
    octal(108, 8, 0);
    octal(116, 8, 0);
    octal(124, 12, data.length);
    octal(136, 12, 0);
    put(148, '        '); // the checksum is computed with its own field as spaces
    put(156, '0');
    put(257, 'ustar\u000000');
    header.set(
      new TextEncoder().encode(
        `${header
          .reduce((sum, b) => sum + b, 0)
          .toString(8)
          .padStart(6, '0')}\0 `,
      ),
      148,
    );
    blocks.push(header, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  return Buffer.concat(blocks);
}

/** `make build`: the two downloads as files, for a deployment that serves them from elsewhere too. */
export async function writeVerifierDownloads(dir: string): Promise<void> {
  const cli = await buildVerifierCli();
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, CLI_FILE), cli);
  await writeFile(join(dir, 'capture-ledger-verifier.tgz'), verifierTarball(cli));
}

export interface VerifierAssets {
  script(): Promise<Uint8Array>;
  cli(): Promise<Uint8Array>;
  tarball(): Promise<Uint8Array>;
}

/** Each asset built once, on first request; a failed build is tried again on the next. */
function once(make: () => Promise<Uint8Array>): () => Promise<Uint8Array> {
  let made: Promise<Uint8Array> | null = null;
  return () => {
    made ??= make();
    made.catch(() => (made = null));
    return made;
  };
}

export function verifierAssets(): VerifierAssets {
  const cli = once(buildVerifierCli);
  return {
    script: once(() => bundled('index.ts', BROWSER_BUNDLE)),
    cli,
    tarball: once(async () => verifierTarball(await cli())),
  };
}
