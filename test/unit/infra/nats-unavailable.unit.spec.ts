import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JetStreamApiError, JetStreamError } from '@nats-io/jetstream';
import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { unexpectedErrorProblem } from '../../../src/api/problem.js';
import { isNatsUnavailable, whileNatsUnavailable } from '../../../src/infra/nats-unavailable.js';

const apiError = (code: number, err_code: number, description: string) =>
  new JetStreamApiError({ code, err_code, description });

describe('NATS unavailable: what is worth asking again', () => {
  it('a timeout, no responders and a leaderless stream are; a refusal and a missing stream are not', () => {
    assert.equal(isNatsUnavailable(new TimeoutError()), true);
    assert.equal(isNatsUnavailable(new RequestError('request', { cause: new TimeoutError() })), true);
    const noResponders = new RequestError('no responders', { cause: new NoRespondersError('$JS.API.INFO') });
    // As nats.js reports it: a JetStream error ('jetstream is not enabled') whose cause is the RequestError.
    assert.equal(isNatsUnavailable(new JetStreamError('jetstream is not enabled', { cause: noResponders })), true);
    assert.equal(isNatsUnavailable(apiError(503, 10008, 'JetStream system temporarily unavailable')), true);
    assert.equal(isNatsUnavailable(apiError(404, 10059, 'stream not found')), false);
    assert.equal(isNatsUnavailable(apiError(400, 10071, 'wrong last sequence: 3')), false);
    assert.equal(isNatsUnavailable(new Error('boom')), false);
    assert.equal(isNatsUnavailable(null), false);
  });

  it('the API answers it with 503 and Retry-After, anything else with 500 and the request id', () => {
    const busy = unexpectedErrorProblem(new TimeoutError(), 'req-1');
    assert.equal(busy.status, 503);
    assert.ok(Number(busy.headers['Retry-After']) > 0);
    const bug = unexpectedErrorProblem(new TypeError('x is undefined'), 'req-2');
    assert.equal(bug.status, 500);
    assert.match(bug.detail, /req-2/);
  });

  it('whileNatsUnavailable retries within its budget and throws anything else at once', async () => {
    let tries = 0;
    const value = await whileNatsUnavailable(
      async () => {
        if (++tries < 3) throw new TimeoutError();
        return 'answered';
      },
      { budgetMs: 10_000, pauseMs: 1 },
    );
    assert.deepEqual([value, tries], ['answered', 3]);
    tries = 0;
    await assert.rejects(
      whileNatsUnavailable(
        async () => {
          tries++;
          throw new Error('refused');
        },
        { budgetMs: 10_000, pauseMs: 1 },
      ),
      /refused/,
    );
    assert.equal(tries, 1);
    await assert.rejects(
      whileNatsUnavailable(
        async () => {
          throw new TimeoutError();
        },
        { budgetMs: 0, pauseMs: 1 },
      ),
      TimeoutError,
    );
  });
});
