import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { localNotary } from '../../../src/archive/notary.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import { readJson, sampleCapture, signedBundle, testKey, unzip } from '../../unit/archive/bundle-fixture.js';

const run = promisify(execFile);

/** The local TSA's tokens are standard: OpenSSL verifies them against the bundle digest and the CA. */
describe('RFC 3161 token in a v0.2.0 bundle, checked by openssl ts -verify', () => {
  let dir: string;
  let tsa: LocalTsa;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tsa-openssl-'));
    tsa = await startLocalTsa({ dir: join(dir, 'tsa') });
  });

  after(async () => {
    await tsa.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function bundleToken(): Promise<{ hex: string; tokenPath: string; caPath: string }> {
    const bundle = await signedBundle(
      sampleCapture(),
      localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) }),
    );
    assert.equal(bundle.ref.version, '0.2.0');
    const digest = readJson(unzip(bundle.bytes), 'datapackage-digest.json');
    const tokenPath = join(dir, 'token.der');
    const caPath = join(dir, 'ca.pem');
    await writeFile(tokenPath, Buffer.from(digest.signedData.timestamp.token, 'base64'));
    await writeFile(caPath, tsa.caCertPem);
    return { hex: bundle.ref.bundleHash.slice('sha256:'.length), tokenPath, caPath };
  }

  it('accepts the token for the bundle digest', async () => {
    const { hex, tokenPath, caPath } = await bundleToken();
    const { stdout } = await run('openssl', [
      'ts',
      '-verify',
      '-digest',
      hex,
      '-token_in',
      '-in',
      tokenPath,
      '-CAfile',
      caPath,
    ]);
    assert.match(stdout, /Verification: OK/);
  });

  it('rejects the token for any other digest', async () => {
    const { hex, tokenPath, caPath } = await bundleToken();
    const other = (hex[0] === '0' ? '1' : '0') + hex.slice(1);
    await assert.rejects(
      run('openssl', ['ts', '-verify', '-digest', other, '-token_in', '-in', tokenPath, '-CAfile', caPath]),
      (error: { stdout?: string; code?: number }) => error.code !== 0 && !/Verification: OK/.test(error.stdout ?? ''),
    );
  });

  it('shows SHA-256, our nonce-bearing TSTInfo and the TSA certificate with critical timeStamping EKU', async () => {
    const { tokenPath } = await bundleToken();
    const { stdout } = await run('openssl', ['ts', '-reply', '-token_in', '-in', tokenPath, '-token_out', '-text']);
    assert.match(stdout, /Hash Algorithm: sha256/);
    assert.match(stdout, /Nonce: 0x/);
    const certPath = join(dir, 'tsa-cert.pem');
    const { stdout: pkcs7 } = await run('openssl', ['pkcs7', '-inform', 'DER', '-in', tokenPath, '-print_certs']);
    await writeFile(certPath, pkcs7);
    const { stdout: text } = await run('openssl', ['x509', '-in', certPath, '-noout', '-text']);
    assert.match(text, /X509v3 Extended Key Usage: critical\s+Time Stamping/);
  });
});
