import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { blockedResponse, CaptureError, navigationFailure, netErrorName } from '../../../src/capture/capture-error.js';

const URL = 'http://example.test/';

describe('navigationFailure', () => {
  const cases: Array<[string, string, boolean]> = [
    ['net::ERR_CONNECTION_REFUSED at http://example.test/', 'navigation_failed', true],
    ['net::ERR_CONNECTION_RESET', 'navigation_failed', true],
    ['net::ERR_TIMED_OUT', 'timeout', true],
    ['net::ERR_NAME_NOT_RESOLVED', 'navigation_failed', false],
    ['net::ERR_CERT_AUTHORITY_INVALID', 'tls_error', false],
    ['net::ERR_SSL_PROTOCOL_ERROR', 'tls_error', false],
    ['net::ERR_TOO_MANY_REDIRECTS', 'invalid_response', false],
    ['net::ERR_INVALID_RESPONSE', 'invalid_response', false],
    ['net::ERR_ABORTED', 'invalid_response', false],
    ['net::ERR_UNSAFE_PORT', 'blocked', false],
    ['net::ERR_TUNNEL_CONNECTION_FAILED', 'navigation_failed', true],
    ['net::ERR_SOMETHING_NEW', 'navigation_failed', true],
    ['Navigation failed for an odd reason', 'navigation_failed', true],
  ];
  for (const [errorText, code, retryable] of cases) {
    it(`${errorText} → ${code}, retryable ${retryable}`, () => {
      const error = navigationFailure({ errorText, url: URL });
      assert.ok(error instanceof CaptureError);
      assert.equal(error.name, 'CaptureError');
      assert.equal(error.code, code);
      assert.equal(error.retryable, retryable);
      assert.ok(error.message.length > 10);
    });
  }

  it("uses the proxy's explanation: not retryable → blocked with its reason", () => {
    const error = navigationFailure({
      errorText: 'net::ERR_TUNNEL_CONNECTION_FAILED',
      url: URL,
      explain: (url) => (url === URL ? { reason: 'The address 10.0.0.1 is private', retryable: false } : undefined),
    });
    assert.equal(error.code, 'blocked');
    assert.equal(error.retryable, false);
    assert.equal(error.message, 'The address 10.0.0.1 is private');
  });

  it("uses the proxy's explanation: retryable → navigation_failed", () => {
    const error = navigationFailure({
      errorText: 'net::ERR_EMPTY_RESPONSE',
      url: URL,
      explain: () => ({ reason: 'upstream timed out', retryable: true }),
    });
    assert.equal(error.code, 'navigation_failed');
    assert.equal(error.retryable, true);
  });

  it('ignores an explainer that has nothing to say or throws', () => {
    assert.equal(
      navigationFailure({ errorText: 'net::ERR_CONNECTION_REFUSED', url: URL, explain: () => undefined }).code,
      'navigation_failed',
    );
    const throwing = () => {
      throw new Error('boom');
    };
    assert.equal(
      navigationFailure({ errorText: 'net::ERR_CERT_DATE_INVALID', url: URL, explain: throwing }).code,
      'tls_error',
    );
  });
});

describe('a vantage point that stops answering mid-capture', () => {
  it('is vantage_unavailable, retryable, for the main document and for an error-status answer', () => {
    const explain = () => ({ kind: 'vantage', reason: 'The vantage point is unavailable: refused', retryable: true });
    const failed = navigationFailure({ errorText: 'net::ERR_TUNNEL_CONNECTION_FAILED', url: URL, explain });
    assert.equal(failed.code, 'vantage_unavailable');
    assert.equal(failed.retryable, true);
    assert.match(failed.message, /vantage point is unavailable/);
    assert.equal(blockedResponse(URL, explain)?.code, 'vantage_unavailable');
  });
});

describe('blockedResponse', () => {
  it('is undefined without an explanation', () => {
    assert.equal(blockedResponse(URL, undefined), undefined);
    assert.equal(
      blockedResponse(URL, () => undefined),
      undefined,
    );
  });

  it('turns an explained error page into a blocked error', () => {
    const error = blockedResponse(URL, () => ({ reason: 'private address', retryable: false }));
    assert.equal(error?.code, 'blocked');
    assert.equal(error?.retryable, false);
  });
});

describe('netErrorName', () => {
  it('extracts the Chromium error name', () => {
    assert.equal(netErrorName('net::ERR_CONNECTION_REFUSED at http://x/'), 'ERR_CONNECTION_REFUSED');
    assert.equal(netErrorName('no error here'), undefined);
    assert.equal(netErrorName(undefined), undefined);
  });
});
