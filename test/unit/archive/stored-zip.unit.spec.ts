import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { unzipSync, zipSync } from 'fflate';
import { dosTimeAndDate, storedZip } from '../../../src/archive/stored-zip.js';

const members = (): [string, Uint8Array][] => [
  ['archive/data.warc.gz', randomBytes(300_000)],
  ['indexes/index.cdxj', new TextEncoder().encode('com,example)/ 20240501100000 {"url":"https://example.com/"}\n')],
  ['empty', new Uint8Array(0)],
  ['pages/páginas.jsonl', new TextEncoder().encode('{"format":"json-pages-1.0"}\n')],
];

describe('stored zip writer', () => {
  it('writes the bytes fflate writes for stored members, names in UTF-8 flagged as such', () => {
    const files = members();
    const ours = storedZip(files, new Date(Date.UTC(2024, 4, 1, 10, 0, 5)));
    // fflate writes the DOS time from local fields: the same wall-clock fields, given as local time.
    const theirs = zipSync(Object.fromEntries(files), { level: 0, mtime: new Date(2024, 4, 1, 10, 0, 5) });
    assert.equal(Buffer.compare(ours, Buffer.from(theirs)), 0, 'the archive differs from fflate’s');
    const back = unzipSync(ours);
    assert.deepEqual(
      Object.keys(back),
      files.map(([path]) => path),
    );
    for (const [path, bytes] of files) assert.deepEqual(back[path], new Uint8Array(bytes), `member ${path}`);
  });

  it('gives the same bytes whatever the host’s time zone', () => {
    const files = members();
    const mtime = new Date('2026-11-30T23:30:00.000Z');
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const utc = storedZip(files, mtime);
      process.env.TZ = 'Pacific/Kiritimati';
      const ahead = storedZip(files, mtime);
      assert.notEqual(new Date(mtime).getDate(), mtime.getUTCDate(), 'the zone change took effect');
      assert.equal(Buffer.compare(utc, ahead), 0);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('encodes DOS times at two-second resolution and refuses a time DOS cannot hold', () => {
    // 2107-12-31 23:59:58 → time 23<<11 | 59<<5 | 29, date 127<<9 | 12<<5 | 31
    assert.deepEqual(dosTimeAndDate(new Date(Date.UTC(2107, 11, 31, 23, 59, 59))), [
      (23 << 11) | (59 << 5) | 29,
      (127 << 9) | (12 << 5) | 31,
    ]);
    assert.deepEqual(dosTimeAndDate(new Date(Date.UTC(1980, 0, 1, 0, 0, 0))), [0, (1 << 5) | 1]);
    for (const t of [
      new Date(Date.UTC(1979, 11, 31, 23, 59, 59)),
      new Date(Date.UTC(2108, 0, 1)),
      new Date(Number.NaN),
    ]) {
      assert.throws(() => storedZip([['a', new Uint8Array(1)]], t), RangeError);
    }
  });

  it('writes an archive with no members as a bare end record', () => {
    const empty = storedZip([], new Date(Date.UTC(2024, 0, 1)));
    assert.equal(empty.length, 22);
    assert.deepEqual(unzipSync(empty), {});
  });
});
