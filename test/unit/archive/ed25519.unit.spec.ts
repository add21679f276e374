import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import nacl from 'tweetnacl';
import { ed25519Signer } from '../../../src/archive/ed25519.js';

describe('ed25519Signer', () => {
  it('gives the signature tweetnacl gives for the same seed and message, which verifies', () => {
    for (const size of [0, 32, 1000]) {
      const seed = randomBytes(32);
      const message = randomBytes(size);
      const signature = ed25519Signer(seed)(message);
      const pair = nacl.sign.keyPair.fromSeed(seed);
      assert.deepEqual(Buffer.from(signature), Buffer.from(nacl.sign.detached(message, pair.secretKey)));
      assert.ok(nacl.sign.detached.verify(message, signature, pair.publicKey));
    }
  });
});
