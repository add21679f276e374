import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localNotary } from '../../../src/archive/notary.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import { runCli } from '../../../src/cli/run-cli.js';
import {
  publishedKeys,
  rezip,
  sampleCapture,
  signedBundle,
  testKey,
  unzip,
} from '../../unit/archive/bundle-fixture.js';

function capture() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      env: {},
      stdout: (text: string) => void (out.stdout += text),
      stderr: (text: string) => void (out.stderr += text),
    },
  };
}

describe('capture-ledger verify', () => {
  let dir: string;
  let tsa: LocalTsa;
  let keysServer: Server;
  let keysUrl: string;
  const paths = { bundle: '', tampered: '', keys: '', ca: '' };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'verify-cli-'));
    tsa = await startLocalTsa({ dir: join(dir, 'tsa') });
    const bundle = await signedBundle(
      sampleCapture(),
      localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) }),
    );
    paths.bundle = join(dir, 'capture.wacz');
    await writeFile(paths.bundle, bundle.bytes);
    const files = unzip(bundle.bytes);
    files['pages/pages.jsonl'] = new TextEncoder().encode('{"format":"json-pages-1.0"}\n');
    paths.tampered = join(dir, 'tampered.wacz');
    await writeFile(paths.tampered, rezip(files));
    paths.keys = join(dir, 'signing-keys.json');
    await writeFile(paths.keys, JSON.stringify({ keys: publishedKeys() }));
    paths.ca = join(dir, 'tsa-ca.pem');
    await writeFile(paths.ca, tsa.caCertPem);
    keysServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: publishedKeys() }));
    });
    await new Promise<void>((resolve) => keysServer.listen(0, '127.0.0.1', resolve));
    keysUrl = `http://127.0.0.1:${(keysServer.address() as AddressInfo).port}/.well-known/signing-keys`;
  });

  after(async () => {
    await tsa.close();
    await new Promise<void>((resolve) => keysServer.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 0 and prints the verification JSON for a good bundle (--keys file)', async () => {
    const { io, out } = capture();
    const code = await runCli(['verify', paths.bundle, '--keys', paths.keys, '--tsa-ca', paths.ca], io);
    assert.equal(code, 0, out.stderr);
    const result = JSON.parse(out.stdout);
    assert.equal(result.verified, true);
    assert.equal(result.version, '0.2.0');
    assert.deepEqual(
      result.checks.map((c: { status: string }) => c.status),
      ['pass', 'pass', 'pass', 'pass'],
    );
  });

  it('exits 0 with --keys-url', async () => {
    const { io, out } = capture();
    assert.equal(
      await runCli(['verify', paths.bundle, '--keys-url', keysUrl, '--tsa-ca', paths.ca], io),
      0,
      out.stderr,
    );
  });

  it('exits 1 for a tampered bundle and says which check failed', async () => {
    const { io, out } = capture();
    assert.equal(await runCli(['verify', paths.tampered, '--keys', paths.keys, '--tsa-ca', paths.ca], io), 1);
    const result = JSON.parse(out.stdout);
    assert.equal(result.verified, false);
    assert.equal(result.checks[0].status, 'fail');
    assert.match(result.checks[0].detail, /pages\/pages\.jsonl/);
  });

  it('exits 1 without published keys or TSA CA', async () => {
    const { io, out } = capture();
    assert.equal(await runCli(['verify', paths.bundle], io), 1);
    const result = JSON.parse(out.stdout);
    assert.equal(result.checks[2].status, 'fail');
    assert.equal(result.checks[3].status, 'fail');
  });

  it('exits 2 for bad arguments and 1 for unreadable files, with a message', async () => {
    const usage = capture();
    assert.equal(await runCli(['verify'], usage.io), 2);
    assert.match(usage.out.stderr, /missing FILE[\s\S]*usage: capture-ledger verify FILE/);
    const missing = capture();
    assert.equal(await runCli(['verify', join(dir, 'nope.wacz')], missing.io), 1);
    assert.match(missing.out.stderr, /ENOENT[\s\S]*nothing was verified/);
    const both = capture();
    assert.equal(await runCli(['verify', paths.bundle, '--keys', paths.keys, '--keys-url', keysUrl], both.io), 2);
    assert.match(both.out.stderr, /not both/);
    const help = capture();
    assert.equal(await runCli(['verify', '--help'], help.io), 0);
    assert.match(help.out.stdout, /--tsa-ca-url URL/);
  });
});
