import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  EMPTY_ROOT,
  leafHash,
  MerkleTree,
  nodeHash,
  splitPoint,
  verifyConsistency,
  verifyInclusion,
} from '../../../src/transparency/merkle.js';

/** RFC 9162 MTH written as the RFC's recursion, independent of MerkleTree's stored levels. */
function mth(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return new Uint8Array(createHash('sha256').digest());
  if (leaves.length === 1) return leafHash(leaves[0]!);
  const k = splitPoint(leaves.length);
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

const data = (i: number) => new TextEncoder().encode(`leaf ${i}`);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('RFC 6962 Merkle tree', () => {
  it('hashes leaves and nodes with the 0x00 / 0x01 prefixes (RFC 6962 2.1)', () => {
    assert.equal(hex(EMPTY_ROOT), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // the well-known RFC 6962 hash of the empty leaf
    assert.equal(hex(leafHash(new Uint8Array())), '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
  });

  it('roots equal the RFC recursion for every size up to 70', () => {
    const tree = new MerkleTree();
    const leaves: Uint8Array[] = [];
    for (let n = 1; n <= 70; n++) {
      leaves.push(data(n - 1));
      tree.appendLeaf(data(n - 1));
      assert.equal(hex(tree.root()), hex(mth(leaves)), `size ${n}`);
    }
    for (let n = 0; n <= 70; n++) assert.equal(hex(tree.root(n)), hex(mth(leaves.slice(0, n))), `historic size ${n}`);
  });

  it('every inclusion proof verifies, and fails for another leaf, index or proof', () => {
    const tree = new MerkleTree();
    for (let i = 0; i < 37; i++) tree.appendLeaf(data(i));
    for (let size = 1; size <= 37; size++) {
      const root = tree.root(size);
      for (let i = 0; i < size; i++) {
        const proof = tree.inclusionProof(i, size);
        assert.ok(verifyInclusion(i, size, leafHash(data(i)), proof, root), `leaf ${i} in ${size}`);
        assert.ok(!verifyInclusion(i, size, leafHash(data(i + 1)), proof, root));
        if (size > 1)
          assert.ok(!verifyInclusion((i + 1) % size, size, leafHash(data(i)), proof, root) || (i + 1) % size === i);
        if (proof.length > 0) {
          const bad = proof.map((p) => p.slice());
          bad[0]![0]! ^= 1;
          assert.ok(!verifyInclusion(i, size, leafHash(data(i)), bad, root));
        }
      }
    }
  });

  it('every consistency proof verifies, and fails against a rewritten history', () => {
    const tree = new MerkleTree();
    const forked = new MerkleTree();
    for (let i = 0; i < 33; i++) {
      tree.appendLeaf(data(i));
      forked.appendLeaf(i === 3 ? data(999) : data(i));
    }
    for (let second = 1; second <= 33; second++) {
      for (let first = 1; first <= second; first++) {
        const proof = tree.consistencyProof(first, second);
        assert.ok(verifyConsistency(first, second, tree.root(first), tree.root(second), proof), `${first} → ${second}`);
        if (first > 3) {
          // the fork rewrote leaf 3: its trees are not extensions of the honest ones
          assert.ok(
            !verifyConsistency(
              first,
              second,
              tree.root(first),
              forked.root(second),
              forked.consistencyProof(first, second),
            ),
          );
        }
      }
    }
    assert.ok(!verifyConsistency(4, 8, tree.root(4), tree.root(8), []));
    assert.ok(!verifyConsistency(5, 4, tree.root(5), tree.root(4), []));
  });

  it('refuses proofs beyond the tree', () => {
    const tree = new MerkleTree();
    tree.appendLeaf(data(0));
    assert.throws(() => tree.inclusionProof(1, 1), RangeError);
    assert.throws(() => tree.consistencyProof(1, 2), RangeError);
    assert.throws(() => tree.root(2), RangeError);
  });
});
