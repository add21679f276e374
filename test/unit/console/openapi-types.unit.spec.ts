import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { projectRoot } from '../../../src/infra/project-root.js';
import { CONSOLE_API_TYPES_FILE, renderConsoleApiTypes } from '../../../ops/openapi/console-api-types.js';

describe("the console's API types", () => {
  it(`${CONSOLE_API_TYPES_FILE} is openapi-typescript's rendering of the OpenAPI document (node --import tsx ops/render-console-types.ts rewrites it)`, async () => {
    const written = readFileSync(join(projectRoot, CONSOLE_API_TYPES_FILE), 'utf8');
    // Not assert.equal on two 8000-line strings: the first line that differs says what to do.
    const expected = await renderConsoleApiTypes();
    if (written === expected) return;
    const a = written.split('\n');
    const b = expected.split('\n');
    let at = 0;
    while (a[at] === b[at]) at++;
    assert.fail(
      `${CONSOLE_API_TYPES_FILE} is out of step with the OpenAPI document from line ${at + 1}: ` +
        `written ${JSON.stringify(a[at] ?? '')}, the document gives ${JSON.stringify(b[at] ?? '')}. ` +
        'Run `node --import tsx ops/render-console-types.ts`.',
    );
  });
});
