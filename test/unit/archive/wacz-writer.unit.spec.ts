import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { buildWacz, zipWacz } from '../../../src/archive/wacz-writer.js';
import { indexWarc, indexWrittenWarc } from '../../../src/archive/cdxj-indexer.js';
import { writeWarc } from '../../../src/archive/warc-writer.js';
import { canonicalJson } from '../../../src/domain/canonical-json.js';
import { recordAt, sampleExchanges, sampleCapture, unzip, zipEntries } from './bundle-fixture.js';

const options = { bundleVersion: '0.1.0' as const, keyId: '0011aabb' };

describe('WACZ writer', () => {
  it('writes the WACZ 1.1.1 members with a datapackage listing each by sha256 and size', async () => {
    const wacz = await buildWacz(sampleCapture(), options);
    assert.deepEqual([...wacz.files.keys()].sort(), [
      'archive/data.warc.gz',
      'indexes/index.cdxj',
      'pages/pages.jsonl',
    ]);
    const dp = wacz.datapackage;
    assert.equal(dp.profile, 'data-package');
    assert.equal(dp.wacz_version, '1.1.1');
    assert.equal(dp.mainPageUrl, 'https://www.example.com/');
    assert.equal(dp.mainPageDate, '2024-05-01T10:00:00.500Z');
    assert.equal(dp.created, '2024-05-01T10:00:05.000Z');
    assert.deepEqual(dp.captureLedger, {
      bundleVersion: '0.1.0',
      captureId: 'cap_0123456789abcdef0123456789abcdef',
      url: 'https://www.example.com/',
      createdAt: '2024-05-01T09:59:59.000Z',
      completedAt: '2024-05-01T10:00:05.000Z',
      keyId: '0011aabb',
    });
    assert.deepEqual(
      dp.resources.map((r) => r.path),
      ['archive/data.warc.gz', 'indexes/index.cdxj', 'pages/pages.jsonl'],
    );
    for (const resource of dp.resources) {
      const bytes = wacz.files.get(resource.path) as Uint8Array;
      assert.equal(resource.bytes, bytes.byteLength);
      assert.equal(resource.hash, `sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    }
  });

  it('writes datapackage.json as RFC 8785 bytes and bundleHash over exactly those bytes', async () => {
    const wacz = await buildWacz(sampleCapture(), options);
    const text = Buffer.from(wacz.datapackageBytes).toString('utf8');
    assert.equal(text, canonicalJson(JSON.parse(text)));
    assert.equal(wacz.bundleHash, `sha256:${createHash('sha256').update(wacz.datapackageBytes).digest('hex')}`);
  });

  it('writes pages.jsonl with a header line and the main page', async () => {
    const wacz = await buildWacz(sampleCapture(), options);
    const lines = Buffer.from(wacz.files.get('pages/pages.jsonl') as Uint8Array)
      .toString('utf8')
      .trim()
      .split('\n');
    assert.equal(lines.length, 2);
    assert.deepEqual(JSON.parse(lines[0] as string), { format: 'json-pages-1.0', id: 'pages', title: 'All Pages' });
    const page = JSON.parse(lines[1] as string);
    assert.equal(page.url, 'https://www.example.com/');
    assert.equal(page.ts, '2024-05-01T10:00:00.500Z');
    assert.equal(page.title, 'Example');
    assert.equal(typeof page.id, 'string');
  });

  it('writes WARC/1.1: warcinfo, response+request per exchange, resource records for the artifacts', async () => {
    const wacz = await buildWacz(sampleCapture(), options);
    const warc = gunzipSync(Buffer.from(wacz.files.get('archive/data.warc.gz') as Uint8Array)).toString('latin1');
    const records = [...warc.matchAll(/^WARC\/1\.1\r\n([\s\S]*?)\r\n\r\n/gm)].map((m) => m[1] as string);
    const typeAndUri = records.map((headers) => {
      const type = /WARC-Type: (\S+)/.exec(headers)?.[1];
      const uri = /WARC-Target-URI: (\S+)/.exec(headers)?.[1];
      return `${type} ${uri ?? ''}`.trim();
    });
    assert.deepEqual(typeAndUri, [
      'warcinfo',
      'response http://example.com/',
      'request http://example.com/',
      'response https://www.example.com/',
      'request https://www.example.com/',
      'response https://www.example.com/s.css',
      'request https://www.example.com/s.css',
      'response https://api.example.com/track?b=2&a=1',
      'request https://api.example.com/track?b=2&a=1',
      'resource urn:capture-ledger:cap_0123456789abcdef0123456789abcdef/screenshot.png',
      'resource urn:capture-ledger:cap_0123456789abcdef0123456789abcdef/screenshot-before.png',
      'resource urn:capture-ledger:cap_0123456789abcdef0123456789abcdef/page.html',
      'resource urn:capture-ledger:cap_0123456789abcdef0123456789abcdef/headers.json',
    ]);
    // Decoded bodies: wire encodings are kept only as X-Orig-*, Content-Length is the stored length.
    assert.match(
      warc,
      /HTTP\/2\.0 200 OK\r\ncontent-type: text\/html; charset=utf-8\r\nX-Orig-content-encoding: gzip\r\nX-Orig-content-length: 77\r\nset-cookie: \[redacted\]\r\nset-cookie: \[redacted\]\r\nContent-Length: 96\r\n\r\n<html>/,
    );
    assert.match(
      warc,
      /HTTP\/1\.1 200 OK\r\nContent-Type: text\/css\r\nX-Orig-Transfer-Encoding: chunked\r\nContent-Length: 19\r\n/,
    );
    assert.match(warc, /POST \/track\?b=2&a=1 HTTP\/1\.1\r\nContent-Type: application\/json\r\n\r\n\{"event":"view"\}/);
    assert.doesNotMatch(warc, /:authority/);
    assert.match(warc, /WARC-IP-Address: 93\.184\.216\.34/);
    assert.match(warc, /WARC-Concurrent-To: <urn:uuid:/);
  });

  it('keeps odd headers exactly and skips exchanges that are not HTTP(S)', async () => {
    const exchanges = sampleExchanges();
    exchanges.push(
      {
        url: 'https://www.example.com/odd',
        method: 'GET',
        requestHeaders: {},
        status: 200,
        statusText: 'OK',
        httpVersion: 'HTTP/1.1',
        responseHeaders: [
          ['WARC-Type', 'spoof'],
          ['WARC-Type', 'again'],
          ['X-Odd', 'x=a,,,b'],
        ],
        body: Buffer.from('odd'),
        startedAt: 'not a date',
      },
      {
        url: 'data:text/plain,hello',
        method: 'GET',
        requestHeaders: {},
        status: 200,
        statusText: 'OK',
        httpVersion: 'HTTP/1.1',
        responseHeaders: [],
        body: Buffer.from('hello'),
        startedAt: '2024-05-01T10:00:01.000Z',
      },
    );
    const wacz = await buildWacz(sampleCapture({ page: { exchanges } }), options);
    const warc = gunzipSync(Buffer.from(wacz.files.get('archive/data.warc.gz') as Uint8Array)).toString('latin1');
    assert.match(
      warc,
      /HTTP\/1\.1 200 OK\r\nWARC-Type: spoof\r\nWARC-Type: again\r\nX-Odd: x=a,,,b\r\nContent-Length: 3\r\n\r\nodd/,
    );
    assert.match(warc, /WARC-Target-URI: https:\/\/www\.example\.com\/odd\r\nWARC-Date: 2024-05-01T09:59:59\.000Z/);
    assert.doesNotMatch(warc, /data:text/);
  });

  it('redacts cookie and authorization values in request and response records, keeping the names', async () => {
    const exchanges = sampleExchanges();
    exchanges.push({
      url: 'https://www.example.com/account',
      method: 'GET',
      requestHeaders: {
        Cookie: 'session=s3cr3t-cookie',
        Authorization: 'Bearer s3cr3t-token',
        'Proxy-Authorization': 'Basic s3cr3t-proxy',
      },
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      responseHeaders: [
        ['Set-Cookie', 'session=s3cr3t-new; HttpOnly'],
        ['set-cookie', 'pref=s3cr3t-pref'],
        ['Content-Type', 'text/plain'],
      ],
      body: Buffer.from('account'),
      startedAt: '2024-05-01T10:00:02.000Z',
    });
    const wacz = await buildWacz(sampleCapture({ page: { exchanges } }), options);
    const warc = gunzipSync(Buffer.from(wacz.files.get('archive/data.warc.gz') as Uint8Array)).toString('latin1');
    assert.doesNotMatch(warc, /s3cr3t/);
    for (const header of ['Cookie', 'Authorization', 'Proxy-Authorization', 'Set-Cookie', 'set-cookie']) {
      assert.match(warc, new RegExp(`\\r\\n${header}: \\[redacted\\]\\r\\n`), header);
    }
    assert.match(warc, /\r\nContent-Type: text\/plain\r\n/);
  });

  it('omits headers.json and the before screenshot when there are none', async () => {
    const wacz = await buildWacz(sampleCapture({ page: { headers: null, screenshotBefore: undefined } }), options);
    const warc = gunzipSync(Buffer.from(wacz.files.get('archive/data.warc.gz') as Uint8Array)).toString('latin1');
    assert.doesNotMatch(warc, /headers\.json|screenshot-before/);
    assert.match(warc, /screenshot\.png/);
  });

  it('indexes with SURT keys, sorted bytewise, offsets and lengths addressing single records', async () => {
    const wacz = await buildWacz(sampleCapture(), options);
    const cdxj = Buffer.from(wacz.files.get('indexes/index.cdxj') as Uint8Array).toString('utf8');
    const lines = cdxj.trimEnd().split('\n');
    const sorted = [...lines].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    assert.deepEqual(lines, sorted);
    const keys = lines.map((line) => line.split(' ')[0]);
    assert.ok(keys.includes('com,example)/'), keys.join(','));
    assert.ok(keys.includes('com,example)/s.css'));
    assert.ok(keys.some((key) => key?.startsWith('urn:capture-ledger:cap_0123456789abcdef0123456789abcdef/')));
    const warc = wacz.files.get('archive/data.warc.gz') as Uint8Array;
    for (const line of lines) {
      const [, timestamp, json] = /^\S+ (\d{14}) (\{.*\})$/.exec(line) ?? [];
      assert.ok(timestamp && json, line);
      const entry = JSON.parse(json);
      assert.equal(entry.filename, 'data.warc.gz');
      const record = recordAt(warc, Number(entry.offset), Number(entry.length));
      assert.match(record, /^WARC\/1\.1\r\n/);
      assert.ok(record.includes(`WARC-Target-URI: ${entry.url}\r\n`), `${entry.url} at ${entry.offset}`);
      assert.doesNotMatch(record, /WARC-Type: request/);
    }
  });

  it('indexes the WARC it wrote as it would index the same WARC read back from its gzip members', async () => {
    const part = {
      ...sampleExchanges()[1]!,
      url: 'https://www.example.com/clip.mp4',
      status: 206,
      statusText: 'Partial Content',
      responseHeaders: [['Content-Type', 'video/mp4'] as [string, string]],
    };
    const whole = { ...part, status: 200, statusText: 'OK' };
    const onlyPart = { ...part, url: 'https://www.example.com/only-part.mp4' };
    // Blank lines inside a payload and a body: where the indexer's reader is fed a record in parts, a cut there
    // must read the same.
    const blankLines = Buffer.from('\r\n\r\n');
    const withBlankLines = Buffer.concat([randomBytes(1000), blankLines, randomBytes(256 * 1024), blankLines]);
    const bodyWithBlankLines = { ...sampleExchanges()[1]!, body: Buffer.from('<p>a</p>\r\n\r\n<p>b</p>\r\n\r\n') };
    for (const [exchanges, screenshot] of [
      [sampleExchanges(), randomBytes(256 * 1024)],
      [[...sampleExchanges(), part, whole, onlyPart], randomBytes(256 * 1024)],
      [[bodyWithBlankLines], withBlankLines],
    ] as const) {
      const written = await writeWarc(sampleCapture({ page: { exchanges: [...exchanges], screenshot } }));
      const read = Buffer.from(await indexWarc(written.bytes));
      assert.ok(read.length > 0);
      assert.ok(Buffer.from(await indexWrittenWarc(written)).equals(read), read.toString('utf8'));
    }
  });

  it('stores a compressed payload that would not shrink in its gzip member, and deflates one that would', async () => {
    const noise = randomBytes(512 * 1024); // a PNG that deflating gains nothing on, as one of gradients encoded for speed
    const repetitive = Buffer.alloc(512 * 1024, 'row of white pixels '); // a PNG that still shrinks, as one of text
    for (const [screenshot, shrinks] of [
      [noise, false],
      [repetitive, true],
    ] as const) {
      const wacz = await buildWacz(sampleCapture({ page: { screenshot, screenshotBefore: undefined } }), options);
      const warc = wacz.files.get('archive/data.warc.gz') as Uint8Array;
      const cdxj = Buffer.from(wacz.files.get('indexes/index.cdxj') as Uint8Array).toString('utf8');
      const line = cdxj.split('\n').find((l) => l.includes('/screenshot.png'));
      const entry = JSON.parse(/(\{.*\})$/.exec(line ?? '')?.[1] ?? 'null');
      const member = Buffer.from(warc.subarray(Number(entry.offset), Number(entry.offset) + Number(entry.length)));
      const record = gunzipSync(member);
      assert.ok(
        record
          .subarray(record.length - 4 - screenshot.length)
          .subarray(0, screenshot.length)
          .equals(screenshot),
      );
      assert.equal(member.length < screenshot.length, shrinks, `member of ${member.length} bytes`);
    }
  });

  it('stores every zip member uncompressed', async () => {
    const wacz = await buildWacz(sampleCapture(), options);
    const zip = zipWacz(
      wacz.files,
      wacz.datapackageBytes,
      new TextEncoder().encode('{}'),
      new Date('2024-05-01T10:00:05Z'),
    );
    const entries = zipEntries(zip);
    assert.deepEqual(entries.map((e) => e.name).sort(), [
      'archive/data.warc.gz',
      'datapackage-digest.json',
      'datapackage.json',
      'indexes/index.cdxj',
      'pages/pages.jsonl',
    ]);
    for (const entry of entries) {
      assert.equal(entry.method, 0, `${entry.name} is STORED`);
      assert.equal(entry.compressedSize, entry.size);
    }
    assert.deepEqual(unzip(zip)['datapackage.json'], wacz.datapackageBytes);
  });
});
