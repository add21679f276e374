import type pg from 'pg';
import type { TenantEvent } from '../../src/domain/events.js';
import type { EventEnvelope } from '../../src/ledger/envelope.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';

/**
 * The shape every read model has (docs/architecture.md, "Adding a read model"): one module per projection
 * table (or tightly bound group of tables) holding
 *   - `handles`: the event types it reads;
 *   - a batch writer: what the projector runs inside its transaction, collecting a batch's events and writing
 *     them with a few set-based statements (rare events may be written one statement each, in order);
 *   - a pure fold: the same events folded in memory to the rows the tables must hold (the audit's expected
 *     rows), each with the event that last shaped it;
 *   - its queries: every read of its tables by the API, workers, CLI and audit, as named functions.
 * Everything is taken from the events, never from the clock, so a rebuild equals the live projection.
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

export const refOf = (e: StoredEvent): EventRef => ({ seq: e.seq, index: e.index, eventId: e.event.id, type: e.event.type, occurredAt: e.event.occurredAt });

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
export const instant = (v: Date | string | null | undefined): string | null => (v === null || v === undefined ? null : new Date(v).toISOString());
