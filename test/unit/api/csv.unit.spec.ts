import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCsv } from '../../../src/api/csv.js';

describe('toCsv (RFC 4180)', () => {
  it('writes a header row and CRLF after every record', () => {
    assert.equal(toCsv(['a', 'b'], [[1, 'x']]), 'a,b\r\n1,x\r\n');
    assert.equal(toCsv(['a'], []), 'a\r\n');
  });

  it('quotes a field holding a comma, a quote, CR or LF, doubling its quotes; null is the empty field', () => {
    assert.equal(
      toCsv(['v'], [['a,b'], ['say "hi"'], ['two\nlines'], ['cr\rhere'], [null], [true], ['plain']]),
      'v\r\n"a,b"\r\n"say ""hi"""\r\n"two\nlines"\r\n"cr\rhere"\r\n\r\ntrue\r\nplain\r\n',
    );
  });
});
