import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  checkCertificateTransparency,
  transparencyDigest,
  type CertificateTransparency,
} from '../../../packages/verifier/src/index.js';
import { noteSignerFromSeed, signCheckpoint, verifierKeyString } from '../../../src/transparency/checkpoint.js';
import { captureLeaf, encodeLeaf } from '../../../src/transparency/leaf.js';
import { MerkleTree } from '../../../src/transparency/merkle.js';

/**
 * The verifier package's check of the transparency proof a certificate embeds (packages/verifier/src/transparency.ts),
 * against the service's own tree and checkpoint code: given a block made by the service, the check passes with the
 * log's key, and fails for another capture, another bundle, a wrong proof, index or checkpoint, or another key.
 */

const signer = noteSignerFromSeed('ledger.test/v1/log', new Uint8Array(32).fill(7));
const logKey = verifierKeyString(signer);
const captureId = 'cap_0123456789abcdef0123456789abcdef';
const bundleHash = `sha256:${'ab'.repeat(32)}`;

function blockAt(index: number, size: number): CertificateTransparency {
  const tree = new MerkleTree();
  let leaf = '';
  for (let i = 0; i < size; i++) {
    const record =
      i === index
        ? captureLeaf(captureId, bundleHash, 'k1', '2026-11-25T00:00:00Z')
        : captureLeaf(`cap_${randomBytes(16).toString('hex')}`, bundleHash, 'k1', null);
    const data = encodeLeaf(record);
    if (i === index) leaf = new TextDecoder().decode(data);
    tree.appendLeaf(data);
  }
  const checkpoint = signCheckpoint({ origin: signer.name, size, rootHash: tree.root(size), extensions: [] }, signer);
  return {
    leafIndex: index,
    leaf,
    checkpoint,
    checkpointTimestamp: null,
    inclusionProof: tree.inclusionProof(index, size).map((h) => Buffer.from(h).toString('hex')),
    logKey,
  };
}

const capture = { captureId, bundleHash };

describe('checkCertificateTransparency', () => {
  it('passes for the leaf at any position of trees of many sizes, with the log key', async () => {
    for (const [index, size] of [
      [0, 1],
      [0, 2],
      [1, 2],
      [4, 7],
      [6, 7],
      [8, 9],
      [12, 33],
    ] as const) {
      const check = await checkCertificateTransparency(blockAt(index, size), capture, [logKey]);
      assert.equal(check.status, 'pass', `${index}/${size}: ${check.detail}`);
    }
  });

  it('skips (proof holds, signer unknown) without a log key; fails with another key', async () => {
    const block = blockAt(3, 10);
    assert.equal((await checkCertificateTransparency(block, capture, [])).status, 'skip');
    const other = verifierKeyString(noteSignerFromSeed('ledger.test/v1/log', new Uint8Array(32).fill(8)));
    const check = await checkCertificateTransparency(block, capture, [other]);
    assert.equal(check.status, 'fail');
    assert.match(check.detail!, /not signed by the log key given/);
  });

  it('fails for another capture or bundle, a wrong proof hash, index or tree size', async () => {
    const block = blockAt(5, 11);
    const detail = async (b: CertificateTransparency, c = capture) => {
      const check = await checkCertificateTransparency(b, c, [logKey]);
      assert.equal(check.status, 'fail');
      return check.detail!;
    };
    assert.match(
      await detail(block, { captureId: 'cap_ffffffffffffffffffffffffffffffff', bundleHash }),
      /not the leaf of capture/,
    );
    assert.match(await detail(block, { captureId, bundleHash: `sha256:${'cd'.repeat(32)}` }), /names bundle/);
    const proof = [...block.inclusionProof];
    proof[1] = proof[1]!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    assert.match(await detail({ ...block, inclusionProof: proof }), /does not lead from leaf 5/);
    assert.match(await detail({ ...block, leafIndex: 4 }), /does not lead from leaf 4/);
    assert.match(await detail({ ...block, inclusionProof: block.inclusionProof.slice(1) }), /does not lead/);
    const bigger = blockAt(5, 12);
    assert.match(await detail({ ...block, checkpoint: bigger.checkpoint }), /does not lead/);
    assert.match(await detail({ ...block, inclusionProof: ['zz'] }), /not a hex SHA-256/);
  });

  it('the digest the signed document states changes with any field of the block', async () => {
    const block = blockAt(2, 5);
    const digest = await transparencyDigest(block);
    assert.match(digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(await transparencyDigest({ ...block }), digest);
    assert.notEqual(await transparencyDigest({ ...block, leafIndex: 3 }), digest);
    assert.notEqual(await transparencyDigest({ ...block, inclusionProof: block.inclusionProof.slice(1) }), digest);
  });
});
