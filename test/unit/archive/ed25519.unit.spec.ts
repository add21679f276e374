import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import nacl from 'tweetnacl';
import { ed25519PublicKey, ed25519Signer, ed25519Verify } from '../../../src/archive/ed25519.js';

describe('Ed25519 in node:crypto', () => {
  it('gives the public key and the signature tweetnacl gives for the same seed and message, which verifies', () => {
    for (const size of [0, 32, 1000]) {
      const seed = randomBytes(32);
      const message = randomBytes(size);
      const signature = ed25519Signer(seed)(message);
      const pair = nacl.sign.keyPair.fromSeed(seed);
      assert.deepEqual(Buffer.from(ed25519PublicKey(seed)), Buffer.from(pair.publicKey));
      assert.deepEqual(Buffer.from(signature), Buffer.from(nacl.sign.detached(message, pair.secretKey)));
      assert.ok(nacl.sign.detached.verify(message, signature, pair.publicKey));
      assert.ok(ed25519Verify(message, signature, pair.publicKey));
    }
  });

  it('refuses a signature of another message, by another key, of the wrong length, and a key not on the curve', () => {
    const seed = randomBytes(32);
    const message = randomBytes(64);
    const signature = ed25519Signer(seed)(message);
    const publicKey = ed25519PublicKey(seed);
    assert.equal(ed25519Verify(randomBytes(64), signature, publicKey), false);
    assert.equal(ed25519Verify(message, signature, ed25519PublicKey(randomBytes(32))), false);
    assert.equal(ed25519Verify(message, signature.subarray(1), publicKey), false);
    const flipped = Buffer.from(signature);
    flipped[10]! ^= 1;
    assert.equal(ed25519Verify(message, flipped, publicKey), false);
    assert.equal(ed25519Verify(message, signature, Buffer.alloc(32, 0xff)), false);
    assert.throws(() => ed25519Signer(randomBytes(31)), /exactly 32 bytes/);
  });
});
