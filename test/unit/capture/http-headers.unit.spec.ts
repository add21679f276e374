import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  headersArtifact,
  httpVersionOf,
  joinHeaderObject,
  pairsFromHeaderObject,
  parseHeadersText,
  statusTextOf,
} from '../../../src/capture/http-headers.js';

describe('headersArtifact', () => {
  it('lower-cases names and redacts every Set-Cookie value', () => {
    const artifact = headersArtifact([
      ['Content-Type', 'text/html'],
      ['Set-Cookie', 'session=secret; HttpOnly'],
      ['set-cookie', 'pref=dark'],
      ['X-One', 'a'],
    ]);
    assert.deepEqual(artifact, {
      'content-type': 'text/html',
      'set-cookie': ['[redacted]', '[redacted]'],
      'x-one': 'a',
    });
  });

  it('keeps a single Set-Cookie as a string and repeated headers as arrays in order', () => {
    const artifact = headersArtifact([
      ['Set-Cookie', 'a=1'],
      ['Link', '</a.css>; rel=preload'],
      ['LINK', '</b.js>; rel=preload'],
    ]);
    assert.equal(artifact['set-cookie'], '[redacted]');
    assert.deepEqual(artifact['link'], ['</a.css>; rel=preload', '</b.js>; rel=preload']);
    assert.ok(!JSON.stringify(artifact).includes('a=1'));
  });
});

describe('parseHeadersText', () => {
  it('parses a raw HTTP/1.1 header block in order, with repeats', () => {
    const pairs = parseHeadersText(
      'HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nContent-Type: text/html\r\nSet-Cookie: b=2\r\n\r\n',
    );
    assert.deepEqual(pairs, [
      ['Set-Cookie', 'a=1'],
      ['Content-Type', 'text/html'],
      ['Set-Cookie', 'b=2'],
    ]);
  });

  it('joins folded lines and keeps colons inside values', () => {
    assert.deepEqual(parseHeadersText('HTTP/1.0 200 OK\nX-Long: a\n  b\nDate: Mon, 01 Jan 2024 10:00:00 GMT\n'), [
      ['X-Long', 'a b'],
      ['Date', 'Mon, 01 Jan 2024 10:00:00 GMT'],
    ]);
  });

  it('returns undefined when there is nothing to parse', () => {
    assert.equal(parseHeadersText(undefined), undefined);
    assert.equal(parseHeadersText('HTTP/1.1 204 No Content\r\n\r\n'), undefined);
  });
});

describe('CDP header objects', () => {
  it('splits values joined with newlines into pairs', () => {
    assert.deepEqual(pairsFromHeaderObject({ 'set-cookie': 'a=1\nb=2', 'content-type': 'text/html' }), [
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['content-type', 'text/html'],
    ]);
  });

  it('joins repeated request headers with ", "', () => {
    assert.deepEqual(joinHeaderObject({ Accept: 'a\nb', Host: 'x' }), { Accept: 'a, b', Host: 'x' });
  });
});

describe('httpVersionOf / statusTextOf', () => {
  it('maps CDP protocol names to status-line versions', () => {
    assert.equal(httpVersionOf('http/1.1'), 'HTTP/1.1');
    assert.equal(httpVersionOf('http/1.0'), 'HTTP/1.0');
    assert.equal(httpVersionOf('h2'), 'HTTP/2');
    assert.equal(httpVersionOf('h3-29'), 'HTTP/3');
    assert.equal(httpVersionOf(undefined), 'HTTP/1.1');
    assert.equal(httpVersionOf('h2', 'HTTP/1.0 200 OK\r\n'), 'HTTP/1.0');
  });

  it('fills in the reason phrase HTTP/2 does not carry', () => {
    assert.equal(statusTextOf(404, ''), 'Not Found');
    assert.equal(statusTextOf(200, 'Fine'), 'Fine');
  });
});
