import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseByteRange } from '../../../src/api/byte-range.js';

describe('byte ranges of downloads', () => {
  it('answers single ranges, suffix ranges and open-ended ranges', () => {
    assert.deepEqual(parseByteRange('bytes=0-99', 1000), { kind: 'partial', start: 0, end: 99 });
    assert.deepEqual(parseByteRange('bytes=900-', 1000), { kind: 'partial', start: 900, end: 999 });
    assert.deepEqual(parseByteRange('bytes=-22', 1000), { kind: 'partial', start: 978, end: 999 });
    assert.deepEqual(parseByteRange('bytes=-5000', 1000), { kind: 'partial', start: 0, end: 999 });
    assert.deepEqual(
      parseByteRange('bytes=990-2000', 1000),
      { kind: 'partial', start: 990, end: 999 },
      'end clamped to the size',
    );
  });
  it('unsatisfiable past the end or reversed', () => {
    assert.deepEqual(parseByteRange('bytes=1000-', 1000), { kind: 'unsatisfiable' });
    assert.deepEqual(parseByteRange('bytes=50-10', 1000), { kind: 'unsatisfiable' });
    assert.deepEqual(parseByteRange('bytes=-0', 1000), { kind: 'unsatisfiable' });
  });
  it('the whole body without a usable single range (absent, malformed, multi-range, other unit)', () => {
    for (const header of [undefined, '', 'bytes=', 'bytes=0-1,5-9', 'items=0-1', 'bytes=a-b']) {
      assert.deepEqual(parseByteRange(header, 1000), { kind: 'whole' }, String(header));
    }
  });
});
