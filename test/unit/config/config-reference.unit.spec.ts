import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFIG_REFERENCE, configReferenceDrift, renderConfigReference } from '../../../src/config/config-reference.js';
import { projectRoot } from '../../../src/infra/project-root.js';

describe('configuration reference', () => {
  it('documents every variable the schema parses, and none it does not', () => {
    assert.deepEqual(configReferenceDrift(), { undocumented: [], unknown: [] });
  });

  it('names each variable once', () => {
    const names = CONFIG_REFERENCE.flatMap((r) => r.names);
    assert.deepEqual(
      names.filter((n, i) => names.indexOf(n) !== i),
      [],
    );
  });

  it('docs/configuration.md is the rendered reference (node --import tsx ops/render-config-doc.ts rewrites it)', () => {
    assert.equal(readFileSync(join(projectRoot, 'docs', 'configuration.md'), 'utf8'), renderConfigReference());
  });
});
