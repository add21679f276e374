import { join } from 'node:path';
import { projectRoot } from '../../src/infra/project-root.js';

/**
 * Where the tests start the service and the operator CLI as processes from. `ops/run-tests.sh` (int, all) bundles
 * both entries once per run with esbuild (ops/bundle-dist.ts) into a folder inside the checkout, so the bundle finds
 * the external packages in the project's node_modules, and names it in CL_TEST_BUNDLE_DIR: a process then starts
 * from its chunks instead of compiling the sources through tsx. A file run on its own (`node --test`, no variable)
 * starts the sources through tsx, so an edit is always what runs.
 */
export const testBundleDir: string | undefined = process.env.CL_TEST_BUNDLE_DIR || undefined;

/**
 * The bundle's entry, or undefined to run the sources. Without source maps, which cost a process 5–15 % more CPU to
 * start: a stack trace in its output names the bundle's chunks (NODE_OPTIONS=--enable-source-maps, which the
 * processes inherit, maps them to the sources).
 */
function bundled(entry: string): string[] | undefined {
  return testBundleDir ? [join(testBundleDir, entry)] : undefined;
}

/** Node's arguments that run the service's entry (src/main.ts). */
export function serviceArgs(): string[] {
  return bundled('main.js') ?? ['--import', 'tsx', join(projectRoot, 'src', 'main.ts')];
}

/** Node's arguments that run the operator CLI (src/cli/main.ts); its own arguments follow. */
export function cliArgs(): string[] {
  return bundled('cli.js') ?? ['--import', 'tsx', join(projectRoot, 'src', 'cli', 'main.ts')];
}
