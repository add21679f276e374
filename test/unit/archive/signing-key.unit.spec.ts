import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import nacl from 'tweetnacl';
import {
  SEED_FILE_NAME,
  keyIdOf,
  loadOrCreateSigningKey,
  signingKeyFromSeed,
} from '../../../src/archive/signing-key.js';
import { SigningKeyError } from '../../../src/archive/errors.js';
import { TEST_SEED } from './bundle-fixture.js';

// RFC 8032 7.1 test 1
const RFC8032_PUBLIC = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';

describe('signing key', () => {
  it('derives the Ed25519 public key from the seed and keyId from its SHA-256', () => {
    const key = signingKeyFromSeed(TEST_SEED);
    assert.equal(Buffer.from(key.publicKey).toString('hex'), RFC8032_PUBLIC);
    const expectedKeyId = createHash('sha256').update(Buffer.from(RFC8032_PUBLIC, 'hex')).digest('hex').slice(0, 8);
    assert.equal(key.keyId, expectedKeyId);
    assert.match(key.keyId, /^[0-9a-f]{8}$/);
    assert.equal(keyIdOf(key.publicKey), key.keyId);
    assert.equal(key.publicKeyBase64, Buffer.from(RFC8032_PUBLIC, 'hex').toString('base64'));
  });

  it('signs detached Ed25519 signatures that tweetnacl verifies', () => {
    const key = signingKeyFromSeed(TEST_SEED);
    const message = new TextEncoder().encode('sha256:abc');
    const signature = key.sign(message);
    assert.equal(signature.byteLength, 64);
    assert.ok(nacl.sign.detached.verify(message, signature, key.publicKey));
  });

  it('says what is wrong with a bad seed', () => {
    assert.throws(
      () => signingKeyFromSeed(''),
      (error: unknown) => {
        assert.ok(error instanceof SigningKeyError);
        assert.equal(error.code, 'SIGNING_KEY_INVALID');
        assert.match(error.message, /SIGNING_KEY is empty/);
        return true;
      },
    );
    assert.throws(() => signingKeyFromSeed('not*base64!'), /not valid base64/);
    assert.throws(
      () => signingKeyFromSeed(Buffer.alloc(16).toString('base64')),
      /decodes to 16 bytes.*exactly 32 bytes/,
    );
  });

  it('generates the DATA_DIR seed once, mode 0600, and reuses it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'signing-key-'));
    try {
      const [first, concurrent] = await Promise.all([loadOrCreateSigningKey(dir), loadOrCreateSigningKey(dir)]);
      assert.equal(first.keyId, concurrent.keyId);
      const second = await loadOrCreateSigningKey(dir);
      assert.equal(second.keyId, first.keyId);
      const path = join(dir, SEED_FILE_NAME);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.equal(Buffer.from((await readFile(path, 'utf8')).trim(), 'base64').byteLength, 32);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the seed file when its content is unusable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'signing-key-'));
    try {
      await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, SEED_FILE_NAME), 'AAAA\n', { mode: 0o600 }));
      await assert.rejects(loadOrCreateSigningKey(dir), new RegExp(`${SEED_FILE_NAME} decodes to 3 bytes`));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a seed file that other users may read, saying how to fix it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'signing-key-'));
    try {
      const fs = await import('node:fs/promises');
      await fs.writeFile(join(dir, SEED_FILE_NAME), `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 });
      await fs.chmod(join(dir, SEED_FILE_NAME), 0o644);
      await assert.rejects(
        loadOrCreateSigningKey(dir),
        /open to other users \(mode 644\); run `chmod 600 .*signing-key\.seed`/,
      );
      await fs.chmod(join(dir, SEED_FILE_NAME), 0o600);
      assert.ok((await loadOrCreateSigningKey(dir)).keyId);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
