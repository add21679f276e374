import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jetstream } from '@nats-io/jetstream';
import { openArtifactStore } from '../../../src/storage/jetstream-artifact-store.js';
import { artifactObjectName } from '../../../src/domain/artifacts.js';
import { newId } from '../../../src/domain/ids.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';
import { cli } from './cli-fixtures.js';

const byOperator = { correlationId: 'storage-verify', causedBy: { kind: 'admin' as const } };

/** `capture-ledger storage verify`: every artifact the ledger names, read back and checked. */
describe('capture-ledger storage verify', () => {
  let s: TestServer;
  let env: Record<string, string>;
  const captures: Array<{ id: string; seq: number }> = [];

  /** A capture completed through the tenant actor, naming `artifacts`. */
  async function complete(tenant: string, artifacts: Record<string, string>) {
    const captureId = newId('cap');
    const tenants = s.server.ctx.tenants;
    await tenants.execute(
      tenant,
      {
        type: 'SubmitCaptures',
        data: { captures: [{ captureId, url: 'https://example.com/' }], source: 'single' },
      } as never,
      byOperator,
    );
    await tenants.execute(
      tenant,
      {
        type: 'CompleteCapture',
        data: {
          captureId,
          completedAt: new Date().toISOString(),
          renderQuality: 'full',
          render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
          artifacts,
          storedBytes: 1,
          attempts: 1,
        },
      } as never,
      byOperator,
    );
    captures.push({ id: captureId, seq: await s.server.store!.lastSeq() });
    return captureId;
  }

  before(async () => {
    s = await startTestServer();
    env = { NATS_URL: s.infra.nats.url, DATABASE_URL: s.databaseUrl };
    const store = await openArtifactStore(s.server.nats.nc);
    const put = async (captureId: string, name: 'screenshot' | 'html', bytes: Uint8Array) => {
      const object = artifactObjectName(captureId, 'a1', name);
      await store.put(object, bytes);
      return object;
    };
    // Whole.
    const a = `cap_${'1'.repeat(32)}`;
    await complete('sv', {
      screenshot: await put(a, 'screenshot', new Uint8Array(300_000).fill(1)),
      html: await put(a, 'html', Buffer.from('<p>a</p>')),
    });
    // One object missing from storage.
    const b = `cap_${'2'.repeat(32)}`;
    await complete('sv', {
      screenshot: await put(b, 'screenshot', new Uint8Array(10).fill(2)),
      html: artifactObjectName(b, 'a1', 'html'),
    });
    // One object whose chunk is gone: its meta names two chunks, one is stored.
    const c = artifactObjectName(`cap_${'3'.repeat(32)}`, 'a1', 'screenshot');
    const js = jetstream(s.server.nats.nc);
    await js.publish('$O.artifacts.C.lost-chunk', new Uint8Array(128 * 1024));
    const meta = {
      name: c,
      bucket: 'artifacts',
      nuid: 'lost-chunk',
      size: 256 * 1024,
      chunks: 2,
      digest: 'SHA-256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      mtime: new Date().toISOString(),
      deleted: false,
    };
    await js.publish(
      `$O.artifacts.M.${Buffer.from(c).toString('base64').replace(/\+/g, '-').replace(/\//g, '_')}`,
      JSON.stringify(meta),
    );
    await complete('sv', { screenshot: c, html: await put(`cap_${'3'.repeat(32)}`, 'html', Buffer.from('<p>c</p>')) });
  });
  after(async () => s?.stop());

  it('names each missing and corrupt object, and exits 1', async () => {
    const r = await cli(['storage', 'verify'], env);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const problems = lines.filter((l) => !l.summary);
    assert.deepEqual(
      problems.map((p) => [p.captureId, p.artifact, p.status]),
      [
        [captures[1]!.id, 'html', 'missing'],
        [captures[2]!.id, 'screenshot', 'corrupt'],
      ],
    );
    assert.match(problems[1].detail, /chunk 2 of 2 is missing/);
    assert.equal(problems[0].tenantId, 'sv');
    assert.equal(problems[0].seq, captures[1]!.seq);
    const { summary } = lines.at(-1);
    assert.deepEqual(
      [summary.captures, summary.artifacts, summary.ok, summary.missing, summary.corrupt, summary.complete],
      [3, 6, 4, 1, 1, true],
    );
  });

  it('resumes from a stream sequence, and exits 0 when what it checked is whole', async () => {
    const r = await cli(['storage', 'verify', '--until', String(captures[0]!.seq)], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout.trim()).summary.captures, 1);
    const rest = await cli(['storage', 'verify', '--from', String(captures[1]!.seq + 1)], env);
    assert.equal(rest.code, 1);
    const lines = rest.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.filter((l) => !l.summary).map((p) => p.captureId),
      [captures[2]!.id],
    );
  });
});
