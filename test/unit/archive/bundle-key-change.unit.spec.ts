import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeBundle } from '../../../src/archive/bundle.js';
import { localNotary, NotaryRefusal, type Notary } from '../../../src/archive/notary.js';
import { signingKeyFromSeed } from '../../../src/archive/signing-key.js';
import { sampleCapture } from './bundle-fixture.js';

const keyA = signingKeyFromSeed(Buffer.alloc(32, 1).toString('base64'));
const keyB = signingKeyFromSeed(Buffer.alloc(32, 2).toString('base64'));

/** Two signers in one queue group during a rolling key change: A describes, B signs (and refuses A's key id). */
function rollingSigners(describers: Notary[], signer: Notary): Notary & { describes: number } {
  const n = {
    describes: 0,
    describe: () => describers[Math.min(n.describes++, describers.length - 1)]!.describe(),
    timestamp: (d: Uint8Array) => signer.timestamp(d),
    sign: signer.sign,
    certify: signer.certify,
    signPdf: signer.signPdf,
  };
  return n;
}

describe('a bundle across a signing-key change', () => {
  it('is built again with the key of the signer that signs', async () => {
    const notary = rollingSigners([localNotary(keyA), localNotary(keyB)], localNotary(keyB));
    const bundle = await makeBundle(sampleCapture(), notary);
    assert.equal(bundle?.ref.keyId, keyB.keyId);
    assert.equal(notary.describes, 2);
  });

  it('gives up with the refusal when the keys keep disagreeing', async () => {
    const notary = rollingSigners([localNotary(keyA)], localNotary(keyB));
    await assert.rejects(
      makeBundle(sampleCapture(), notary),
      (err: unknown) => err instanceof NotaryRefusal && err.code === 'key-changed',
    );
    assert.equal(notary.describes, 3);
  });
});
