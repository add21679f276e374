import type { TenantEvent } from '../../domain/events.js';
import { evolveTenant, initialTenantState, type TenantState } from '../../domain/tenant/index.js';
import { checkEnvelope, type EventEnvelope } from '../../ledger/envelope.js';
import type { StoredEvent } from '../../ledger/event-store.js';
import {
  compareTenantReadModels,
  type EventRef,
  foldTenantReadModels,
  refOf,
  type TableComparison,
  type TenantReadModelFolds,
  type TenantReadModelRows,
} from '../../../projections/read-models/index.js';

/**
 * The pure half of `audit --tenant T`: walk the tenant's events checking the hash chain, re-fold the actor's
 * state with evolveTenant and the read models with their own pure folds (projections/read-models), and compare
 * those expected rows with the rows the same read models read from Postgres. Every difference names the event
 * that last shaped the value, so the first divergence points at a place in the log.
 */

export type { EventRef } from '../../../projections/read-models/index.js';
export { refOf } from '../../../projections/read-models/index.js';

/** What a check found. */
export type DivergenceKind =
  /** An event's hash does not match its content, or its prevHash the event before it. */
  | 'hash-chain'
  /** An event of another tenant on this tenant's subject. */
  | 'foreign-event'
  /** A column of a projection row differs from the fold of the log. */
  | 'projection-mismatch'
  /** The log creates a row the projection does not have. */
  | 'projection-missing-row'
  /** The projection has a row no event of the tenant creates. */
  | 'projection-extra-row'
  /** The projection and the actor's state (evolveTenant) disagree. */
  | 'actor-state'
  /** The actor's snapshot is damaged, misplaced, or differs from the fold of the log. */
  | 'snapshot';

export interface DivergenceDetail {
  /** 'ledger' for the hash chain, 'snapshot' for the actor snapshot, else the projection table. */
  table: string;
  key: string;
  field: string;
  projection: unknown;
  log: unknown;
  /** The check's own words, where it has more to say than the values (hash and snapshot checks). */
  reason?: string;
}

export interface Divergence {
  kind: DivergenceKind;
  /** The event that last shaped the value (null: no event explains a row that exists). */
  ref: EventRef | null;
  detail: DivergenceDetail;
}

/** What the log says, folded up to the projection's checkpoint. */
export interface Expected {
  state: TenantState;
  events: number;
  /** Each read model's pure fold of the same events. */
  folds: TenantReadModelFolds;
}

/** The hash chain of one tenant's events: a divergence per broken link (a changed event breaks exactly one). */
export function checkChain(tenantId: string, events: StoredEvent[]): Divergence[] {
  const out: Divergence[] = [];
  let prev: string | null = null;
  for (const e of events) {
    const ref = refOf(e);
    if (e.event.tenantId !== tenantId) {
      out.push({
        kind: 'foreign-event',
        ref,
        detail: {
          table: 'ledger',
          key: e.event.id,
          field: 'tenantId',
          projection: null,
          log: e.event.tenantId,
          reason: `event on ${e.subject} belongs to tenant '${e.event.tenantId}', not '${tenantId}'`,
        },
      });
    }
    const problem = checkEnvelope(e.event, prev);
    if (problem) {
      out.push({
        kind: 'hash-chain',
        ref,
        detail: {
          table: 'ledger',
          key: e.event.id,
          field: problem.kind === 'hash' ? 'hash' : 'prevHash',
          projection: null,
          log: e.event.hash,
          reason: problem.detail,
        },
      });
    }
    // Continue from the stored hash: one altered event shows as one divergence, not a cascade.
    prev = e.event.hash;
  }
  return out;
}

/** Fold the events (already cut at the projection's checkpoint): the actor's state and every read model's expected rows. */
export function foldExpected(tenantId: string, events: StoredEvent[]): Expected {
  let state = initialTenantState(tenantId);
  for (const stored of events) state = evolveTenant(state, stored.event as EventEnvelope<TenantEvent>);
  return { state, events: events.length, folds: foldTenantReadModels(events) };
}

// ---- projection rows (as the read models read them from Postgres) ---------------------------------------

/** Each compared read model's rows, by its name (READ_MODELS, projections/read-models/index.ts). */
export type ProjectionRows = TenantReadModelRows;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** One table: every expected row present with the expected values, and no row the log does not explain. */
export function compareTable(t: TableComparison): Divergence[] {
  const out: Divergence[] = [];
  const mismatch = (ref: EventRef | null, key: string, field: string, projection: unknown, log: unknown) => {
    if (!same(projection, log))
      out.push({ kind: 'projection-mismatch', ref, detail: { table: t.table, key, field, projection, log } });
  };
  for (const [key, e] of t.expected) {
    const row = t.actual.get(key) ?? t.absent;
    if (!row) {
      out.push({
        kind: 'projection-missing-row',
        ref: e.ref,
        detail: { table: t.table, key, field: '(row)', projection: null, log: 'present' },
      });
      continue;
    }
    for (const [field, value] of Object.entries(e.row))
      mismatch(e.fieldRefs?.[field] ?? e.ref, key, field, row[field], value);
  }
  for (const [key, row] of t.actual) {
    if (t.expected.has(key)) continue;
    if (t.absent) for (const [field, value] of Object.entries(t.absent)) mismatch(null, key, field, row[field], value);
    else
      out.push({
        kind: 'projection-extra-row',
        ref: null,
        detail: { table: t.table, key, field: '(row)', projection: 'present', log: null },
      });
  }
  return out;
}

/** Every difference between what the log implies and what the projection holds: each read model's tables, then its actor checks. */
export function compareProjection(x: Expected, rows: ProjectionRows): Divergence[] {
  const out: Divergence[] = [];
  for (const t of compareTenantReadModels(x.folds, rows, x.state)) {
    out.push(...compareTable(t));
    for (const { ref, key, field, projection, actor } of t.actorChecks ?? []) {
      if (!same(projection, actor))
        out.push({ kind: 'actor-state', ref, detail: { table: t.table, key, field, projection, log: actor } });
    }
  }
  return out;
}

/** Earliest event first; differences no event explains last. */
export function sortDivergences(list: Divergence[]): Divergence[] {
  return [...list].sort((a, b) => {
    if (!a.ref || !b.ref) return a.ref ? -1 : b.ref ? 1 : 0;
    return a.ref.seq - b.ref.seq || a.ref.index - b.ref.index;
  });
}
