import type pg from 'pg';
import type { TenantEvent } from '../../src/domain/events.js';
import type { TenantState } from '../../src/domain/tenant/index.js';
import type { EventEnvelope } from '../../src/ledger/envelope.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';

/**
 * The shape every read model has (docs/architecture.md, "Adding a read model"): one module per projection
 * table (or tightly bound group of tables) exporting ONE value, a `ReadModel`, registered once in the ordered
 * list `READ_MODELS` (index.ts) that the projector's batch applier and the audit both iterate. The value holds
 *   - `handles`: the event types it reads, and `tables`: the tables it writes;
 *   - `changes`: its ONE definition of what each event does to the rows, as row changes (row-changes.ts:
 *     insert unless present; update these columns while a guard holds; add to counters) — e.g. captures'
 *     `captureChanges`, where "the first outcome of a pending capture wins" is said once;
 *   - `writer`: what the projector runs inside its transaction, carrying out those changes with a few
 *     set-based statements per batch derived from the table specs (`insertRows`, `updateRows`, `addRows`;
 *     rare events one statement each, in order: `writeChange`);
 *   - `fold`: the same changes applied to Maps (`foldChange`), giving the rows the tables must hold (the
 *     audit's expected rows), each with the event that last changed it;
 *   - `audit`: how the audit reads its rows back and what it compares (`TableComparison`s, with the values
 *     the tenant actor's state must agree on).
 * Its queries — every read of its tables by the API, workers, CLI and audit — stay named functions of the
 * module. A column is added in the table's spec and in the change that sets it (and in the migration); the
 * writer and the fold follow. Everything is taken from the events, never from the clock, so a rebuild equals
 * the live projection.
 *
 * Three modules keep a hand-written writer, each for a reason:
 *   - tenants: its row is the tenant's head (first and last event of the batch, last hash), written by `begin`
 *     before any event, and its fold names a different event per column group (tier, overrides, head); the
 *     two config events are one UPDATE each and mirror the fold line for line;
 *   - webhook-deliveries and evidence-keys have no fold: the audit does not compare them (they record what
 *     the dispatcher did, or system identities), so the writer is their only statement of the rule.
 */

/** Something that runs SQL: a pool, a client inside the projector's transaction. */
export type Sql = Pick<pg.PoolClient, 'query'>;

export type TenantEnvelope = EventEnvelope<TenantEvent>;
export type TenantEventType = TenantEvent['type'];

/** Where in the log an event sits, to name the event that explains a row. */
export interface EventRef {
  seq: number;
  /** Place of the event in its commit (a JetStream message holds one or more events). */
  index: number;
  eventId: string;
  type: string;
  occurredAt: string;
}

export const refOf = (e: StoredEvent): EventRef => ({
  seq: e.seq,
  index: e.index,
  eventId: e.event.id,
  type: e.event.type,
  occurredAt: e.event.occurredAt,
});

/** A table row in the form the audit compares: column (or derived check) → JSON-comparable value. */
export type ComparableRow = Record<string, unknown>;

/** An expected row and the event that last shaped it (per column where columns come from different events). */
export interface ExpectedRow {
  row: ComparableRow;
  /** Null only where a row is expected without any event (a zero count). */
  ref: EventRef | null;
  fieldRefs?: Record<string, EventRef>;
}

/**
 * One table as the pure fold expects it and as the projection holds it, keyed by primary key. `absent`: the
 * value a missing row stands for (aggregate tables with no row for zero); without it a missing or an extra
 * row is a divergence of its own.
 */
export interface TableComparison {
  table: string;
  expected: Map<string, ExpectedRow>;
  actual: Map<string, ComparableRow>;
  absent?: ComparableRow;
  /** Values of this table the tenant actor's state (evolveTenant) must agree with, checked after the rows. */
  actorChecks?: ActorCheck[];
}

/** One value as the projection holds it and as the tenant actor's state has it. */
export interface ActorCheck {
  ref: EventRef | null;
  key: string;
  field: string;
  projection: unknown;
  actor: unknown;
}

/** A capture outcome that found its capture pending (the first outcome wins): what usage and schedules count. */
export interface SettledCapture {
  captureId: string;
  tenantId: string;
  period: string;
  scheduleId: string | null;
  status: 'complete' | 'failed';
  occurredAt: string;
  /** completedAt or failedAt. */
  at: string;
  storedBytes: number;
}

/** The UTC day of an ISO instant. */
export const dayOf = (iso: string): string => iso.slice(0, 10);

/** An instant as ISO text (null stays null): timestamps compare equal whether read as Date or written as text. */
export const instant = (v: Date | string | null | undefined): string | null =>
  v === null || v === undefined ? null : new Date(v).toISOString();

/** A row as pg reads it: the row's values as the events give them, with the named timestamp columns as Date. */
export type ReadRow<V, Timestamps extends keyof V> = Omit<V, Timestamps> & {
  [K in Timestamps]: V[K] extends string ? Date : Date | null;
};

// ---- the one value a read model exports -----------------------------------------------------------------

/**
 * What a read model hands on to those after it in READ_MODELS: the outcomes that settled a pending capture,
 * which only captures knows and usage and schedules count. A batch's (writer) or one event's (fold).
 */
export interface BatchHandoff {
  settled: SettledCapture[];
}
export interface EventHandoff {
  settled: SettledCapture | null;
}

/** The projector's side: run inside its transaction, one writer per read model per batch. */
export interface ReadModelWriter {
  /** Before the batch's first event (tenants: every tenant of the batch gets its head row). */
  begin?(events: StoredEvent[]): Promise<void>;
  /** An event of a type it handles: a promise when it writes at once; nothing when it only collected it for `flush`. */
  apply(stored: StoredEvent): Promise<void> | undefined | void;
  /** After the batch's last event, in list order. */
  flush?(handoff: BatchHandoff): Promise<void>;
}

/** The audit's side: the pure fold, fed every event of one tenant in order. */
export interface ReadModelFold {
  apply(stored: StoredEvent, ref: EventRef, handoff: EventHandoff): void;
}

export interface ReadModelAudit<F, R> {
  /** The tenant's rows as the projection holds them (inside the audit's one snapshot). */
  read(q: Sql, tenantId: string): Promise<R>;
  /** Expected rows from the fold against those rows, in the order the divergences are listed. */
  compare(fold: F, rows: R, actor: TenantState): TableComparison[];
}

export interface ReadModel<N extends string = string, F extends ReadModelFold = ReadModelFold, R = unknown> {
  name: N;
  /** The tables it writes. */
  tables: readonly string[];
  handles: readonly string[];
  /** It reads the system subject (ledger.system), not a tenant's. */
  system?: boolean;
  /** Its one definition of what an event (and, for usage and schedules, a settled capture) does to its rows. */
  changes?: Readonly<Record<string, (input: never) => unknown>>;
  writer(q: Sql): ReadModelWriter;
  /** Absent for a read model the audit does not compare. */
  fold?(): F;
  audit?: ReadModelAudit<F, R>;
}

/** A read model's one value, its name kept as a literal (its key in the audit's folds and rows). */
export const readModel = <const N extends string>(m: ReadModel<N>): ReadModel<N> => m;

/** A read model the audit compares: it has a fold and says what is compared. */
export interface AuditedReadModel<N extends string, F extends ReadModelFold, R> extends ReadModel<N, F, R> {
  fold(): F;
  audit: ReadModelAudit<F, R>;
}
export const auditedReadModel = <const N extends string, F extends ReadModelFold, R>(
  m: AuditedReadModel<N, F, R>,
): AuditedReadModel<N, F, R> => m;
