import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  afterFailure,
  type AttemptCounts,
  type AttemptPolicy,
  beforeAttempt,
  countAbandoned,
  type Failure,
  MAX_PAGE_ATTEMPTS,
  NO_ATTEMPTS,
} from '../../../src/capture/attempt-policy.js';
import { classify } from '../../../src/capture/capture-worker.js';
import { CaptureError, FAILURE_CLASSES } from '../../../src/capture/capture-error.js';
import { FAILURE_REASONS } from '../../../src/domain/failure-reason.js';

const policy: AttemptPolicy = { serviceDelaysMs: [30_000, 120_000], pageDelayMs: (n) => 2000 * n };
const pageTimeout: Failure = {
  owner: 'page',
  failureReason: 'target_timeout',
  error: 'The page did not load within 30 s',
  retryable: true,
};
const busy: Failure = {
  owner: 'service',
  failureReason: 'service_overloaded',
  error: 'The capture service could not open a browser page in time',
  retryable: true,
};
const failed = (counts: AttemptCounts, f: Failure): AttemptCounts => {
  const page = counts.page + (f.owner === 'page' ? 1 : 0);
  const service = counts.service + (f.owner === 'service' ? 1 : 0);
  return { page, service, started: page + service, last: f };
};

describe('attempt policy', () => {
  it('runs a capture never tried', () => {
    assert.deepEqual(beforeAttempt(NO_ATTEMPTS, policy, 0), { kind: 'run' });
  });

  it("retries the page's failures after a short delay, and fails with the page's reason after its attempts", () => {
    let counts = NO_ATTEMPTS;
    for (let n = 1; n < MAX_PAGE_ATTEMPTS; n++) {
      counts = failed(counts, pageTimeout);
      assert.deepEqual(afterFailure(counts, policy), { kind: 'wait', delayMs: 2000 * n });
    }
    counts = failed(counts, pageTimeout);
    assert.deepEqual(afterFailure(counts, policy), {
      kind: 'fail',
      error: pageTimeout.error,
      retryable: true,
      failureReason: 'target_timeout',
      attempts: MAX_PAGE_ATTEMPTS,
    });
  });

  it("does not count the service's own failures against the page's attempts, and backs off in order", () => {
    let counts = failed(NO_ATTEMPTS, pageTimeout);
    counts = failed(counts, busy);
    assert.deepEqual(afterFailure(counts, policy), { kind: 'wait', delayMs: 30_000 });
    counts = failed(counts, busy);
    assert.deepEqual(afterFailure(counts, policy), { kind: 'wait', delayMs: 120_000 });
    assert.equal(counts.page, 1, 'two service failures later the page has used one attempt');
  });

  it('fails with the service reason only once its delays are used up', () => {
    let counts = NO_ATTEMPTS;
    for (let n = 0; n <= policy.serviceDelaysMs.length; n++) counts = failed(counts, busy);
    const verdict = afterFailure(counts, policy);
    assert.equal(verdict.kind, 'fail');
    assert.equal(verdict.kind === 'fail' && verdict.failureReason, 'service_overloaded');
    assert.equal(verdict.kind === 'fail' && verdict.retryable, true);
    assert.match(verdict.kind === 'fail' ? verdict.error : '', /submit it again later/);
  });

  it('fails at once on a failure that will not change on retry', () => {
    const refused: Failure = {
      owner: 'page',
      failureReason: 'egress_refused',
      error: 'The address is not allowed',
      retryable: false,
    };
    assert.deepEqual(afterFailure(failed(NO_ATTEMPTS, refused), policy), {
      kind: 'fail',
      error: refused.error,
      retryable: false,
      failureReason: 'egress_refused',
      attempts: 1,
    });
  });

  it('counts an attempt that began and never reported as the service failure of a stopped worker', () => {
    const abandoned = countAbandoned({ page: 1, service: 0, started: 2, last: pageTimeout });
    assert.equal(abandoned.page, 1);
    assert.equal(abandoned.service, 1);
    assert.equal(abandoned.last?.owner, 'service');
    assert.equal(countAbandoned({ page: 1, service: 0, started: 1 }).service, 0, 'nothing abandoned');
  });

  it("before an attempt, waits out what is left of the service's delay since the last failure", () => {
    const counts = countAbandoned({ page: 0, service: 1, started: 2, last: busy });
    assert.deepEqual(beforeAttempt(counts, policy, 40_000), { kind: 'wait', delayMs: 80_000 });
    assert.deepEqual(beforeAttempt(counts, policy, 130_000), { kind: 'run' });
    assert.deepEqual(
      beforeAttempt(failed(NO_ATTEMPTS, pageTimeout), policy, 0),
      { kind: 'run' },
      "the page's delay was served by the queue",
    );
  });
});

describe('failure classes', () => {
  it('every capture error code has a documented failure reason and an owner', () => {
    for (const [code, cls] of Object.entries(FAILURE_CLASSES)) {
      assert.ok((FAILURE_REASONS as readonly string[]).includes(cls.failureReason), `${code} → ${cls.failureReason}`);
      assert.ok(cls.owner === 'page' || cls.owner === 'service');
    }
  });

  it("classifies a timeout before navigation as the service's, a page timeout and a challenge as the page's", () => {
    assert.deepEqual(classify(new CaptureError('service_busy', 'busy', true)), {
      owner: 'service',
      failureReason: 'service_overloaded',
      error: 'busy',
      retryable: true,
    });
    assert.equal(classify(new CaptureError('timeout', 'slow', true)).owner, 'page');
    assert.equal(classify(new CaptureError('timeout', 'slow', true)).failureReason, 'target_timeout');
    assert.equal(classify(new CaptureError('challenge', 'Cloudflare challenge', true)).failureReason, 'blocked');
    assert.equal(classify(new CaptureError('blocked', 'private address', false)).failureReason, 'egress_refused');
    assert.equal(classify(new CaptureError('browser_crashed', 'gone', true)).owner, 'service');
  });

  it("classifies an error while storing as the service's own", () => {
    const f = classify(new Error('no responders'));
    assert.equal(f.owner, 'service');
    assert.equal(f.failureReason, 'service_overloaded');
  });
});
