import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, canonicalJsonBytes } from '../../../src/domain/canonical-json.js';

describe('canonical JSON (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units at every depth and drops whitespace', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' }, A: 0 }),
      '{"A":0,"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('serialises numbers the ECMAScript way', () => {
    assert.equal(
      canonicalJson([1.0, 1e21, 0.000001, 1e-7, -0, 333333333.3333333]),
      '[1,1e+21,0.000001,1e-7,0,333333333.3333333]',
    );
  });

  it('keeps non-ASCII characters as UTF-8 and escapes only what JSON requires', () => {
    assert.equal(canonicalJson({ s: 'é€\u0001"\\' }), '{"s":"é€\\u0001\\"\\\\"}');
    assert.deepEqual([...canonicalJsonBytes('é')], [0x22, 0xc3, 0xa9, 0x22]);
  });

  it('gives the same bytes whatever the insertion order', () => {
    assert.deepEqual(canonicalJsonBytes({ x: 1, y: [1, 2] }), canonicalJsonBytes({ y: [1, 2], x: 1 }));
  });

  it('refuses values with no JSON form', () => {
    assert.throws(() => canonicalJson(undefined), TypeError);
  });
});
