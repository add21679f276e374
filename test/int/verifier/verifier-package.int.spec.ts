import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeBundle } from '../../../src/archive/bundle.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import { localNotary } from '../../../src/archive/notary.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { projectRoot } from '../../../src/infra/project-root.js';
import { publishedKeys, rezip, sampleCapture, testKey, unzip } from '../../unit/archive/bundle-fixture.js';

/**
 * The verifier anyone can install (README, "Verifier package"): `npm pack` of packages/verifier, the tarball
 * installed into an empty directory, and its CLI and library verify a real signed, time-stamped bundle — with
 * nothing of the service (NATS, Postgres, Fastify, Chromium) in what it installed.
 */

const run = (file: string, args: string[], cwd: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: { ...process.env, npm_config_loglevel: 'error' }, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('@capture-ledger/verifier as a packed npm package', () => {
  let work: string;
  let clean: string;
  let tsa: LocalTsa;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'cl-verifier-pack-'));
    clean = join(work, 'clean');
    tsa = await startLocalTsa({ dir: join(work, 'tsa') });
    const bundle = await makeBundle(
      sampleCapture(),
      localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) }),
    );
    assert.ok(bundle);
    assert.equal(bundle.ref.version, '0.2.0');
    await writeFile(join(work, 'bundle.wacz'), bundle.bytes);
    const files = unzip(bundle.bytes);
    files['pages/pages.jsonl'] = Buffer.concat([Buffer.from(files['pages/pages.jsonl']!), Buffer.from('\n')]); // one byte added after signing
    await writeFile(join(work, 'tampered.wacz'), rezip(files));
    await writeFile(join(work, 'keys.json'), JSON.stringify({ keys: publishedKeys() }));
    await writeFile(join(work, 'tsa-ca.pem'), tsa.caCertPem);

    const packed = await run('npm', ['pack', '--pack-destination', work], join(projectRoot, 'packages', 'verifier'));
    assert.equal(packed.code, 0, packed.stderr);
    const tarball = (await readdir(work)).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote no tarball');
    await run('mkdir', ['-p', clean], work);
    await writeFile(
      join(clean, 'package.json'),
      JSON.stringify({ name: 'clean-check', private: true, type: 'module' }),
    );
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', join(work, tarball)], clean);
    assert.equal(installed.code, 0, installed.stderr);
  });

  after(async () => {
    await tsa?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('installs nothing of the service: no NATS, Postgres, Fastify or Chromium driver', async () => {
    const listed = await run('npm', ['ls', '--all', '--parseable'], clean);
    const names = listed.stdout
      .split('\n')
      .filter(Boolean)
      .map((path) => path.split('node_modules/').pop() ?? '');
    assert.ok(names.includes('@capture-ledger/verifier'), listed.stdout);
    for (const name of names)
      assert.doesNotMatch(name, /nats|^pg$|postgres|fastify|puppeteer|chromium/, `installed ${name}`);
  });

  it('its CLI verifies the bundle (exit 0) and refuses a tampered one (exit 1)', async () => {
    const bin = join(clean, 'node_modules', '.bin', 'capture-ledger-verify');
    const ok = await run(
      bin,
      [join(work, 'bundle.wacz'), '--keys', join(work, 'keys.json'), '--tsa-ca', join(work, 'tsa-ca.pem')],
      clean,
    );
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const result = JSON.parse(ok.stdout);
    assert.equal(result.verified, true);
    assert.deepEqual(
      result.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`),
      ['artifactHashes:pass', 'bundleHash:pass', 'signature:pass', 'timestamp:pass'],
    );

    const bad = await run(
      bin,
      [join(work, 'tampered.wacz'), '--keys', join(work, 'keys.json'), '--tsa-ca', join(work, 'tsa-ca.pem')],
      clean,
    );
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.equal(JSON.parse(bad.stdout).checks[0].status, 'fail');

    const usage = await run(bin, [], clean);
    assert.equal(usage.code, 2);
  });

  it('its library is importable by name and gives the same result', async () => {
    const script = `
      import { readFile } from 'node:fs/promises';
      import { verifyBundle } from '@capture-ledger/verifier';
      const result = await verifyBundle(new Uint8Array(await readFile(process.argv[2])), {
        keys: JSON.parse(await readFile(process.argv[3], "utf8")).keys,
        tsaCaCertsPem: [await readFile(process.argv[4], "utf8")],
      });
      process.stdout.write(JSON.stringify(result));`;
    await writeFile(join(clean, 'check.mjs'), script);
    const r = await run(
      process.execPath,
      ['check.mjs', join(work, 'bundle.wacz'), join(work, 'keys.json'), join(work, 'tsa-ca.pem')],
      clean,
    );
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.verified, true, JSON.stringify(result.checks));
    assert.equal(result.capture.captureId, sampleCapture().captureId);
    assert.ok(
      (
        await readFile(join(clean, 'node_modules', '@capture-ledger', 'verifier', 'dist', 'index.d.ts'), 'utf8')
      ).includes('verifyCertificate'),
    );
  });
});
