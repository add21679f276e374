import assert from 'node:assert';
import { syncBuiltinESMExports } from 'node:module';

/**
 * Preloaded by `make test` (ops/run-tests.sh): a failing `assert.ok(value)` without a message of its own gets one
 * at once. Without it, Node reads the test's source to quote the failing expression, but under tsx the call site's
 * line and column are the compiled code's, not the .ts file's it reads, and that search can run for many minutes:
 * a failed check turned into the whole file's timeout twenty minutes later, with no word of what failed.
 */
const nodeOk: typeof assert.ok = assert.ok;

function ok(value: unknown, message?: string | Error): asserts value {
  if (value) return;
  nodeOk(value, message ?? `expected a truthy value, got ${String(value)}`);
}

assert.ok = ok;
assert.strict.ok = ok;
syncBuiltinESMExports();
