import type { DomainEvent } from '../domain/events.js';
import type { EventEnvelope, UnsealedEnvelope } from '../ledger/envelope.js';
import { ConcurrencyConflictError, type EventStore, type StoredEvent } from '../ledger/event-store.js';

/**
 * Per-key actors (DESIGN decision 2): one mailbox per key in this process, turns run one at a time, state is
 * folded from the key's events, and every append is guarded by JetStream optimistic concurrency. Another
 * process appending to the same subject shows up as a conflict: we read what we missed and decide again.
 */

export interface Decision<E extends DomainEvent, R> {
  events: E[];
  reply: R;
  /** JetStream msgID per event, for commands that must append at most once (e.g. a capture's outcome). */
  dedupeIds?: Array<string | undefined>;
}

export interface ActorDefinition<S, E extends DomainEvent> {
  subjectOf(key: string): string;
  initialState(key: string): S;
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
  now?: () => Date;
  newEventId: () => string;
  /** Called after a successful append, e.g. to wake a projection waiter. */
  onAppended?: (stored: StoredEvent[]) => void;
}

interface ActorCell<S> {
  state: S;
  lastSeq: number;
  lastHash: string | null;
  hydrated: boolean;
  mailbox: Promise<unknown>;
  busy: number;
  lastUsed: number;
}

export interface ExecuteResult<S, E extends DomainEvent, R> {
  reply: R;
  appended: StoredEvent<E>[];
  state: S;
}

export interface ActorRuntime<S, E extends DomainEvent> {
  execute<R>(key: string, ctx: EnvelopeContext, decide: (state: S, now: Date) => Decision<E, R>): Promise<ExecuteResult<S, E, R>>;
  /** Current state, caught up with the log. */
  read(key: string): Promise<S>;
  size(): number;
  passivateIdle(): number;
  close(): void;
  stats(): { conflicts: number; hydrations: number; passivations: number };
}

export function createActorRuntime<S, E extends DomainEvent>(
  store: EventStore,
  def: ActorDefinition<S, E>,
  opts: ActorRuntimeOptions,
): ActorRuntime<S, E> {
  const cells = new Map<string, ActorCell<S>>();
  const idleMs = opts.idleMs ?? 5 * 60_000;
  const maxAttempts = opts.maxAttempts ?? 20;
  const now = opts.now ?? (() => new Date());
  const counters = { conflicts: 0, hydrations: 0, passivations: 0 };

  const sweeper = setInterval(() => passivateIdle(), Math.max(1000, Math.min(idleMs, 30_000)));
  sweeper.unref();

  function cellFor(key: string): ActorCell<S> {
    let cell = cells.get(key);
    if (!cell) {
      cell = { state: def.initialState(key), lastSeq: 0, lastHash: null, hydrated: false, mailbox: Promise.resolve(), busy: 0, lastUsed: Date.now() };
      cells.set(key, cell);
    }
    return cell;
  }

  async function catchUp(key: string, cell: ActorCell<S>): Promise<void> {
    if (!cell.hydrated) counters.hydrations++;
    const missed = await store.readSubject(def.subjectOf(key), cell.lastSeq + 1);
    for (const e of missed) {
      cell.state = def.evolve(cell.state, e.event as EventEnvelope<E>);
      cell.lastSeq = e.seq;
      cell.lastHash = e.event.hash;
    }
    cell.hydrated = true;
  }

  /** Run `turn` as this key's next mailbox turn. */
  function enqueue<T>(key: string, turn: (cell: ActorCell<S>) => Promise<T>): Promise<T> {
    const cell = cellFor(key);
    cell.busy++;
    const run = cell.mailbox.then(() => turn(cell));
    cell.mailbox = run.catch(() => undefined);
    return run.finally(() => {
      cell.busy--;
      cell.lastUsed = Date.now();
    });
  }

  function passivateIdle(): number {
    const cutoff = Date.now() - idleMs;
    let dropped = 0;
    for (const [key, cell] of cells) {
      if (cell.busy === 0 && cell.lastUsed < cutoff) {
        cells.delete(key);
        dropped++;
      }
    }
    counters.passivations += dropped;
    return dropped;
  }

  return {
    execute(key, ctx, decide) {
      return enqueue(key, async (cell) => {
        if (!cell.hydrated) await catchUp(key, cell);
        for (let attempt = 1; ; attempt++) {
          const at = now();
          const decision = decide(cell.state, at);
          if (decision.events.length === 0) return { reply: decision.reply, appended: [], state: cell.state };
          const unsealed: UnsealedEnvelope<E>[] = decision.events.map((e) => ({
            ...e,
            id: opts.newEventId(),
            schemaVersion: 1,
            tenantId: key,
            occurredAt: at.toISOString(),
            causedBy: ctx.causedBy,
            correlationId: ctx.correlationId,
          })) as UnsealedEnvelope<E>[];
          try {
            const appended = await store.append(def.subjectOf(key), unsealed, {
              expectedLastSeq: cell.lastSeq,
              prevHash: cell.lastHash,
              dedupeIds: decision.dedupeIds,
            });
            for (const e of appended) {
              cell.state = def.evolve(cell.state, e.event);
              cell.lastSeq = e.seq;
              cell.lastHash = e.event.hash;
            }
            opts.onAppended?.(appended);
            return { reply: decision.reply, appended, state: cell.state };
          } catch (err) {
            if (!(err instanceof ConcurrencyConflictError) || attempt >= maxAttempts) throw err;
            counters.conflicts++;
            // Someone else appended first: read what we missed, then decide again with a small jittered backoff.
            await new Promise((r) => setTimeout(r, Math.min(50, 2 ** attempt) * Math.random()));
            await catchUp(key, cell);
          }
        }
      });
    },

    read(key) {
      return enqueue(key, async (cell) => {
        await catchUp(key, cell);
        return cell.state;
      });
    },

    size: () => cells.size,
    passivateIdle,
    close: () => clearInterval(sweeper),
    stats: () => ({ ...counters }),
  };
}
