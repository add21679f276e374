import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JetStreamManager } from '@nats-io/jetstream';
import { jobBacklog } from '../../../src/ledger/job-backlog.js';

/** A JetStreamManager whose JOBS depth and answer delay the test sets; counts the stream-info requests. */
function fakeJsm() {
  const jobs = { messages: 0, delayMs: 0, asked: 0, fail: false };
  const jsm = {
    streams: {
      info: async () => {
        jobs.asked++;
        await new Promise((r) => setTimeout(r, jobs.delayMs));
        if (jobs.fail) throw new Error('no stream leader');
        return { state: { messages: jobs.messages } };
      },
    },
  } as unknown as JetStreamManager;
  return { jsm, jobs };
}

describe('jobBacklog', () => {
  it('answers the depth, asking the stream at most once per max age', async () => {
    const { jsm, jobs } = fakeJsm();
    const backlog = jobBacklog(jsm, { maxAgeMs: 60_000 });
    jobs.messages = 7;
    assert.equal(await backlog(), 7);
    jobs.messages = 9;
    assert.equal(await backlog(), 7, 'a fresh depth is answered from memory');
    assert.equal(jobs.asked, 1);
  });

  it('answers the last known depth when a refresh is slow, and the refresh lands for the next call', async () => {
    const { jsm, jobs } = fakeJsm();
    const backlog = jobBacklog(jsm, { maxAgeMs: 0, waitMs: 10 });
    jobs.messages = 3;
    assert.equal(await backlog(), 3);
    jobs.messages = 5;
    jobs.delayMs = 200;
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(await backlog(), 3, 'the slow refresh does not hold the caller');
    await new Promise((r) => setTimeout(r, 400));
    jobs.delayMs = 0;
    const before = jobs.asked;
    assert.equal(await backlog(), 5);
    assert.ok(jobs.asked > before);
  });

  it('keeps answering after a failed refresh and retries on the next call', async () => {
    const { jsm, jobs } = fakeJsm();
    const backlog = jobBacklog(jsm, { maxAgeMs: 0, waitMs: 1000 });
    jobs.fail = true;
    assert.equal(await backlog(), 0);
    jobs.fail = false;
    jobs.messages = 4;
    assert.equal(await backlog(), 4);
  });
});
