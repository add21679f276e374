import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricsAllowed } from '../../../src/observability/metrics-access.js';

describe('who may scrape /metrics', () => {
  it('without METRICS_TOKEN: clients on this machine only, by the socket peer address', () => {
    for (const peer of ['127.0.0.1', '127.0.0.5', '::1', '::ffff:127.0.0.1'])
      assert.equal(metricsAllowed(undefined, peer, undefined), true, peer);
    for (const peer of ['10.0.0.1', '192.168.1.2', '2001:db8::1', '::ffff:10.0.0.1', undefined, 'nonsense']) {
      assert.equal(metricsAllowed(undefined, peer, undefined), false, String(peer));
    }
  });
  it('with METRICS_TOKEN: the bearer token, from anywhere, and nothing else', () => {
    const token = 'metrics-token-0123456789';
    assert.equal(metricsAllowed(`Bearer ${token}`, '10.0.0.1', token), true);
    assert.equal(metricsAllowed(`bearer ${token}`, '10.0.0.1', token), true);
    assert.equal(metricsAllowed(undefined, '127.0.0.1', token), false);
    assert.equal(metricsAllowed(`Bearer ${token}x`, '127.0.0.1', token), false);
    assert.equal(metricsAllowed('Basic abc', '127.0.0.1', token), false);
  });
});
