import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSteps, type Step } from '../../../src/capture/capture-steps.js';

interface State {
  ran: string[];
  skip: boolean;
}

const step = (name: string, extra: Partial<Step<State>> = {}): Step<State> => ({
  name,
  run: (s) => {
    s.ran.push(name);
  },
  ...extra,
});

describe('runSteps', () => {
  it('runs the steps in order, skips those whose `when` fails, and times and logs each that ran by name', async () => {
    const logged: Array<{ step: string; ms: number }> = [];
    const log = { debug: (entry: { step: string; ms: number }) => void logged.push(entry) };
    const state: State = { ran: [], skip: true };
    const timings = await runSteps(
      [
        step('a'),
        step('b', { when: (s) => !s.skip }),
        { name: 'c', run: async (s) => void s.ran.push('c') },
        step('d'),
      ],
      state,
      log as never,
    );
    assert.deepEqual(state.ran, ['a', 'c', 'd']);
    assert.deepEqual(Object.keys(timings), ['a', 'c', 'd']);
    assert.deepEqual(
      logged.map((e) => e.step),
      ['a', 'c', 'd'],
    );
    assert.ok(Object.values(timings).every((ms) => Number.isInteger(ms) && ms >= 0));
  });

  it('after a failure runs only the alwaysRun steps, then throws the first failure', async () => {
    const state: State = { ran: [], skip: false };
    const boom = new Error('boom');
    const failing: Step<State> = {
      name: 'fails',
      run: async () => {
        throw boom;
      },
    };
    const alsoFailing: Step<State> = {
      name: 'release-fails',
      alwaysRun: true,
      run: () => {
        throw new Error('later');
      },
    };
    await assert.rejects(
      runSteps([step('a'), failing, step('b'), step('release', { alwaysRun: true }), alsoFailing], state),
      (e) => e === boom,
    );
    assert.deepEqual(state.ran, ['a', 'release']);
  });

  it('does not await a synchronous step: a run of synchronous steps finishes in the same turn', async () => {
    const state: State = { ran: [], skip: false };
    let done = false;
    void runSteps([step('a'), step('b')], state).then(() => (done = true));
    // Both ran before the first await of the caller's turn; only the final resolution is a microtask away.
    assert.deepEqual(state.ran, ['a', 'b']);
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(done, true);
  });
});
