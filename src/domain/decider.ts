/**
 * The shape of domain logic (DESIGN decision 2, Emmett's decider): commands are data, `decide` turns a command
 * and the current state into events and a reply (or throws a DomainError), `evolve` folds one event into the
 * state, `initialState` is the state before any event. No I/O: the actor runtime reads, appends and retries.
 */

/** A command: what someone asks for, as data. */
export interface Command<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/** What `decide` returns: the events to append (none for a no-op) and the answer to the caller. */
export interface Decision<E, R> {
  events: E[];
  reply: R;
}

/** An event as `evolve` sees it: with the time it was recorded (the actor stamps it before folding). */
export type Recorded<E> = E & { occurredAt: string };

/** The reply of each command type of `C`. */
export type ReplyMap<C extends Command> = { [K in C['type']]: unknown };

/**
 * `Replies` maps each command type to its reply, so the reply's type follows from the command's:
 * `decide({ type: 'RevokeKey', … })` answers `Replies['RevokeKey']`.
 */
export interface Decider<S, C extends Command, E, Replies extends ReplyMap<C>> {
  initialState(key: string): S;
  decide<K extends C>(command: K, state: S, now: Date): Decision<E, Replies[K['type']]>;
  /** May mutate and return `state`: an actor owns its state exclusively. */
  evolve(state: S, event: Recorded<E>): S;
}
