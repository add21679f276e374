import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildSignedBundle,
  createTsaClient,
  runVerifyCli,
  startLocalTsa,
  type LocalTsa,
} from '../../../src/archive/index.js';
import { publishedKeys, rezip, sampleInput, testKey, unzip } from '../../unit/archive/bundle-fixture.js';

function capture() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: { stdout: (text: string) => (out.stdout += text), stderr: (text: string) => (out.stderr += text) },
  };
}

describe('verify CLI', () => {
  let dir: string;
  let tsa: LocalTsa;
  let keysServer: Server;
  let keysUrl: string;
  const paths = { bundle: '', tampered: '', keys: '', ca: '' };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'verify-cli-'));
    tsa = await startLocalTsa({ dir: join(dir, 'tsa') });
    const bundle = await buildSignedBundle(sampleInput(), { signingKey: testKey(), timestamper: createTsaClient({ url: tsa.url }) });
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
    const code = await runVerifyCli(['verify', paths.bundle, '--keys', paths.keys, '--tsa-ca', paths.ca], io);
    assert.equal(code, 0, out.stderr);
    const result = JSON.parse(out.stdout);
    assert.equal(result.verified, true);
    assert.equal(result.version, '0.2.0');
    assert.deepEqual(result.checks.map((c: { status: string }) => c.status), ['pass', 'pass', 'pass', 'pass']);
  });

  it('exits 0 with --keys-url', async () => {
    const { io, out } = capture();
    assert.equal(await runVerifyCli(['verify', paths.bundle, '--keys-url', keysUrl, '--tsa-ca', paths.ca], io), 0, out.stderr);
  });

  it('exits 1 for a tampered bundle and says which check failed', async () => {
    const { io, out } = capture();
    assert.equal(await runVerifyCli(['verify', paths.tampered, '--keys', paths.keys, '--tsa-ca', paths.ca], io), 1);
    const result = JSON.parse(out.stdout);
    assert.equal(result.verified, false);
    assert.equal(result.checks[0].status, 'fail');
    assert.match(result.checks[0].detail, /pages\/pages\.jsonl/);
  });

  it('exits 1 without published keys or TSA CA', async () => {
    const { io, out } = capture();
    assert.equal(await runVerifyCli(['verify', paths.bundle], io), 1);
    const result = JSON.parse(out.stdout);
    assert.equal(result.checks[2].status, 'fail');
    assert.equal(result.checks[3].status, 'fail');
  });

  it('exits 1 with a message for bad arguments or unreadable files', async () => {
    const usage = capture();
    assert.equal(await runVerifyCli(['verify'], usage.io), 1);
    assert.match(usage.out.stderr, /no bundle file given[\s\S]*usage: verify/);
    const missing = capture();
    assert.equal(await runVerifyCli(['verify', join(dir, 'nope.wacz')], missing.io), 1);
    assert.match(missing.out.stderr, /ENOENT/);
    const both = capture();
    assert.equal(await runVerifyCli([paths.bundle, '--keys', paths.keys, '--keys-url', keysUrl], both.io), 1);
    assert.match(both.out.stderr, /not both/);
  });
});
