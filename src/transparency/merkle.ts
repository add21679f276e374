import { createHash } from 'node:crypto';

/**
 * RFC 6962 / RFC 9162 (section 2.1) Merkle tree hashing, proofs and their verification, with no I/O.
 *
 *   leaf hash  SHA-256(0x00 ‖ data)
 *   node hash  SHA-256(0x01 ‖ left ‖ right)
 *   MTH({})    SHA-256()
 *
 * `MerkleTree` keeps every complete subtree hash: level l holds the hashes of the aligned subtrees of 2^l
 * leaves, packed 32 bytes apiece in one growable buffer (≈ 64 bytes per leaf over all levels, no object per
 * hash). Those are exactly the hashes C2SP tlog-tiles serves (tile level L holds tree level 8·L), so tiles
 * and proofs come from the same arrays.
 */

export const HASH_SIZE = 32;
export type Hash = Uint8Array;

export function leafHash(data: Uint8Array): Hash {
  return new Uint8Array(createHash('sha256').update(Uint8Array.of(0)).update(data).digest());
}

export function nodeHash(left: Hash, right: Hash): Hash {
  return new Uint8Array(createHash('sha256').update(Uint8Array.of(1)).update(left).update(right).digest());
}

export const EMPTY_ROOT: Hash = new Uint8Array(createHash('sha256').digest());

/** Largest power of two strictly less than n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Append-only array of 32-byte hashes in one buffer. */
class HashLevel {
  private buf = new Uint8Array(HASH_SIZE * 64);
  length = 0;

  push(h: Hash): void {
    if ((this.length + 1) * HASH_SIZE > this.buf.byteLength) {
      const next = new Uint8Array(this.buf.byteLength * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf.set(h, this.length * HASH_SIZE);
    this.length++;
  }

  get(i: number): Hash {
    return this.buf.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE);
  }

  /** Hashes [from, to) as one contiguous copy (a tile's body). */
  slice(from: number, to: number): Uint8Array {
    return this.buf.slice(from * HASH_SIZE, to * HASH_SIZE);
  }

  get bytes(): number {
    return this.length * HASH_SIZE;
  }
}

/** The tree as a list of complete-subtree hashes per level; leaves are appended by their hash. */
export class MerkleTree {
  private readonly levels: HashLevel[] = [new HashLevel()];

  get size(): number {
    return this.levels[0]!.length;
  }

  /** Append one leaf by its leaf hash; completes every subtree it closes. */
  appendLeafHash(h: Hash): void {
    let level = 0;
    let hash = h;
    this.levels[0]!.push(hash);
    // A subtree at `level` completes whenever its index becomes odd-closed (index + 1 even).
    while (this.levels[level]!.length % 2 === 0) {
      const lv = this.levels[level]!;
      hash = nodeHash(lv.get(lv.length - 2), lv.get(lv.length - 1));
      level++;
      if (!this.levels[level]) this.levels.push(new HashLevel());
      this.levels[level]!.push(hash);
    }
  }

  appendLeaf(data: Uint8Array): number {
    this.appendLeafHash(leafHash(data));
    return this.size - 1;
  }

  /** Complete subtree hash at `level` (2^level leaves), index `i`. */
  hashAt(level: number, i: number): Hash {
    const lv = this.levels[level];
    if (!lv || i >= lv.length) throw new RangeError(`no complete subtree at level ${level} index ${i}`);
    return lv.get(i);
  }

  /** Count of complete subtrees at `level`. */
  widthAt(level: number): number {
    return this.levels[level]?.length ?? 0;
  }

  /** Hashes [from, to) of `level`, concatenated (tile bodies). */
  hashesAt(level: number, from: number, to: number): Uint8Array {
    const lv = this.levels[level];
    if (!lv || to > lv.length || from > to) throw new RangeError(`level ${level} has no hashes [${from}, ${to})`);
    return lv.slice(from, to);
  }

  /** MTH(D[start:end]) where start is aligned as RFC 9162's recursion leaves it (a multiple of the split). */
  private rangeHash(start: number, end: number): Hash {
    const n = end - start;
    if (n === 0) return EMPTY_ROOT;
    // A whole aligned power-of-two range is stored.
    if ((n & (n - 1)) === 0 && start % n === 0) return this.hashAt(Math.log2(n), start / n);
    const k = splitPoint(n);
    return nodeHash(this.rangeHash(start, start + k), this.rangeHash(start + k, end));
  }

  /** Root of the tree of the first `size` leaves (any size up to the current one). */
  root(size: number = this.size): Hash {
    this.checkSize(size);
    return this.rangeHash(0, size);
  }

  /** RFC 9162 2.1.3.1 PATH(m, D[0:size]). */
  inclusionProof(index: number, size: number = this.size): Hash[] {
    this.checkSize(size);
    if (!Number.isInteger(index) || index < 0 || index >= size)
      throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
    const path = (m: number, start: number, end: number): Hash[] => {
      const n = end - start;
      if (n === 1) return [];
      const k = splitPoint(n);
      return m < k
        ? [...path(m, start, start + k), this.rangeHash(start + k, end)]
        : [...path(m - k, start + k, end), this.rangeHash(start, start + k)];
    };
    return path(index, 0, size);
  }

  /** RFC 9162 2.1.4.1 PROOF(m, D[0:n]). */
  consistencyProof(first: number, second: number = this.size): Hash[] {
    this.checkSize(second);
    if (!Number.isInteger(first) || first < 0 || first > second)
      throw new RangeError(`no consistency proof from ${first} to ${second}`);
    if (first === 0 || first === second) return [];
    const sub = (m: number, start: number, end: number, whole: boolean): Hash[] => {
      const n = end - start;
      if (m === n) return whole ? [] : [this.rangeHash(start, end)];
      const k = splitPoint(n);
      return m <= k
        ? [...sub(m, start, start + k, whole), this.rangeHash(start + k, end)]
        : [...sub(m - k, start + k, end, false), this.rangeHash(start, start + k)];
    };
    return sub(first, 0, second, true);
  }

  /** Bytes of hash storage over all levels. */
  get hashBytes(): number {
    return this.levels.reduce((sum, lv) => sum + lv.bytes, 0);
  }

  private checkSize(size: number): void {
    if (!Number.isInteger(size) || size < 0 || size > this.size)
      throw new RangeError(`tree size ${size} is beyond the log's ${this.size}`);
  }
}

const equal = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((v, i) => v === b[i]);

/** RFC 9162 2.1.3.2: does `proof` show leaf `index` (by its leaf hash) in the tree of `size` with `root`? */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: readonly Hash[], root: Hash): boolean {
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/** RFC 9162 2.1.4.2: is the tree (`second`, `secondRoot`) an append-only extension of (`first`, `firstRoot`)? */
export function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Hash,
  secondRoot: Hash,
  proof: readonly Hash[],
): boolean {
  if (!Number.isInteger(first) || !Number.isInteger(second) || first < 0 || first > second) return false;
  if (first === second) return proof.length === 0 && equal(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0; // every tree extends the empty one
  if (proof.length === 0) return false;
  let path = [...proof];
  // When first is a power of two the first tree is itself a node of the second: the proof omits it.
  if ((first & (first - 1)) === 0) path = [firstRoot, ...path];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, firstRoot) && equal(sr, secondRoot);
}

/** Root of a list of leaf hashes computed from scratch (RFC 9162 MTH): the reference a monitor re-derives. */
export function rootOfLeafHashes(leaves: readonly Hash[]): Hash {
  const tree = new MerkleTree();
  for (const h of leaves) tree.appendLeafHash(h);
  return tree.root();
}
