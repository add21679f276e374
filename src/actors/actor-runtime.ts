import type { DomainEvent } from '../domain/events.js';
import type { EventEnvelope, UnsealedEnvelope } from '../ledger/envelope.js';
import { ConcurrencyConflictError, type EventStore, type StoredEvent } from '../ledger/event-store.js';

/**
 * Per-key actors (DESIGN decision 2): one mailbox per key in this process, turns run one at a time, state is
 * folded from the key's events, and every append is guarded by JetStream optimistic concurrency. Another
 * process appending to the same subject shows up as a conflict: we reload and decide again.
 *
 * Group commit: a turn takes every command waiting in the mailbox, decides them in order against the
 * evolving state, and appends their events as one commit (one JetStream message). Replies are released only
 * after the commit that carries their events (or an earlier one) is acknowledged. A command whose events need
 * a dedupe id (a capture's outcome) is committed on its own so its msgID covers only its events.
 */

export interface Decision<E extends DomainEvent, R> {
  events: E[];
  reply: R;
  /** JetStream msgID for the commit of these events, for commands that must append at most once. */
  dedupeIds?: Array<string | undefined>;
}

export interface ActorDefinition<S, E extends DomainEvent> {
  subjectOf(key: string): string;
  initialState(key: string): S;
  /** May mutate and return `state`: actors own their state exclusively. */
  evolve(state: S, event: EventEnvelope<E>): S;
}

export interface EnvelopeContext {
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
}

export interface ExecuteResult<S, E extends DomainEvent, R> {
  reply: R;
  /** The events this command appended (empty when it changed nothing). */
  appended: StoredEvent<E>[];
  state: S;
}

type Decide<S, E extends DomainEvent> = (state: S, now: Date) => Decision<E, unknown>;

interface Pending<S, E extends DomainEvent> {
  ctx: EnvelopeContext;
  decide: Decide<S, E>;
  refresh: boolean;
  resolve(r: ExecuteResult<S, E, unknown>): void;
  reject(err: unknown): void;
}

interface ActorCell<S, E extends DomainEvent> {
  state: S;
  lastSeq: number;
  lastHash: string | null;
  hydrated: boolean;
  queue: Pending<S, E>[];
  running: boolean;
  lastUsed: number;
}

export interface ActorRuntime<S, E extends DomainEvent> {
  execute<R>(key: string, ctx: EnvelopeContext, decide: (state: S, now: Date) => Decision<E, R>): Promise<ExecuteResult<S, E, R>>;
  /** Current state, caught up with the log. */
  read(key: string): Promise<S>;
  size(): number;
  passivateIdle(): number;
  close(): void;
  stats(): { conflicts: number; hydrations: number; passivations: number; commits: number };
}

interface Outcome {
  item: Pending<any, any>;
  events: UnsealedEnvelope[];
  reply?: unknown;
  error?: unknown;
}

export function createActorRuntime<S, E extends DomainEvent>(
  store: EventStore,
  def: ActorDefinition<S, E>,
  opts: ActorRuntimeOptions,
): ActorRuntime<S, E> {
  const cells = new Map<string, ActorCell<S, E>>();
  const idleMs = opts.idleMs ?? 5 * 60_000;
  const maxAttempts = opts.maxAttempts ?? 30;
  const maxGroup = opts.maxGroup ?? 256;
  const now = opts.now ?? (() => new Date());
  const counters = { conflicts: 0, hydrations: 0, passivations: 0, commits: 0 };

  const sweeper = setInterval(() => passivateIdle(), Math.max(1000, Math.min(idleMs, 30_000)));
  sweeper.unref();

  function cellFor(key: string): ActorCell<S, E> {
    let cell = cells.get(key);
    if (!cell) {
      cell = { state: def.initialState(key), lastSeq: 0, lastHash: null, hydrated: false, queue: [], running: false, lastUsed: Date.now() };
      cells.set(key, cell);
    }
    return cell;
  }

  async function catchUp(key: string, cell: ActorCell<S, E>): Promise<void> {
    if (!cell.hydrated) counters.hydrations++;
    const missed = await store.readSubject(def.subjectOf(key), cell.lastSeq + 1);
    for (const e of missed) {
      cell.state = def.evolve(cell.state, e.event as EventEnvelope<E>);
      cell.lastSeq = e.seq;
      cell.lastHash = e.event.hash;
    }
    cell.hydrated = true;
  }

  /** Our state was evolved with events that did not land: fold it again from the log. */
  async function reload(key: string, cell: ActorCell<S, E>): Promise<void> {
    cell.state = def.initialState(key);
    cell.lastSeq = 0;
    cell.lastHash = null;
    cell.hydrated = false;
    await catchUp(key, cell);
  }

  /** Decide `items` in order against the cell's state, grouping their events into commits. */
  function decideAll(key: string, cell: ActorCell<S, E>, items: Pending<S, E>[]) {
    const groups: Array<{ outcomes: Outcome[]; events: UnsealedEnvelope[]; dedupeId?: string }> = [{ outcomes: [], events: [] }];
    const at = now();
    for (const item of items) {
      let decision: Decision<E, unknown>;
      try {
        decision = item.decide(cell.state, at);
      } catch (error) {
        groups.at(-1)!.outcomes.push({ item, events: [], error });
        continue;
      }
      const events = decision.events.map((e) => ({
        ...e,
        id: opts.newEventId(),
        schemaVersion: 1,
        tenantId: key,
        occurredAt: at.toISOString(),
        causedBy: item.ctx.causedBy,
        correlationId: item.ctx.correlationId,
      })) as unknown as UnsealedEnvelope[];
      for (const e of events) cell.state = def.evolve(cell.state, e as unknown as EventEnvelope<E>);
      const dedupeId = decision.dedupeIds?.find((d) => d !== undefined);
      const outcome = { item, events, reply: decision.reply };
      if (dedupeId) {
        groups.push({ outcomes: [outcome], events, dedupeId }, { outcomes: [], events: [] });
      } else {
        const g = groups.at(-1)!;
        g.outcomes.push(outcome);
        g.events.push(...events);
      }
    }
    return groups.filter((g) => g.outcomes.length > 0);
  }

  async function runBatch(key: string, cell: ActorCell<S, E>, batch: Pending<S, E>[]): Promise<void> {
    let remaining = batch;
    for (let attempt = 1; remaining.length > 0; attempt++) {
      if (!cell.hydrated || remaining.some((i) => i.refresh)) await catchUp(key, cell);
      const groups = decideAll(key, cell, remaining);
      let failedAt = -1;
      let failure: unknown = null;
      for (const [gi, g] of groups.entries()) {
        let appended: StoredEvent[] = [];
        if (g.events.length > 0) {
          try {
            appended = await store.append(def.subjectOf(key), g.events as UnsealedEnvelope<E>[], {
              expectedLastSeq: cell.lastSeq,
              prevHash: cell.lastHash,
              dedupeId: g.dedupeId,
            });
          } catch (err) {
            failedAt = gi;
            failure = err;
            break;
          }
          counters.commits++;
          const tail = appended.at(-1)!;
          cell.lastSeq = tail.seq;
          cell.lastHash = tail.event.hash;
          if (tail.event.id !== g.events.at(-1)!.id) {
            // A duplicate: an earlier attempt's commit is the truth, not the events we just decided.
            await reload(key, cell);
          }
          opts.onAppended?.(appended);
        }
        let cursor = 0;
        for (const o of g.outcomes) {
          if (o.error !== undefined) o.item.reject(o.error);
          else {
            const mine = appended.slice(cursor, cursor + o.events.length) as StoredEvent<E>[];
            cursor += o.events.length;
            o.item.resolve({ reply: o.reply, appended: mine, state: cell.state });
          }
        }
      }
      if (failedAt < 0) return;
      remaining = groups.slice(failedAt).flatMap((g) => g.outcomes.map((o) => o.item));
      // Our state holds events that did not land; rebuild it from the log before deciding again.
      await reload(key, cell).catch(() => (cell.hydrated = false));
      if (!(failure instanceof ConcurrencyConflictError) || attempt >= maxAttempts) {
        for (const item of remaining) item.reject(failure);
        return;
      }
      counters.conflicts++;
      await new Promise((r) => setTimeout(r, Math.min(50, 2 ** attempt) * Math.random()));
    }
  }

  async function drain(key: string, cell: ActorCell<S, E>): Promise<void> {
    cell.running = true;
    try {
      while (cell.queue.length > 0) {
        const batch = cell.queue.splice(0, maxGroup);
        try {
          await runBatch(key, cell, batch);
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

  function enqueue(key: string, item: Omit<Pending<S, E>, 'resolve' | 'reject'>): Promise<ExecuteResult<S, E, unknown>> {
    const cell = cellFor(key);
    cell.lastUsed = Date.now();
    return new Promise((resolve, reject) => {
      cell.queue.push({ ...item, resolve, reject });
      if (!cell.running) void drain(key, cell);
    });
  }

  function passivateIdle(): number {
    const cutoff = Date.now() - idleMs;
    let dropped = 0;
    for (const [key, cell] of cells) {
      if (!cell.running && cell.queue.length === 0 && cell.lastUsed < cutoff) {
        cells.delete(key);
        dropped++;
      }
    }
    counters.passivations += dropped;
    return dropped;
  }

  return {
    execute(key, ctx, decide) {
      return enqueue(key, { ctx, decide, refresh: false }) as Promise<ExecuteResult<S, E, any>>;
    },
    async read(key) {
      const r = await enqueue(key, { ctx: { correlationId: 'read', causedBy: { kind: 'system', component: 'read' } }, decide: () => ({ events: [], reply: null }), refresh: true });
      return r.state;
    },
    size: () => cells.size,
    passivateIdle,
    close: () => clearInterval(sweeper),
    stats: () => ({ ...counters }),
  };
}
