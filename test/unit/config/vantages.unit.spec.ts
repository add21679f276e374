import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { parseVantages, viewOfVantage } from '../../../src/config/vantages.js';

describe('VANTAGES', () => {
  it('parses vantages and shows them without the upstream or its credentials', () => {
    const parsed = parseVantages(
      JSON.stringify([
        {
          id: 'de-1',
          label: 'Frankfurt',
          region: 'DE',
          upstream: 'http://u:p@10.0.0.5:3128',
          expectedExit: '203.0.113.7',
        },
        {
          id: 'us-ca',
          label: 'San José',
          region: 'US-CA',
          upstream: 'socks5://10.0.0.6:1080',
          exitProbeUrl: 'https://echo.example/ip',
        },
      ]),
    );
    assert.ok('vantages' in parsed);
    assert.equal(parsed.vantages[0]!.upstream.username, 'u');
    assert.deepEqual(parsed.vantages.map(viewOfVantage), [
      {
        id: 'de-1',
        label: 'Frankfurt',
        region: 'DE',
        upstreamKind: 'http-connect',
        expectedExit: '203.0.113.7',
        exitObserved: false,
      },
      {
        id: 'us-ca',
        label: 'San José',
        region: 'US-CA',
        upstreamKind: 'socks5',
        expectedExit: null,
        exitObserved: true,
      },
    ]);
    assert.deepEqual(parseVantages(undefined), { vantages: [] });
  });

  it('names every bad field', () => {
    const parsed = parseVantages(
      JSON.stringify([
        { id: 'Bad Id', label: '', region: 'Germany', upstream: 'ftp://x:21' },
        {
          id: 'ok',
          label: 'x',
          region: 'DE',
          upstream: 'http://10.0.0.1',
          expectedExit: 'nope',
          exitProbeUrl: 'file:///x',
          extra: 1,
        },
        { id: 'ok', label: 'x', region: 'DE', upstream: 'socks5://10.0.0.1:1080' },
        { id: 'ok', label: 'x', region: 'DE', upstream: 'socks5://10.0.0.1:1080' },
      ]),
    );
    assert.ok('errors' in parsed);
    const text = parsed.errors.join('\n');
    for (const expected of [
      /VANTAGES\[0\]\.id/,
      /VANTAGES\[0\]\.label/,
      /VANTAGES\[0\]\.region/,
      /VANTAGES\[0\]\.upstream must use http: \(CONNECT\) or socks5:/,
      /VANTAGES\[1\]\.extra is not a vantage field/,
      /VANTAGES\[1\]\.upstream must be scheme:\/\/host:port/,
      /VANTAGES\[1\]\.expectedExit/,
      /VANTAGES\[1\]\.exitProbeUrl/,
      /VANTAGES\[3\]\.id ok is given twice/,
    ])
      assert.match(text, expected);
    assert.throws(() => loadConfig({ VANTAGES: '{' }), /VANTAGES must be a JSON array/);
  });
});
