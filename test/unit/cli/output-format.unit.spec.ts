import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csv, csvField, csvLine, duration, parseInstant, parsePeriod, table } from '../../../src/cli/output-format.js';
import { renderProgress } from '../../../src/cli/progress.js';
import { usageCsv } from '../../../src/cli/commands/usage.js';

describe('CSV (RFC 4180 quoting)', () => {
  it('leaves plain fields alone and quotes commas, quotes, line breaks and edge spaces', () => {
    assert.equal(csvField('acme'), 'acme');
    assert.equal(csvField(42), '42');
    assert.equal(csvField(null), '');
    assert.equal(csvField(undefined), '');
    assert.equal(csvField(false), 'false');
    assert.equal(csvField(new Date('2025-03-01T00:00:00Z')), '2025-03-01T00:00:00.000Z');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('cr\r'), '"cr\r"');
    assert.equal(csvField(' padded'), '" padded"');
    assert.equal(csvField(''), '');
  });

  it('joins lines with \\n and a header first', () => {
    assert.equal(csvLine(['a', 'b,c', 3]), 'a,"b,c",3\n');
    assert.equal(
      csv(
        ['x', 'y'],
        [
          [1, 'p "q"'],
          [2, null],
        ],
      ),
      'x,y\n1,"p ""q"""\n2,\n',
    );
  });

  it('round-trips through a strict RFC 4180 reader', () => {
    const rows = [['https://example.org/a, "b"', 'line1\nline2', '', 'plain']];
    const text = csv(['a', 'b', 'c', 'd'], rows);
    assert.deepEqual(readCsv(text), [['a', 'b', 'c', 'd'], ...rows]);
  });

  it('usage report CSV has its stable header', () => {
    const text = usageCsv([
      {
        tenantId: 'acme',
        period: '2025-03',
        tier: 'pro',
        capturesSubmitted: 3,
        capturesCompleted: 2,
        capturesFailed: 1,
        storageBytes: 10,
        apiCalls: 4,
        capturesLimit: 5000,
        storageLimit: 50,
      },
    ]);
    assert.equal(
      text,
      'tenant_id,period,tier,captures_submitted,captures_completed,captures_failed,storage_bytes,api_calls,captures_limit,storage_limit\nacme,2025-03,pro,3,2,1,10,4,5000,50\n',
    );
  });
});

/** A small strict CSV reader for the round-trip test. */
function readCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  return rows;
}

describe('tables, arguments, durations, progress', () => {
  it('aligns columns and right-aligns numbers', () => {
    assert.equal(
      table(
        ['name', 'n'],
        [
          ['a', 1],
          ['long name', 100],
        ],
      ),
      'name         n\na            1\nlong name  100\n',
    );
    assert.equal(table(['x'], [['with\nbreak']]), 'x\nwith break\n');
  });

  it('parses periods and instants, refusing others with the option name', () => {
    assert.equal(parsePeriod('2025-03'), '2025-03');
    for (const bad of ['2025-3', '2025-13', '2025-00', '25-03', '2025-03-01'])
      assert.throws(() => parsePeriod(bad), /--period must be a month as YYYY-MM/);
    assert.equal(parseInstant('2025-03-01', '--since').toISOString(), '2025-03-01T00:00:00.000Z');
    assert.equal(parseInstant('2025-03-01T12:30', '--since').toISOString(), '2025-03-01T12:30:00.000Z');
    assert.equal(parseInstant('2025-03-01T12:30:00+02:00', '--since').toISOString(), '2025-03-01T10:30:00.000Z');
    assert.throws(() => parseInstant('yesterday', '--until'), /--until must be an ISO 8601/);
    assert.throws(() => parseInstant('2025-02-31T99:00', '--until'), /--until is not a valid date/);
  });

  it('formats durations', () => {
    assert.equal(duration(5.4), '5s');
    assert.equal(duration(65), '1m 05s');
    assert.equal(duration(3725), '1h 02m');
    assert.equal(duration(Infinity), '?');
  });

  it('renders a progress bar with rate and ETA', () => {
    const p = { label: 'replay', unit: 'seq', from: 0, total: 1000, done: 250, elapsedMs: 5000 };
    assert.equal(renderProgress(p, 20), 'replay [#####...............]  25.0% 250/1000 seq 50/s ETA 15s');
    assert.equal(
      renderProgress({ ...p, done: 1000 }, 20),
      'replay [####################] 100.0% 1000/1000 seq 200/s ETA 0s',
    );
    assert.match(renderProgress({ ...p, done: 0, elapsedMs: 0 }, 20), /0\.0% 0\/1000 seq 0\/s ETA \?$/);
  });
});
