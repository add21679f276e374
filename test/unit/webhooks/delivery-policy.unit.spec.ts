import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AttemptResult, decideAfterAttempt, maxAttempts } from '../../../src/webhooks/delivery-policy.js';

// spec 6.6 with the default WEBHOOK_RETRY_DELAYS: attempt 1 immediate, then 1 min, 5 min, 15 min; 4 in all.
const DEFAULT = [60, 300, 900];
const http = (status: number): AttemptResult => ({ kind: 'response', status });
const refused: AttemptResult = { kind: 'network', detail: 'connect ECONNREFUSED 203.0.113.7:443' };
const timeout: AttemptResult = { kind: 'timeout' };

describe('webhook retry table (spec 6.6)', () => {
  it('has four attempts with the default delays', () => {
    assert.equal(maxAttempts(DEFAULT), 4);
    assert.equal(maxAttempts([1]), 2);
  });

  it('any 2xx is delivered, at any attempt', () => {
    for (const status of [200, 201, 202, 204, 299]) {
      for (const attempt of [1, 4])
        assert.deepEqual(decideAfterAttempt(attempt, http(status), DEFAULT), { kind: 'delivered' });
    }
  });

  it('retries transient failures after 1, 5 and 15 minutes, then dead-letters after the 4th attempt', () => {
    const table: Array<[number, AttemptResult, number | 'dead']> = [
      [1, http(500), 60_000],
      [2, http(503), 300_000],
      [3, refused, 900_000],
      [4, timeout, 'dead'],
      [1, http(408), 60_000],
      [2, http(429), 300_000],
      [1, http(302), 60_000],
      [1, http(100), 60_000],
      [4, http(429), 'dead'],
    ];
    for (const [attempt, result, expected] of table) {
      const d = decideAfterAttempt(attempt, result, DEFAULT);
      if (expected === 'dead') {
        assert.equal(d.kind, 'dead_letter', `attempt ${attempt} ${JSON.stringify(result)}`);
        assert.match((d as { reason: string }).reason, /after 4 attempts/);
      } else {
        assert.deepEqual(d, { kind: 'retry', delayMs: expected }, `attempt ${attempt} ${JSON.stringify(result)}`);
      }
    }
  });

  it('a 4xx other than 408 and 429 is permanent: dead-lettered at once', () => {
    for (const status of [400, 401, 403, 404, 410, 422, 499]) {
      const d = decideAfterAttempt(1, http(status), DEFAULT);
      assert.equal(d.kind, 'dead_letter', String(status));
      assert.match((d as { reason: string }).reason, new RegExp(`HTTP ${status}`));
    }
  });

  it('a refused (private) address is not retried', () => {
    assert.equal(
      decideAfterAttempt(1, { kind: 'blocked', detail: 'refused to connect to a.test: private' }, DEFAULT).kind,
      'dead_letter',
    );
  });

  it('follows configured delays, fractional seconds included', () => {
    assert.deepEqual(decideAfterAttempt(1, http(500), [0.5, 2]), { kind: 'retry', delayMs: 500 });
    assert.deepEqual(decideAfterAttempt(2, http(500), [0.5, 2]), { kind: 'retry', delayMs: 2000 });
    assert.equal(decideAfterAttempt(3, http(500), [0.5, 2]).kind, 'dead_letter');
  });
});
