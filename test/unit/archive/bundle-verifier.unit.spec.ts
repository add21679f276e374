import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import nacl from 'tweetnacl';
import type { SignedBundle } from '../../../src/archive/bundle.js';
import { canonicalJsonBytes } from '../../../src/domain/canonical-json.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { signingKeyFromSeed } from '../../../src/archive/signing-key.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import { verifyBundle, type VerificationResult } from '../../../packages/verifier/src/index.js';
import {
  bundlesOfBothVersions,
  closeBundlesOfBothVersions,
  type publishedKeys,
  readJson,
  rezip,
  testKey,
  unzip,
  writeJson,
} from './bundle-fixture.js';

function statuses(result: VerificationResult): Record<string, string> {
  return Object.fromEntries(result.checks.map((check) => [check.name, check.status]));
}

describe('signed bundle: build → verify', () => {
  let dir: string;
  let tsa: LocalTsa;
  let v1: SignedBundle;
  let v2: SignedBundle;
  let options: { keys: ReturnType<typeof publishedKeys>; tsaCaCertsPem: string[] };

  before(async () => {
    ({ dir, tsa, v1, v2, options } = await bundlesOfBothVersions('bundle-verifier-'));
  });
  after(() => closeBundlesOfBothVersions({ dir, tsa }));

  it('v0.1.0 (no timestamper) verifies with three passing checks', async () => {
    assert.equal(v1.ref.version, '0.1.0');
    assert.equal(v1.ref.size, v1.bytes.byteLength);
    assert.equal(v1.ref.keyId, testKey().keyId);
    assert.equal(v1.timestamp, undefined);
    assert.equal(v1.timestampError, undefined);
    const result = await verifyBundle(v1.bytes, options);
    assert.deepEqual(
      result.checks.map((c) => [c.name, c.status]),
      [
        ['artifactHashes', 'pass'],
        ['bundleHash', 'pass'],
        ['signature', 'pass'],
      ],
    );
    assert.equal(result.verified, true);
    assert.equal(result.version, '0.1.0');
    assert.deepEqual(result.signing, {
      bundleHash: v1.ref.bundleHash,
      signature: result.signing?.signature,
      publicKey: testKey().publicKeyBase64,
      signedAt: v1.signedAt,
      keyId: testKey().keyId,
      timestamp: null,
    });
  });

  it('v0.2.0 (local TSA) verifies with four passing checks and reports the token time', async () => {
    assert.equal(v2.ref.version, '0.2.0');
    assert.ok(v2.timestamp);
    assert.equal(v2.timestamp.tsa, tsa.url);
    const result = await verifyBundle(v2.bytes, options);
    assert.deepEqual(statuses(result), {
      artifactHashes: 'pass',
      bundleHash: 'pass',
      signature: 'pass',
      timestamp: 'pass',
    });
    assert.deepEqual(
      result.checks.map((c) => c.name),
      ['artifactHashes', 'bundleHash', 'signature', 'timestamp'],
    );
    assert.equal(result.verified, true);
    assert.equal(result.version, '0.2.0');
    assert.deepEqual(result.signing?.timestamp, v2.timestamp);
  });

  it('signs the UTF-8 bytes of the bundleHash string and carries keyId in the signed data', () => {
    const files = unzip(v2.bytes);
    const digest = readJson(files, 'datapackage-digest.json');
    const dpBytes = files['datapackage.json'] as Uint8Array;
    assert.equal(v2.ref.bundleHash, `sha256:${createHash('sha256').update(dpBytes).digest('hex')}`);
    assert.equal(digest.path, 'datapackage.json');
    assert.equal(digest.hash, v2.ref.bundleHash);
    assert.equal(digest.signedData.hash, v2.ref.bundleHash);
    assert.equal(digest.signedData.keyId, testKey().keyId);
    assert.equal(digest.signedData.version, '0.2.0');
    assert.ok(
      nacl.sign.detached.verify(
        new TextEncoder().encode(v2.ref.bundleHash),
        Buffer.from(digest.signedData.signature, 'base64'),
        testKey().publicKey,
      ),
    );
    assert.equal(readJson(files, 'datapackage.json').captureLedger.keyId, testKey().keyId);
  });

  it('a changed WARC byte fails only artifactHashes (the signed manifest still proves what it was)', async () => {
    const files = unzip(v2.bytes);
    const warc = Buffer.from(files['archive/data.warc.gz'] as Uint8Array);
    warc[warc.length - 5] = (warc[warc.length - 5] as number) ^ 0xff;
    files['archive/data.warc.gz'] = warc;
    const result = await verifyBundle(rezip(files), options);
    assert.deepEqual(statuses(result), {
      artifactHashes: 'fail',
      bundleHash: 'pass',
      signature: 'pass',
      timestamp: 'pass',
    });
    assert.match(result.checks[0]?.detail ?? '', /archive\/data\.warc\.gz does not match its sha256/);
    assert.equal(result.verified, false);
  });

  it('an added, unlisted file fails artifactHashes', async () => {
    const files = unzip(v1.bytes);
    files['extra.txt'] = new TextEncoder().encode('hello');
    const result = await verifyBundle(rezip(files), options);
    assert.deepEqual(statuses(result), { artifactHashes: 'fail', bundleHash: 'pass', signature: 'pass' });
    assert.match(result.checks[0]?.detail ?? '', /extra\.txt is not listed/);
  });

  it('a changed datapackage.json fails bundleHash; signature and timestamp are skipped', async () => {
    const files = unzip(v2.bytes);
    const dp = readJson(files, 'datapackage.json');
    dp.title = 'Something else';
    files['datapackage.json'] = canonicalJsonBytes(dp);
    const result = await verifyBundle(rezip(files), options);
    assert.deepEqual(statuses(result), {
      artifactHashes: 'pass',
      bundleHash: 'fail',
      signature: 'skip',
      timestamp: 'skip',
    });
    assert.equal(result.checks[2]?.detail, 'skipped: bundleHash check failed');
    assert.equal(result.verified, false);
  });

  it('changed signature bytes fail only signature', async () => {
    const files = unzip(v2.bytes);
    const digest = readJson(files, 'datapackage-digest.json');
    const signature = Buffer.from(digest.signedData.signature, 'base64');
    signature[10] = (signature[10] as number) ^ 0x01;
    digest.signedData.signature = signature.toString('base64');
    writeJson(files, 'datapackage-digest.json', digest);
    const result = await verifyBundle(rezip(files), options);
    assert.deepEqual(statuses(result), {
      artifactHashes: 'pass',
      bundleHash: 'pass',
      signature: 'fail',
      timestamp: 'pass',
    });
    assert.match(result.checks[2]?.detail ?? '', /does not verify with published key/);
    assert.equal(result.verified, false);
  });

  it('a token for another digest fails only timestamp', async () => {
    const other = await createTsaClient({ url: tsa.url }).timestamp(
      new Uint8Array(createHash('sha256').update('something else').digest()),
    );
    const files = unzip(v2.bytes);
    const digest = readJson(files, 'datapackage-digest.json');
    digest.signedData.timestamp = {
      token: Buffer.from(other.token).toString('base64'),
      genTime: other.genTime,
      tsa: other.tsa,
    };
    writeJson(files, 'datapackage-digest.json', digest);
    const result = await verifyBundle(rezip(files), options);
    assert.deepEqual(statuses(result), {
      artifactHashes: 'pass',
      bundleHash: 'pass',
      signature: 'pass',
      timestamp: 'fail',
    });
    assert.match(result.checks[3]?.detail ?? '', /message imprint is not the bundle digest/);
  });

  it('a token whose CMS signature was altered fails only timestamp', async () => {
    const files = unzip(v2.bytes);
    const digest = readJson(files, 'datapackage-digest.json');
    const token = Buffer.from(digest.signedData.timestamp.token, 'base64');
    token[token.length - 3] = (token[token.length - 3] as number) ^ 0x01; // inside the RSA signature
    digest.signedData.timestamp.token = token.toString('base64');
    writeJson(files, 'datapackage-digest.json', digest);
    const result = await verifyBundle(rezip(files), options);
    assert.deepEqual(statuses(result), {
      artifactHashes: 'pass',
      bundleHash: 'pass',
      signature: 'pass',
      timestamp: 'fail',
    });
    assert.match(result.checks[3]?.detail ?? '', /CMS signature of the token does not verify/);
  });

  it('a stripped token fails timestamp: the signed datapackage says v0.2.0', async () => {
    const files = unzip(v2.bytes);
    const digest = readJson(files, 'datapackage-digest.json');
    delete digest.signedData.timestamp;
    digest.signedData.version = '0.1.0';
    writeJson(files, 'datapackage-digest.json', digest);
    const result = await verifyBundle(rezip(files), options);
    assert.equal(result.version, '0.2.0');
    assert.deepEqual(statuses(result), {
      artifactHashes: 'pass',
      bundleHash: 'pass',
      signature: 'pass',
      timestamp: 'fail',
    });
    assert.match(result.checks[3]?.detail ?? '', /carries no timestamp token/);
  });

  it('a TSA CA that is not trusted fails timestamp', async () => {
    const otherDir = await mkdtemp(join(tmpdir(), 'other-tsa-'));
    const otherTsa = await startLocalTsa({ dir: otherDir });
    try {
      const result = await verifyBundle(v2.bytes, { ...options, tsaCaCertsPem: [otherTsa.caCertPem] });
      assert.deepEqual(statuses(result), {
        artifactHashes: 'pass',
        bundleHash: 'pass',
        signature: 'pass',
        timestamp: 'fail',
      });
      assert.match(result.checks[3]?.detail ?? '', /does not chain to a trusted TSA CA/);
      const none = await verifyBundle(v2.bytes, { ...options, tsaCaCertsPem: [] });
      assert.match(none.checks[3]?.detail ?? '', /no trusted TSA CA certificates/);
    } finally {
      await otherTsa.close();
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('an unknown keyId fails signature', async () => {
    const stranger = signingKeyFromSeed(Buffer.alloc(32, 7).toString('base64'));
    const result = await verifyBundle(v1.bytes, {
      ...options,
      keys: [{ keyId: stranger.keyId, algorithm: 'Ed25519', publicKey: stranger.publicKeyBase64 }],
    });
    assert.deepEqual(statuses(result), { artifactHashes: 'pass', bundleHash: 'pass', signature: 'fail' });
    assert.match(result.checks[2]?.detail ?? '', new RegExp(`keyId ${testKey().keyId} is not one of the published`));
    const none = await verifyBundle(v1.bytes, { ...options, keys: [] });
    assert.match(none.checks[2]?.detail ?? '', /no published signing keys/);
  });

  it('never trusts a public key found only in the bundle', async () => {
    // An attacker re-signs with their own key but keeps our keyId and swaps in their publicKey.
    const attacker = signingKeyFromSeed(Buffer.alloc(32, 9).toString('base64'));
    const files = unzip(v1.bytes);
    const digest = readJson(files, 'datapackage-digest.json');
    digest.signedData.publicKey = attacker.publicKeyBase64;
    digest.signedData.signature = Buffer.from(attacker.sign(new TextEncoder().encode(digest.hash))).toString('base64');
    writeJson(files, 'datapackage-digest.json', digest);
    const result = await verifyBundle(rezip(files), options);
    assert.deepEqual(statuses(result), { artifactHashes: 'pass', bundleHash: 'pass', signature: 'fail' });
    assert.equal(result.verified, false);
  });

  it('a missing digest document gives signing null and fails bundleHash', async () => {
    const files = unzip(v1.bytes);
    delete files['datapackage-digest.json'];
    const result = await verifyBundle(rezip(files), options);
    assert.equal(result.signing, null);
    assert.deepEqual(statuses(result), { artifactHashes: 'pass', bundleHash: 'fail', signature: 'skip' });
    assert.match(result.checks[1]?.detail ?? '', /datapackage-digest\.json is missing/);
  });

  it('a malformed zip never throws: signing null, checks fail with a clear detail', async () => {
    for (const bytes of [Buffer.from('definitely not a zip'), Buffer.alloc(0), v2.bytes.subarray(0, 200)]) {
      const result = await verifyBundle(bytes, options);
      assert.equal(result.signing, null);
      assert.equal(result.verified, false);
      assert.equal(result.version, null);
      assert.deepEqual(statuses(result), { artifactHashes: 'fail', bundleHash: 'fail', signature: 'skip' });
      assert.match(result.checks[0]?.detail ?? '', /not a readable ZIP archive/);
    }
  });

  it('garbage JSON in the bundle never throws', async () => {
    const files = unzip(v2.bytes);
    files['datapackage-digest.json'] = new TextEncoder().encode('{not json');
    const result = await verifyBundle(rezip(files), options);
    assert.equal(result.signing, null);
    assert.deepEqual(statuses(result), {
      artifactHashes: 'pass',
      bundleHash: 'fail',
      signature: 'skip',
      timestamp: 'skip',
    });
    assert.match(result.checks[1]?.detail ?? '', /not valid JSON/);
  });
});
