import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestServer } from './test-server.js';

export interface VerifierRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The one-file verifier command line as the service serves it (GET /verifier/capture-ledger-verify.mjs), written
 * into `dir` and run there with plain node: what a reader of the verify page downloads and runs, not the package's
 * TypeScript source.
 */
export async function servedVerifier(
  server: TestServer,
  dir: string,
): Promise<(args: string[]) => Promise<VerifierRun>> {
  const served = await server.call('GET', '/verifier/capture-ledger-verify.mjs');
  assert.equal(served.status, 200, `the verifier is not served: ${served.status} ${served.text.slice(0, 200)}`);
  const file = join(dir, 'capture-ledger-verify.mjs');
  await writeFile(file, served.raw);
  return (args) =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [file, ...args],
        { cwd: dir, timeout: 120_000, maxBuffer: 32 * 1024 * 1024 },
        (err, stdout, stderr) =>
          resolve({
            code: err ? ((err as { code?: number }).code ?? 1) : 0,
            stdout: String(stdout),
            stderr: String(stderr),
          }),
      );
    });
}
