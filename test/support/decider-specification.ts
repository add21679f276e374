import assert from 'node:assert/strict';
import type { Command, Decider, Decision, ReplyMap } from '../../src/domain/decider.js';
import { DomainError } from '../../src/domain/errors.js';

/**
 * Given (events) / when (command) / then (events and reply, or a DomainError), for any decider — after
 * Emmett's DeciderSpecification. The state is folded afresh from the given events for every `then`.
 *
 *   const given = deciderSpecification(tenantDecider, { key: 'acme', now });
 *   given(keyCreated).when({ type: 'RevokeKey', data: { keyHash } }).then([keyRevoked], { revokedAt, alreadyRevoked: false });
 *   given().when({ type: 'RevokeKey', data: { keyHash } }).thenThrows({ status: 404 });
 */
export interface DomainErrorExpectation {
  status: number;
  title?: string;
  /** A substring of, or a pattern for, the detail. */
  detail?: string | RegExp;
}

export function deciderSpecification<S, C extends Command, E, Replies extends ReplyMap<C>>(
  decider: Decider<S, C, E, Replies>,
  opts: { key: string; now: Date },
) {
  return (...given: E[]) => ({
    when<K extends C>(command: K, now: Date = opts.now) {
      type R = Replies[K['type']];
      const decide = (): Decision<E, R> => {
        // Given events are recorded at `opts.now` unless they carry their own time.
        const state = given.reduce(
          (s, e) => decider.evolve(s, { occurredAt: opts.now.toISOString(), ...e }),
          decider.initialState(opts.key),
        );
        return decider.decide(command, state, now);
      };
      return {
        /** The command appends exactly `events` (and answers `reply`, when given). Returns the decision. */
        // biome-ignore lint/suspicious/noThenProperty: given / when / then reads as the specification it is; this object is never awaited
        then(events: E[], ...reply: [R] | []): Decision<E, R> {
          const decision = decide();
          assert.deepEqual(decision.events, events);
          if (reply.length > 0) assert.deepEqual(decision.reply, reply[0]);
          return decision;
        },
        /** The command appends nothing (a no-op), answering `reply` when given. */
        thenNothingHappened(...reply: [R] | []): Decision<E, R> {
          return this.then([], ...reply);
        },
        /** The command is refused with a DomainError; returns it for further checks (body, headers). */
        thenThrows(expected: DomainErrorExpectation): DomainError {
          let decision: Decision<E, R>;
          try {
            decision = decide();
          } catch (err) {
            assert.ok(err instanceof DomainError, `expected a DomainError, got ${String(err)}`);
            assert.equal(err.status, expected.status, `status of: ${err.detail}`);
            if (expected.title !== undefined) assert.equal(err.title, expected.title);
            if (typeof expected.detail === 'string')
              assert.ok(err.detail.includes(expected.detail), `detail: ${err.detail}`);
            if (expected.detail instanceof RegExp) assert.match(err.detail, expected.detail);
            return err;
          }
          assert.fail(
            `expected a DomainError ${expected.status}, but the command was decided: ${JSON.stringify(decision)}`,
          );
        },
      };
    },
  });
}
