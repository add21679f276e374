import assert from 'node:assert/strict';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from '../../src/infra/free-port.js';
import { serviceArgs } from '../support/service-entry.js';
import { startServiceProcess } from '../support/service-process.js';

const ADMIN = 'restart-admin-key-0123456789';
const alive = async (pidFile: string) => {
  try {
    const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
};

describe('the embedded stack (make run) across a SIGKILL and a clean stop', () => {
  it('keeps every acknowledged write after SIGKILL, replaces stale children, and stops them on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cl-restart-'));
    const env = { DATA_DIR: dataDir, ADMIN_KEY: ADMIN, SIGNING_KEY: 'none', ROLES: 'api,projector' };
    try {
      const first = await startServiceProcess(env, await freePort());
      const created = await fetch(`${first.baseUrl}/v1/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tenantId: 'durable', scopes: ['read'], name: 'survivor' }),
      });
      assert.equal(created.status, 201);
      const { keyHash } = (await created.json()) as { keyHash: string };
      await first.kill('SIGKILL');
      const staleNats = await alive(join(dataDir, 'nats', 'nats-server.pid'));
      assert.ok(staleNats, 'the killed parent left its nats-server running');

      const second = await startServiceProcess(env, await freePort());
      assert.equal(
        (await alive(join(dataDir, 'nats', 'nats-server.pid'))) === staleNats,
        false,
        'stale nats-server replaced',
      );
      const list = await fetch(`${second.baseUrl}/v1/admin/keys?tenant=durable`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      const body = (await list.json()) as { data: Array<{ keyHash: string }> };
      assert.deepEqual(
        body.data.map((k) => k.keyHash),
        [keyHash],
      );

      assert.equal(await second.kill('SIGTERM'), 0, second.output());
      assert.equal(await alive(join(dataDir, 'nats', 'nats-server.pid')), null, 'nats-server stopped with the service');
      assert.equal(await alive(join(dataDir, 'postgres', 'postmaster.pid')), null, 'postgres stopped with the service');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('exits non-zero naming a bad variable', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, serviceArgs(), {
      env: { ...process.env, BATCH_MAX: '500' },
      encoding: 'utf8',
    });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /BATCH_MAX must be between 1 and 100/);
  });
});
