/** Rewrites docs/configuration.md from the configuration schema and its reference rows (src/config/config-reference.ts). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configReferenceDrift, renderConfigReference } from '../src/config/config-reference.js';
import { projectRoot } from '../src/infra/project-root.js';

const drift = configReferenceDrift();
if (drift.undocumented.length || drift.unknown.length) {
  process.stderr.write(
    `config reference out of step with the schema: undocumented ${drift.undocumented.join(', ') || '-'}; unknown ${drift.unknown.join(', ') || '-'}\n`,
  );
  process.exit(1);
}
writeFileSync(join(projectRoot, 'docs', 'configuration.md'), renderConfigReference());
