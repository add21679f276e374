import type { Command, Decider, Decision, ReplyMap } from '../domain/decider.js';
import type { DomainEvent } from '../domain/events.js';
import { type EventEnvelope, stampEnvelope, type UnsealedEnvelope } from '../ledger/envelope.js';
import { ConcurrencyConflictError, type EventStore, type StoredEvent } from '../ledger/event-store.js';
import { checkSnapshotAgainstLog, encodeSnapshot, parseSnapshot, sealSnapshot } from './actor-snapshot.js';
import type { SnapshotStore } from './snapshot-store.js';
import { createSnapshotWriter } from './snapshot-writer.js';

/**
 * Per-key actors (DESIGN decision 2): one mailbox per key in this process, turns run one at a time, state is
 * folded from the key's events, and every append is guarded by JetStream optimistic concurrency. Another
 * process appending to the same subject shows up as a conflict: we reload and decide again. Commands are data;
 * the runtime is generic over a decider (`{ decide, evolve, initialState }`, src/domain/decider.ts) and knows
 * nothing of what the commands mean.
 *
 * Group commit: a turn takes every command waiting in the mailbox, decides them in order against the
 * evolving state, and appends their events as one commit (one JetStream message). Replies are released only
 * after the commit that carries their events (or an earlier one) is acknowledged. Idempotence is the
 * decider's job (a capture's outcome applies only while it is pending); the store's msgID is the commit's
 * OCC slot, not a command id.
 *
 * Snapshots (DESIGN decision 12; docs/architecture.md, Actors): with a snapshot store and a definition that can encode its state,
 * hydration reads the subject's head and the newest snapshot together, trusts the snapshot only if it is of
 * the current state version, intact, and its (lastSeq, lastHash) is a commit of this subject in the log, and
 * then folds only the tail after it. Anything in doubt: fold the whole subject. A snapshot is written after a
 * turn or hydration once `snapshotEvery` events have been folded since the last one, and on passivation.
 */

/** A decider and where its events live. */
export interface ActorDefinition<S, C extends Command, E extends DomainEvent, Replies extends ReplyMap<C>>
  extends Decider<S, C, E, Replies> {
  subjectOf(key: string): string;
  /** How the state is snapshotted; `version` changes whenever the state shape or `evolve` does. */
  snapshot?: {
    version: number;
    encode(state: S): unknown;
    /** Throws when `data` is not a state of this version. */
    decode(key: string, data: unknown): S;
  };
}

/** Who asks and in which flow: copied into the envelope of every event the command appends. */
export interface CommandMeta {
  correlationId: string;
  causedBy: EventEnvelope['causedBy'];
}

export interface ActorRuntimeOptions {
  /** Idle actors are dropped from memory after this long (passivation). */
  idleMs?: number;
  maxAttempts?: number;
  /** Most commands decided in one turn / one commit. */
  maxGroup?: number;
  now?: () => Date;
  newEventId: () => string;
  /** Called after a successful append, e.g. to wake a projection waiter. */
  onAppended?: (stored: StoredEvent[]) => void;
  /** Where snapshots are kept; none: every hydration folds the whole subject. */
  snapshots?: SnapshotStore;
  /** Events folded since the last snapshot before the next one is written (default 200). */
  snapshotEvery?: number;
  /** A snapshot was not trusted (`reason`), or could not be read or written (`error`). */
  onSnapshotProblem?: (key: string, problem: { reason?: string; error?: unknown }) => void;
}

export interface ExecuteResult<S, E extends DomainEvent, R> {
  reply: R;
  /** The events this command appended (empty when it changed nothing). */
  appended: StoredEvent<E>[];
  state: S;
}

interface Pending<S, C extends Command, E extends DomainEvent> {
  meta: CommandMeta;
  /** null: a read, which decides nothing and answers with the state caught up with the log. */
  command: C | null;
  resolve(r: ExecuteResult<S, E, unknown>): void;
  reject(err: unknown): void;
}

interface ActorCell<S, C extends Command, E extends DomainEvent> {
  state: S;
  lastSeq: number;
  lastHash: string | null;
  hydrated: boolean;
  /** Sequence of the newest snapshot written or trusted for this key, and events folded since. */
  snapshotSeq: number;
  sinceSnapshot: number;
  queue: Pending<S, C, E>[];
  running: boolean;
  lastUsed: number;
}

export interface ActorRuntime<S, C extends Command, E extends DomainEvent, Replies extends ReplyMap<C>> {
  /** Decide `command` on the key's state and append its events; the reply's type follows from the command's. */
  execute<K extends C>(key: string, command: K, meta: CommandMeta): Promise<ExecuteResult<S, E, Replies[K['type']]>>;
  /** Current state, caught up with the log. */
  read(key: string): Promise<S>;
  size(): number;
  passivateIdle(): number;
  close(): void;
  stats(): ActorStats;
}

export interface ActorStats {
  conflicts: number;
  hydrations: number;
  passivations: number;
  commits: number;
  /** Hydrations that started from a trusted snapshot, and snapshots found but not trusted. */
  snapshotHits: number;
  snapshotRejects: number;
  snapshotWrites: number;
  /** Events folded during hydrations (tails after snapshots, or whole subjects). */
  hydratedEvents: number;
}

/** Events folded since the last snapshot that make passivation write one. */
const PASSIVATION_SNAPSHOT_MIN = 8;

interface Outcome {
  // biome-ignore lint/suspicious/noExplicitAny: one mailbox holds commands of every type
  item: Pending<any, any, any>;
  events: UnsealedEnvelope[];
  reply?: unknown;
  error?: unknown;
}

/** One runtime's state: its store and decider, settings, counters and the cells of the keys in memory. */
interface Actors<S, C extends Command, E extends DomainEvent> {
  store: EventStore;
  def: ActorDefinition<S, C, E, ReplyMap<C>>;
  opts: ActorRuntimeOptions;
  idleMs: number;
  maxAttempts: number;
  maxGroup: number;
  now: () => Date;
  snapshotEvery: number;
  snapshots: {
    store: SnapshotStore;
    codec: NonNullable<ActorDefinition<S, C, E, ReplyMap<C>>['snapshot']>;
    writer: ReturnType<typeof createSnapshotWriter>;
  } | null;
  counters: ActorStats;
  cells: Map<string, ActorCell<S, C, E>>;
}

export function createActorRuntime<S, C extends Command, E extends DomainEvent, Replies extends ReplyMap<C>>(
  store: EventStore,
  def: ActorDefinition<S, C, E, Replies>,
  opts: ActorRuntimeOptions,
): ActorRuntime<S, C, E, Replies> {
  const rt = actorsOver(store, def, opts);
  const sweeper = setInterval(() => passivateIdle(rt), Math.max(1000, Math.min(rt.idleMs, 30_000)));
  sweeper.unref();
  return {
    execute(key, command, meta) {
      // biome-ignore lint/suspicious/noExplicitAny: the reply type is the command's, which the mailbox does not know
      return enqueue(rt, key, { meta, command }) as Promise<ExecuteResult<S, E, any>>;
    },
    async read(key) {
      const r = await enqueue(rt, key, {
        meta: { correlationId: 'read', causedBy: { kind: 'system', component: 'read' } },
        command: null,
      });
      return r.state;
    },
    size: () => rt.cells.size,
    passivateIdle: () => passivateIdle(rt),
    close: () => clearInterval(sweeper),
    stats: () => ({ ...rt.counters }),
  };
}

function actorsOver<S, C extends Command, E extends DomainEvent>(
  store: EventStore,
  def: ActorDefinition<S, C, E, ReplyMap<C>>,
  opts: ActorRuntimeOptions,
): Actors<S, C, E> {
  return {
    store,
    def,
    opts,
    idleMs: opts.idleMs ?? 5 * 60_000,
    maxAttempts: opts.maxAttempts ?? 30,
    maxGroup: opts.maxGroup ?? 256,
    now: opts.now ?? (() => new Date()),
    snapshotEvery: opts.snapshotEvery ?? 200,
    snapshots:
      def.snapshot && opts.snapshots
        ? {
            store: opts.snapshots,
            codec: def.snapshot,
            writer: createSnapshotWriter(opts.snapshots, {
              onError: (key, error) => opts.onSnapshotProblem?.(key, { error }),
            }),
          }
        : null,
    counters: {
      conflicts: 0,
      hydrations: 0,
      passivations: 0,
      commits: 0,
      snapshotHits: 0,
      snapshotRejects: 0,
      snapshotWrites: 0,
      hydratedEvents: 0,
    },
    cells: new Map(),
  };
}

function cellFor<S, C extends Command, E extends DomainEvent>(rt: Actors<S, C, E>, key: string): ActorCell<S, C, E> {
  let cell = rt.cells.get(key);
  if (!cell) {
    cell = {
      state: rt.def.initialState(key),
      lastSeq: 0,
      lastHash: null,
      hydrated: false,
      snapshotSeq: 0,
      sinceSnapshot: 0,
      queue: [],
      running: false,
      lastUsed: Date.now(),
    };
    rt.cells.set(key, cell);
  }
  return cell;
}

function fold<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  cell: ActorCell<S, C, E>,
  events: StoredEvent[],
): void {
  for (const e of events) {
    cell.state = rt.def.evolve(cell.state, e.event as EventEnvelope<E>);
    cell.lastSeq = e.seq;
    cell.lastHash = e.event.hash;
  }
  cell.sinceSnapshot += events.length;
}

async function catchUp<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  cell: ActorCell<S, C, E>,
): Promise<void> {
  if (!cell.hydrated) return hydrate(rt, key, cell);
  const subject = rt.def.subjectOf(key);
  const head = await rt.store.last(subject);
  if (head && head.seq > cell.lastSeq)
    fold(rt, cell, await rt.store.readSubjectRange(subject, cell.lastSeq + 1, head.seq));
  maybeSnapshot(rt, key, cell);
}

/** The newest snapshot that the log confirms, or null (and why not, through onSnapshotProblem). */
async function trustedSnapshot<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  subject: string,
  bytes: Uint8Array | null,
  head: StoredEvent | null,
) {
  const snapshots = rt.snapshots;
  if (!snapshots || !bytes) return null;
  const reject = (reason: string) => {
    rt.counters.snapshotRejects++;
    rt.opts.onSnapshotProblem?.(key, { reason });
    return null;
  };
  const parsed = parseSnapshot(bytes, { key, stateVersion: snapshots.codec.version });
  if (!parsed.ok) return reject(parsed.reason);
  const s = parsed.snapshot;
  // The head often is the snapshot's own commit (snapshot on passivation): no second read needed.
  const commit =
    head && head.seq === s.lastSeq
      ? [head]
      : head && s.lastSeq < head.seq
        ? await rt.store.commitAt(subject, s.lastSeq)
        : null;
  const problem = checkSnapshotAgainstLog(s, head, commit);
  if (problem) return reject(problem);
  try {
    return { seq: s.lastSeq, hash: s.lastHash, state: snapshots.codec.decode(key, s.state) };
  } catch (err) {
    return reject(`state does not decode: ${(err as Error).message}`);
  }
}

/** Fold the key's state from scratch: from a snapshot the log confirms plus the tail, else the whole subject. */
async function hydrate<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  cell: ActorCell<S, C, E>,
): Promise<void> {
  const { counters, snapshots } = rt;
  counters.hydrations++;
  const subject = rt.def.subjectOf(key);
  const [head, bytes] = await Promise.all([
    rt.store.last(subject),
    snapshots
      ? snapshots.store.get(key).catch((error: unknown) => {
          rt.opts.onSnapshotProblem?.(key, { error });
          return null;
        })
      : null,
  ]);
  cell.state = rt.def.initialState(key);
  cell.lastSeq = 0;
  cell.lastHash = null;
  cell.snapshotSeq = 0;
  cell.sinceSnapshot = 0;
  const rejectsBefore = counters.snapshotRejects;
  const base = await trustedSnapshot(rt, key, subject, bytes, head);
  if (base) {
    counters.snapshotHits++;
    cell.state = base.state;
    cell.lastSeq = cell.snapshotSeq = base.seq;
    cell.lastHash = base.hash;
  }
  if (head && head.seq > cell.lastSeq) {
    const tail = await rt.store.readSubjectRange(subject, cell.lastSeq + 1, head.seq);
    counters.hydratedEvents += tail.length;
    fold(rt, cell, tail);
  }
  cell.hydrated = true;
  // A snapshot we could not trust is replaced at once, so it is not met (and logged) at every hydration.
  maybeSnapshot(rt, key, cell, counters.snapshotRejects > rejectsBefore ? 0 : rt.snapshotEvery);
}

/**
 * Write a snapshot of the cell's state when `atLeast` events were folded since the last one (snapshotEvery
 * after a turn; fewer on passivation). Only called where the state is exactly the fold of the log up to
 * cell.lastSeq.
 */
function maybeSnapshot<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  cell: ActorCell<S, C, E>,
  atLeast: number = rt.snapshotEvery,
): void {
  const snapshots = rt.snapshots;
  if (!snapshots || !cell.hydrated || cell.lastSeq === 0 || cell.lastHash === null || cell.lastSeq === cell.snapshotSeq)
    return;
  if (cell.sinceSnapshot < atLeast) return;
  let bytes: Uint8Array;
  try {
    // Encoded now: the state keeps changing after this turn.
    bytes = encodeSnapshot(
      sealSnapshot({
        key,
        stateVersion: snapshots.codec.version,
        lastSeq: cell.lastSeq,
        lastHash: cell.lastHash,
        takenAt: new Date().toISOString(),
        state: snapshots.codec.encode(cell.state),
      }),
    );
  } catch (error) {
    rt.opts.onSnapshotProblem?.(key, { error });
    return;
  }
  cell.snapshotSeq = cell.lastSeq;
  cell.sinceSnapshot = 0;
  rt.counters.snapshotWrites++;
  snapshots.writer.write(key, bytes);
}

/** Our state was evolved with events that did not land: fold it again from the log (from a trusted snapshot). */
async function reload<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  cell: ActorCell<S, C, E>,
): Promise<void> {
  cell.hydrated = false;
  await hydrate(rt, key, cell);
}

/** Decide `items` in order against the cell's state, grouping their events into commits. */
function decideAll<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  cell: ActorCell<S, C, E>,
  items: Pending<S, C, E>[],
) {
  const group: { outcomes: Outcome[]; events: UnsealedEnvelope[] } = { outcomes: [], events: [] };
  const at = rt.now();
  for (const item of items) {
    let decision: Decision<E, unknown>;
    try {
      decision = item.command ? rt.def.decide(item.command, cell.state, at) : { events: [], reply: null };
    } catch (error) {
      group.outcomes.push({ item, events: [], error });
      continue;
    }
    const events = decision.events.map((e) =>
      stampEnvelope(e as unknown as DomainEvent, {
        id: rt.opts.newEventId(),
        tenantId: key,
        occurredAt: at,
        causedBy: item.meta.causedBy,
        correlationId: item.meta.correlationId,
      }),
    );
    for (const e of events) cell.state = rt.def.evolve(cell.state, e as unknown as EventEnvelope<E>);
    group.outcomes.push({ item, events, reply: decision.reply });
    group.events.push(...events);
  }
  return group;
}

/** Append a group's events as one commit and advance the cell past it. */
async function commit<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  cell: ActorCell<S, C, E>,
  events: UnsealedEnvelope[],
): Promise<StoredEvent[]> {
  const appended = await rt.store.append(rt.def.subjectOf(key), events as UnsealedEnvelope<E>[], {
    expectedLastSeq: cell.lastSeq,
    prevHash: cell.lastHash,
  });
  rt.counters.commits++;
  const tail = appended.at(-1)!;
  cell.lastSeq = tail.seq;
  cell.lastHash = tail.event.hash;
  cell.sinceSnapshot += events.length;
  rt.opts.onAppended?.(appended);
  maybeSnapshot(rt, key, cell);
  return appended;
}

/** Answer each command of a committed group with its reply and its share of the appended events, or its error. */
function settle<S, C extends Command, E extends DomainEvent>(
  cell: ActorCell<S, C, E>,
  outcomes: Outcome[],
  appended: StoredEvent[],
): void {
  let cursor = 0;
  for (const o of outcomes) {
    if (o.error !== undefined) o.item.reject(o.error);
    else {
      const mine = appended.slice(cursor, cursor + o.events.length) as StoredEvent<E>[];
      cursor += o.events.length;
      o.item.resolve({ reply: o.reply, appended: mine, state: cell.state });
    }
  }
}

/** One turn: decide the batch, commit its events under optimistic concurrency, retry on a conflict, answer. */
async function runBatch<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  cell: ActorCell<S, C, E>,
  batch: Pending<S, C, E>[],
): Promise<void> {
  let caughtUp = false;
  for (let attempt = 1; ; attempt++) {
    if (!caughtUp && (!cell.hydrated || batch.some((i) => i.command === null))) {
      await catchUp(rt, key, cell);
      caughtUp = true;
    }
    const group = decideAll(rt, key, cell, batch);
    if (!caughtUp && group.outcomes.some((o) => o.error !== undefined || o.events.length === 0)) {
      // A decision that appends nothing (a no-op, a refusal) meets no OCC check, so it is trusted only against
      // the newest log: another process may have appended since this cell last read it (a worker's outcome
      // for a capture submitted through another API process, a delete of a webhook made elsewhere).
      const tail = await rt.store.last(rt.def.subjectOf(key));
      caughtUp = true;
      if ((tail?.seq ?? 0) !== cell.lastSeq) {
        if (group.events.length > 0) await reload(rt, key, cell);
        else await catchUp(rt, key, cell);
        continue;
      }
    }
    let appended: StoredEvent[] = [];
    if (group.events.length > 0) {
      try {
        appended = await commit(rt, key, cell, group.events);
      } catch (failure) {
        // Our state holds events that did not land; rebuild it from the log before deciding again.
        await reload(rt, key, cell).catch(() => (cell.hydrated = false));
        if (!(failure instanceof ConcurrencyConflictError) || attempt >= rt.maxAttempts) {
          for (const item of batch) item.reject(failure);
          return;
        }
        rt.counters.conflicts++;
        caughtUp = cell.hydrated;
        await new Promise((r) => setTimeout(r, Math.min(50, 2 ** attempt) * Math.random()));
        continue;
      }
    }
    settle(cell, group.outcomes, appended);
    return;
  }
}

async function drain<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  cell: ActorCell<S, C, E>,
): Promise<void> {
  cell.running = true;
  try {
    while (cell.queue.length > 0) {
      const batch = cell.queue.splice(0, rt.maxGroup);
      try {
        await runBatch(rt, key, cell, batch);
      } catch (err) {
        // Reading the log failed: every command of this turn fails; the next turn reloads.
        cell.hydrated = false;
        for (const item of batch) item.reject(err);
      }
    }
  } finally {
    cell.running = false;
    cell.lastUsed = Date.now();
  }
}

function enqueue<S, C extends Command, E extends DomainEvent>(
  rt: Actors<S, C, E>,
  key: string,
  item: Omit<Pending<S, C, E>, 'resolve' | 'reject'>,
): Promise<ExecuteResult<S, E, unknown>> {
  const cell = cellFor(rt, key);
  cell.lastUsed = Date.now();
  return new Promise((resolve, reject) => {
    cell.queue.push({ ...item, resolve, reject });
    if (!cell.running) void drain(rt, key, cell);
  });
}

function passivateIdle<S, C extends Command, E extends DomainEvent>(rt: Actors<S, C, E>): number {
  const cutoff = Date.now() - rt.idleMs;
  let dropped = 0;
  for (const [key, cell] of rt.cells) {
    if (!cell.running && cell.queue.length === 0 && cell.lastUsed < cutoff) {
      // The next hydration then reads one snapshot instead of folding what this actor folded (a tail
      // shorter than this costs about as little as the snapshot's write).
      maybeSnapshot(rt, key, cell, PASSIVATION_SNAPSHOT_MIN);
      rt.cells.delete(key);
      dropped++;
    }
  }
  rt.counters.passivations += dropped;
  return dropped;
}
