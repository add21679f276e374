import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultReplayOrigin, replayOriginWarning, siteOf } from '../../../src/api/replay-server.js';

describe('the replay origin against PUBLIC_BASE_URL', () => {
  it('judges the site as the last two labels of a name; an address is its own', () => {
    assert.equal(siteOf('ledger.example.org'), 'example.org');
    assert.equal(siteOf('replay.ledger.example.org'), 'example.org');
    assert.equal(siteOf('Localhost'), 'localhost');
    assert.equal(siteOf('127.0.0.1'), '127.0.0.1');
    assert.equal(siteOf('[::1]'), '[::1]');
  });

  it('warns about a replay origin on the same site in production, not about make run on loopback', () => {
    // make run: localhost and 127.0.0.1 are two sites.
    assert.equal(
      replayOriginWarning('http://localhost:8080', defaultReplayOrigin('http://localhost:8080', 8081)),
      null,
    );
    assert.equal(replayOriginWarning('https://ledger.example.org', 'https://replay.example.net'), null);
    // The default on a real host name is the same host on another port; a sibling subdomain is the same site too.
    for (const replay of ['https://ledger.example.org:8081', 'https://replay.example.org']) {
      const warning = replayOriginWarning('https://ledger.example.org', replay);
      assert.match(warning ?? '', /same site as PUBLIC_BASE_URL \(example\.org\)/, replay);
      assert.match(warning ?? '', /REPLAY_ORIGIN/);
    }
    assert.notEqual(
      replayOriginWarning('http://ledger.internal.example:8080', 'http://ledger.internal.example:8081'),
      null,
    );
    // Loopback over https is no `make run`: warned.
    assert.notEqual(replayOriginWarning('https://localhost:8443', 'https://localhost:8444'), null);
    assert.equal(replayOriginWarning('http://127.0.0.1:8080', 'http://127.0.0.1:8081'), null);
  });
});
