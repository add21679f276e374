import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localNotary } from '../../../src/archive/notary.js';
import { registerSigningKey } from '../../../src/archive/signing-key-registry.js';
import { loadOrCreateSigningKey, SEED_FILE_NAME, signingKeyFromSeed } from '../../../src/archive/signing-key.js';
import { createKeyResolver } from '../../../src/api/auth.js';
import { SYSTEM_SUBJECT } from '../../../src/ledger/streams.js';
import {
  publishedKeys,
  rezip,
  sampleCapture,
  signedBundle,
  testKey,
  unzip,
} from '../../unit/archive/bundle-fixture.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';
import { cli, jsonLines, writeTenantHistory } from './cli-fixtures.js';

describe('capture-ledger usage report, keys create, signing rotate, verify', () => {
  let s: TestServer;
  let env: Record<string, string>;
  const period = new Date().toISOString().slice(0, 7);
  before(async () => {
    s = await startTestServer();
    env = { NATS_URL: s.infra.nats.url, DATABASE_URL: s.databaseUrl };
    await writeTenantHistory(s.server.ctx.tenants, 'acme', 6);
    await writeTenantHistory(s.server.ctx.tenants, 'zeta-co', 3);
    const last = await s.server.store!.lastSeq();
    await s.server.ctx.waiter.waitFor(last);
  });
  after(async () => s.stop());

  it('usage report as CSV: one row per tenant, stable header, numbers from usage_monthly and the tier', async () => {
    const r = await cli(['usage', 'report', '--period', period], env);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(
      lines[0],
      'tenant_id,period,tier,captures_submitted,captures_completed,captures_failed,storage_bytes,api_calls,captures_limit,storage_limit',
    );
    assert.equal(lines.at(-1), '');
    const acme = lines[1]!.split(',');
    // 6 single captures + 1 schedule run; completed: i%3==1 → 2 + the schedule run; failed: i%3==0 → 2.
    assert.deepEqual(acme, [
      'acme',
      period,
      'pro',
      '7',
      '3',
      '2',
      String(1001 + 1004 + 5),
      '17',
      '100000',
      '50000000000',
    ]);
    assert.equal(lines[2]!.split(',')[0], 'zeta-co');

    const empty = await cli(['usage', 'report', '--period', '1999-01', '--tenant', 'acme'], env);
    assert.equal(empty.stdout.split('\n')[1], 'acme,1999-01,pro,0,0,0,0,0,100000,50000000000');
  });

  it('usage report as JSON, for one tenant; unknown tenant and bad period refused', async () => {
    const r = await cli(['usage', 'report', '--period', period, '--tenant', 'zeta-co', '--format', 'json'], env);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.period, period);
    assert.deepEqual(doc.tenants, [
      {
        tenantId: 'zeta-co',
        period,
        tier: 'pro',
        capturesSubmitted: 4,
        capturesCompleted: 2,
        capturesFailed: 1,
        storageBytes: 1001 + 5,
        apiCalls: 17,
        capturesLimit: 100000,
        storageLimit: 50000000000,
      },
    ]);
    const unknown = await cli(['usage', 'report', '--period', period, '--tenant', 'nobody'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no tenant 'nobody'/);
    const bad = await cli(['usage', 'report', '--period', '2025-3'], env);
    assert.equal(bad.code, 2);
    const missing = await cli(['usage', 'report'], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--period is required/);
  });

  it('keys create appends key.created as the operator and prints a key that authenticates at once', async () => {
    const r = await cli(
      ['keys', 'create', '--tenant', 'newco', '--scopes', 'capture,read', '--name', 'bootstrap key'],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    const created = JSON.parse(r.stdout);
    assert.match(created.key, /^svc_live_[0-9a-f]{64}$/);
    assert.deepEqual(created.scopes, ['capture', 'read']);
    assert.equal(created.tenantId, 'newco');
    assert.equal(created.warning, 'Store this key now. It cannot be retrieved after this response.');
    assert.match(r.stderr, /Store this key now/);

    const principal = await createKeyResolver(s.server.ctx.pool).resolve(created.key);
    assert.deepEqual(principal, { tenantId: 'newco', scopes: ['capture', 'read'], keyHash: created.keyHash });
    const listed = await s.call('GET', '/v1/captures', { token: created.key });
    assert.equal(listed.status, 200, listed.text);

    // The GET above was an API call of newco's, which the usage recorder appends on its own timer; flushed
    // here so the listing holds it whatever the timing. Everything else on newco's subject is what keys create appended.
    await s.server.usage!.flush();
    const newcoEvents = jsonLines((await cli(['events', 'list', '--tenant', 'newco'], env)).stdout);
    const usage = newcoEvents.filter((l) => l.event.type === 'usage.api_calls_recorded');
    assert.deepEqual(
      usage.map((l) => l.event.data.count),
      [1],
    );
    const events = newcoEvents.filter((l) => l.event.type !== 'usage.api_calls_recorded');
    assert.equal(events.length, 1);
    assert.equal(events[0].event.type, 'key.created');
    assert.deepEqual(events[0].event.causedBy, { kind: 'admin' });
    assert.equal(events[0].event.data.keyHash, created.keyHash);
    assert.ok(!JSON.stringify(events).includes(created.key), 'the raw key is never stored');
  });

  it('keys create refuses bad input with exit 2 naming the option', async () => {
    for (const [argv, text] of [
      [['--tenant', 'Bad', '--scopes', 'read', '--name', 'x'], /--tenant must match/],
      [['--tenant', 'ok', '--scopes', 'read,write', '--name', 'x'], /'write' is not a scope/],
      [['--tenant', 'ok', '--scopes', ',', '--name', 'x'], /--scopes must list at least one/],
      [['--tenant', 'ok', '--scopes', 'read', '--name', 'no/slashes'], /--name must be/],
      [['--tenant', 'ok', '--scopes', 'read'], /--name is required/],
    ] as const) {
      const r = await cli(['keys', 'create', ...argv], env);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, text);
    }
  });

  it('signing rotate writes a new seed, keeps the old one, records the rotation; old keys stay published', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cl-sign-'));
    try {
      const old = await loadOrCreateSigningKey(dataDir);
      await registerSigningKey(s.server.store!, old, () => new Date());
      const r = await cli(['signing', 'rotate'], { ...env, DATA_DIR: dataDir });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.previousKeyId, old.keyId);
      assert.notEqual(out.keyId, old.keyId);
      assert.match(r.stderr, /pick it up on restart/);

      const seedPath = join(dataDir, SEED_FILE_NAME);
      assert.equal(out.seedFile, seedPath);
      assert.equal((await loadOrCreateSigningKey(dataDir)).keyId, out.keyId, 'the service loads the new seed');
      assert.equal(
        signingKeyFromSeed(await readFile(join(dataDir, `signing-key.${old.keyId}.seed`), 'utf8')).keyId,
        old.keyId,
      );
      assert.equal((await stat(seedPath)).mode & 0o777, 0o600);

      const rotated = (await s.server.store!.readSubject(SYSTEM_SUBJECT)).at(-1)!.event as any;
      assert.equal(rotated.type, 'signing.key_rotated');
      assert.deepEqual([rotated.data.keyId, rotated.data.previousKeyId], [out.keyId, old.keyId]);

      await s.server.ctx.waiter.waitFor(await s.server.store!.lastSeq());
      const current = await s.call('GET', '/.well-known/signing-key');
      assert.equal(current.body.keyId, out.keyId);
      const all = await s.call('GET', '/.well-known/signing-keys');
      assert.deepEqual(all.body.keys.map((k: any) => k.keyId).sort(), [old.keyId, out.keyId].sort());

      const envKey = await cli(['signing', 'rotate'], { ...env, DATA_DIR: dataDir, SIGNING_KEY: `${'A'.repeat(43)}=` });
      assert.equal(envKey.code, 1);
      assert.match(envKey.stderr, /SIGNING_KEY is set/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('verify delegates to the offline verifier: 0 verified, 1 not, 2 for bad arguments', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cl-verify-'));
    try {
      const bundle = await signedBundle(sampleCapture(), localNotary(testKey()));
      const good = join(dir, 'good.wacz');
      await writeFile(good, bundle.bytes);
      const files = unzip(bundle.bytes);
      files['pages/pages.jsonl'] = new TextEncoder().encode('{"format":"json-pages-1.0"}\n');
      const bad = join(dir, 'bad.wacz');
      await writeFile(bad, rezip(files));
      const keys = join(dir, 'keys.json');
      await writeFile(keys, JSON.stringify({ keys: publishedKeys() }));

      const ok = await cli(['verify', good, '--keys', keys], {});
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(JSON.parse(ok.stdout).verified, true);
      const tampered = await cli(['verify', bad, '--keys', keys], {});
      assert.equal(tampered.code, 1);
      assert.equal(JSON.parse(tampered.stdout).verified, false);
      assert.equal((await cli(['verify'], {})).code, 2);
      assert.equal((await cli(['verify', good, '--keys', keys, '--keys-url', 'http://x/'], {})).code, 2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
