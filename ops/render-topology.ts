// Rewrites what is derived from the NATS topology (src/infra/topology.ts) and kept in files: the table of
// docs/architecture.md and the authorization block of ops/nats/cluster.conf. Unit tests fail until it is run:
//   node --import tsx ops/render-topology.ts
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { COMPOSE_NATS_USERS, natsAuthorizationConfig } from '../src/infra/nats-permissions.js';
import { projectRoot } from '../src/infra/project-root.js';
import { topologyTable } from '../src/infra/topology-table.js';

async function rewrite(file: string, block: RegExp, content: string): Promise<void> {
  const path = join(projectRoot, file);
  const text = await readFile(path, 'utf8');
  if (!block.test(text)) throw new Error(`${path} has no block to rewrite (${block})`);
  await writeFile(
    path,
    text.replace(block, (_m, begin: string, end: string) => `${begin}${content}${end}`),
  );
}

await rewrite(
  'docs/architecture.md',
  /(<!-- topology:begin[^>]*-->\n)[\s\S]*?(\n<!-- topology:end -->)/,
  topologyTable(),
);
await rewrite(
  'ops/nats/cluster.conf',
  /()authorization \{\n[\s\S]*?\n\}(\n)/,
  natsAuthorizationConfig(COMPOSE_NATS_USERS),
);
