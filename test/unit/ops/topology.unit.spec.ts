import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { projectRoot } from '../../../src/infra/project-root.js';
import { ROLE_GRANTS } from '../../../src/infra/nats-permissions.js';
import { BUCKETS, bucketStream, DURABLES, NATS_ROLES, STREAMS, SUBJECTS } from '../../../src/infra/topology.js';
import { topologyTable } from '../../../src/infra/topology-table.js';

describe('the NATS topology, declared once (src/infra/topology.ts)', () => {
  it('is the table of docs/architecture.md', async () => {
    const doc = await readFile(join(projectRoot, 'docs', 'architecture.md'), 'utf8');
    const table = /<!-- topology:begin[^>]*-->\n([\s\S]*?)\n<!-- topology:end -->/.exec(doc)?.[1];
    assert.ok(table, 'docs/architecture.md has the topology markers');
    assert.equal(
      table,
      topologyTable(),
      "docs/architecture.md's topology table differs from src/infra/topology.ts: run `node --import tsx ops/render-topology.ts`",
    );
  });

  it('names each stream, bucket and subject once, and every subject falls in a declared stream or is core', () => {
    const names = [...Object.values(STREAMS).map((s) => s.name), ...Object.values(BUCKETS).map(bucketStream)];
    assert.equal(new Set(names).size, names.length);
    const subjects = Object.values(SUBJECTS).map((s) => s.subject);
    assert.equal(new Set(subjects).size, subjects.length);
    for (const s of Object.values(SUBJECTS).filter((x) => x.kind === 'event')) {
      const inStream = Object.values(STREAMS).some((st) =>
        st.config.subjects.some((p) => p === s.subject || (p.endsWith('.>') && s.subject.startsWith(p.slice(0, -1)))),
      );
      assert.ok(inStream, `${s.subject} is kept by a stream`);
    }
    for (const d of Object.values(DURABLES))
      assert.ok(
        Object.values(STREAMS).some((s) => s.name === d.stream),
        `${d.name} reads a declared stream`,
      );
  });

  it('grants each role exactly what the topology says it uses', () => {
    for (const role of NATS_ROLES) {
      const g = ROLE_GRANTS[role];
      assert.deepEqual(
        new Set(g.publish),
        new Set(
          Object.values(SUBJECTS)
            .filter((s) => s.publish.includes(role))
            .map((s) => s.subject),
        ),
        role,
      );
      assert.deepEqual(
        new Set(g.kvWrite),
        new Set(
          Object.values(BUCKETS)
            .filter((b) => b.kind === 'kv' && b.write.includes(role))
            .map((b) => b.name),
        ),
        role,
      );
      assert.deepEqual(
        new Set(g.objWrite),
        new Set(
          Object.values(BUCKETS)
            .filter((b) => b.kind === 'object' && b.write.includes(role))
            .map((b) => b.name),
        ),
        role,
      );
      assert.deepEqual(
        new Set(g.durables.map((d) => d.name)),
        new Set(
          Object.values(DURABLES)
            .filter((d) => d.owner === role)
            .map((d) => d.name),
        ),
        role,
      );
    }
  });
});
