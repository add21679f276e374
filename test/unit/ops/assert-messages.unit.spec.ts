import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The test preload (test/support/assert-messages.ts): a failing `assert.ok` without a message fails with one of its
 * own, in a TypeScript test file run as `make test` runs it, instead of Node searching the source for the expression.
 */
const PRELOAD = new URL('../../support/assert-messages.ts', import.meta.url).pathname;

function runNode(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the test preload for assert.ok', () => {
  it('gives a failing assert.ok without a message one of its own, in strict and default assert', {
    timeout: 120_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cl-assert-'));
    try {
      const file = join(dir, 'fails.ts');
      await writeFile(
        file,
        [
          "import strict from 'node:assert/strict';",
          "import assert, { ok } from 'node:assert';",
          'type Row = { a: number };',
          'const row: Row = { a: 1 };',
          'for (const check of [() => strict.ok(row.a > 2), () => assert.ok(row.a > 2), () => ok(row.a > 2)]) {',
          '  try {',
          '    check();',
          "    console.log('no failure');",
          '  } catch (error) {',
          '    console.log(`failed: ${(error as Error).message}`);',
          '  }',
          '}',
          'strict.ok(row.a === 1);',
          "console.log('a passing check passes');",
        ].join('\n'),
      );
      const { code, output } = await runNode(['--import', 'tsx', '--import', PRELOAD, file], process.cwd());
      assert.equal(code, 0, output);
      assert.equal(output.match(/failed: expected a truthy value, got false/g)?.length, 3, output);
      assert.match(output, /a passing check passes/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
