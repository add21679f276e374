import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type McpToolDeps, mcpTools } from '../../../src/api/mcp/mcp-tools.js';
import { HttpProblem } from '../../../src/api/problem.js';
import { batchBody, captureIdParams, listQuery, submitBody } from '../../../src/api/routes/captures.js';
import { createBody, scheduleIdParams } from '../../../src/api/routes/schedules.js';
import { verifyParams } from '../../../src/api/routes/verification.js';
import type { Caller } from '../../../src/application/caller.js';

/** The MCP tool table alone: which REST schema and scope each tool has, and the certificate tool's answer. */

const unused = <T>(): T => ({}) as T;
const deps = (extra: Partial<McpToolDeps> = {}): McpToolDeps => ({
  admission: unused(),
  reads: unused(),
  verification: unused(),
  schedules: unused(),
  usage: async () => ({}),
  publicBaseUrl: 'http://api.test',
  ...extra,
});
const caller = unused<Caller>();

describe('MCP tools', () => {
  it('are described by the REST schemas themselves (not copies) and need the scopes of their endpoints', () => {
    const byName = new Map(mcpTools(deps()).map((t) => [t.name, t]));
    const expected: Array<[string, unknown, string | null]> = [
      ['capture_url', submitBody, 'capture'],
      ['capture_batch', batchBody, 'capture'],
      ['get_capture', captureIdParams, null],
      ['list_captures', listQuery, 'read'],
      ['verify_capture', verifyParams, null],
      ['create_schedule', createBody, 'capture'],
      ['delete_schedule', scheduleIdParams, 'capture'],
    ];
    for (const [name, schema, scope] of expected) {
      assert.equal(byName.get(name)?.input, schema, name);
      assert.equal(byName.get(name)?.scope, scope, name);
    }
    assert.equal(byName.get('get_usage')?.scope, 'read');
    assert.equal(byName.get('list_schedules')?.scope, 'read');
  });

  it('offers no certificate tool without a certificate function', () => {
    assert.equal(
      mcpTools(deps()).find((t) => t.name === 'get_certificate'),
      undefined,
    );
  });

  it('answers the certificate as an embedded PDF resource with its URL, and passes the refusal of the certificate function through', async () => {
    const pdf = new TextEncoder().encode('%PDF-1.7 test bytes');
    const asked: string[] = [];
    const tool = mcpTools(
      deps({
        certificatePdf: async (id) => {
          asked.push(id);
          if (id !== 'cap_1') throw new HttpProblem(404, `No certificate for ${id}.`, 'Not Found');
          return pdf;
        },
      }),
    ).find((t) => t.name === 'get_certificate')!;
    assert.equal(tool.input, captureIdParams);
    assert.equal(tool.scope, null);
    const out = await tool.run({ captureId: 'cap_1' }, caller);
    assert.ok('content' in out);
    const resource = out.content.find((c) => c.type === 'resource') as {
      resource: { uri: string; mimeType: string; blob: string };
    };
    assert.equal(resource.resource.uri, 'http://api.test/v1/captures/cap_1/certificate');
    assert.equal(resource.resource.mimeType, 'application/pdf');
    assert.deepEqual(Buffer.from(resource.resource.blob, 'base64'), Buffer.from(pdf));
    await assert.rejects(tool.run({ captureId: 'cap_2' }, caller), (err: HttpProblem) => err.status === 404);
    assert.deepEqual(asked, ['cap_1', 'cap_2']);
  });
});
