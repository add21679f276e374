import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { freePort } from '../../src/infra/free-port.js';
import { projectRoot } from '../../src/infra/project-root.js';
import { cliArgs } from '../support/service-entry.js';
import { startServiceProcess } from '../support/service-process.js';

/** The CLI as an operator runs it: its own process, the embedded stack found through DATA_DIR/run.json. */
function capture(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...cliArgs(), ...args],
      { cwd: projectRoot, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('capture-ledger against `make run` (src/main.ts)', () => {
  it('the entry point has a shebang and answers --help with exit 0, bad usage with 2', async () => {
    assert.ok((await readFile(join(projectRoot, 'src', 'cli', 'main.ts'), 'utf8')).startsWith('#!/usr/bin/env node\n'));
    const help = await capture(['--help'], {});
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /usage: capture-ledger <command>/);
    const bad = await capture(['usage', 'report'], {});
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--period is required/);
  });

  it('finds the running stack through run.json, which a clean stop removes', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cl-cli-e2e-'));
    const env = {
      DATA_DIR: dataDir,
      ADMIN_KEY: 'cli-e2e-admin-key-0123456789',
      SIGNING_KEY: 'none',
      ROLES: 'api,projector',
    };
    try {
      const service = await startServiceProcess(env, await freePort());
      const run = JSON.parse(await readFile(join(dataDir, 'run.json'), 'utf8'));
      assert.equal(run.pid, service.child.pid);
      assert.match(run.natsUrl, /^nats:\/\//);
      assert.match(run.databaseUrl, /^postgres:\/\//);
      // The embedded nats-server takes no anonymous client: the password is in run.json, readable by its owner only.
      assert.equal((await stat(join(dataDir, 'run.json'))).mode & 0o077, 0);
      assert.equal((await stat(join(dataDir, 'nats', 'nats-server.conf'))).mode & 0o077, 0);
      await assert.rejects(
        connect({ servers: run.natsUrl, reconnect: false, timeout: 5000 }),
        /Authorization Violation/i,
      );
      const asService = await connect({
        servers: run.natsUrl,
        reconnect: false,
        timeout: 5000,
        user: run.natsUser,
        pass: run.natsPassword,
      });
      await asService.close();
      const natsPid = (await readFile(join(dataDir, 'nats', 'nats-server.pid'), 'utf8')).trim();
      assert.doesNotMatch(
        await readFile(`/proc/${natsPid}/cmdline`, 'utf8'),
        new RegExp(run.natsPassword),
        'the password is not on the command line',
      );

      const created = await capture(
        ['keys', 'create', '--tenant', 'ops', '--scopes', 'read', '--name', 'from the cli'],
        { DATA_DIR: dataDir },
      );
      assert.equal(created.code, 0, created.stderr);
      const { key } = JSON.parse(created.stdout);
      const listed = await fetch(`${service.baseUrl}/v1/captures`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(listed.status, 200);

      const events = await capture(['events', 'list', '--tenant', 'ops', '--format', 'table'], { DATA_DIR: dataDir });
      assert.equal(events.code, 0, events.stderr);
      assert.match(events.stdout, /ops\s+key\.created\s+evt_/);
      const audit = await capture(['audit', '--tenant', 'ops'], { DATA_DIR: dataDir });
      assert.equal(audit.code, 0, audit.stdout + audit.stderr);

      assert.equal(await service.kill('SIGTERM'), 0, service.output());
      assert.equal(existsSync(join(dataDir, 'run.json')), false, 'run.json removed on a clean stop');
      const after = await capture(['events', 'list'], { DATA_DIR: dataDir });
      assert.equal(after.code, 1);
      assert.match(after.stderr, /no running service was found/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
