import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { zipSync } from 'fflate';
import { crc32, zipContainerProblems } from '../../../packages/verifier/src/zip-container.js';

/** The container check of a bundle: the service's own zips pass, and one byte in the wrong place fails. */
const members = { 'a.txt': new TextEncoder().encode('hello'), 'dir/b.json': new TextEncoder().encode('{}') };
const zip = zipSync(members, { level: 0, mtime: new Date('2026-01-01T00:00:00Z') });
const files = new Map(Object.entries(members));
const flip = (at: number) => {
  const copy = new Uint8Array(zip);
  copy[at]! ^= 0x01;
  return copy;
};
const eocd = zip.length - 22;
const cd = new DataView(zip.buffer).getUint32(eocd + 16, true);

describe('zipContainerProblems', () => {
  it('finds nothing wrong with a zip as the service writes it', () => {
    assert.deepEqual(zipContainerProblems(zip, files), []);
  });

  it('computes the CRC-32 of the ZIP specification', () => {
    assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  });

  for (const [name, bytes, pattern] of [
    ['a local header naming another file', flip(30), /local header names it/],
    ['a central-directory CRC-32 changed', flip(cd + 16), /disagree on its method, CRC-32 or sizes/],
    ['an end-of-archive comment length changed', flip(eocd + 20), /comment length is wrong/],
    ['a byte appended', new Uint8Array([...zip, 0]), /bytes no ZIP reader reads/],
  ] as const) {
    it(`names ${name}`, () => {
      const problems = zipContainerProblems(bytes, files);
      assert.ok(
        problems.some((p) => pattern.test(p)),
        problems.join('; '),
      );
    });
  }
});
