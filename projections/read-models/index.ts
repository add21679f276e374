import type { TenantState } from '../../src/domain/tenant/index.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import { SYSTEM_TENANT } from '../../src/ledger/streams.js';
import { capturesReadModel } from './captures.js';
import { comparisonsReadModel } from './comparisons.js';
import { evidenceKeysReadModel } from './evidence-keys.js';
import { keysReadModel } from './keys.js';
import { profilesReadModel } from './profiles.js';
import {
  type AuditedReadModel,
  type BatchHandoff,
  type EventHandoff,
  type ReadModelAudit,
  type ReadModelFold,
  type ReadModelWriter,
  refOf,
  type Sql,
  type TableComparison,
} from './read-model.js';
import { retentionReadModel } from './retention.js';
import { schedulesReadModel } from './schedules.js';
import { tenantsReadModel } from './tenants.js';
import { usageReadModel } from './usage.js';
import { webhookDeliveriesReadModel } from './webhook-deliveries.js';
import { webhooksReadModel } from './webhooks.js';

/**
 * The projection as a whole: every read model, registered once here, in the order both of its users go
 * through them — the projector runs each model's writer inside one transaction per batch, the audit runs each
 * model's pure fold and compares it with the rows the model reads back; two ways of carrying out each model's
 * one definition of what an event does to its rows (read-model.ts). The order matters once: captures settles
 * outcomes first, then usage and schedules count what it settled (BatchHandoff, EventHandoff).
 */
export const READ_MODELS = [
  tenantsReadModel,
  keysReadModel,
  capturesReadModel,
  usageReadModel,
  webhooksReadModel,
  webhookDeliveriesReadModel,
  schedulesReadModel,
  evidenceKeysReadModel,
  retentionReadModel,
  comparisonsReadModel,
  profilesReadModel,
] as const;

export type { EventRef, SettledCapture, Sql, TableComparison } from './read-model.js';
export { refOf } from './read-model.js';

/**
 * A batch's writes: every tenant of the batch gets its row first (`begin`); each event goes, in order, to the
 * read models that handle its type (rare events are written at once, one statement each); the hot path —
 * capture rows, outcomes, counts, usage — is collected and written with a few set-based statements by `flush`.
 * The deferred writes commute with the per-event ones (see captures.ts and schedules.ts), so the result
 * equals applying the events one by one.
 */
export interface BatchApplier {
  begin(events: StoredEvent[]): Promise<void>;
  apply(stored: StoredEvent): Promise<void>;
  flush(): Promise<void>;
}

export function createBatchApplier(q: Sql): BatchApplier {
  const tenantByType = new Map<string, ReadModelWriter[]>();
  const systemByType = new Map<string, ReadModelWriter[]>();
  const writers: ReadModelWriter[] = [];
  for (const model of READ_MODELS) {
    const writer = model.writer(q);
    writers.push(writer);
    // System events (ledger.system) go to the models that read them, a tenant's to the others.
    const byType = model.system ? systemByType : tenantByType;
    for (const type of model.handles) byType.set(type, [...(byType.get(type) ?? []), writer]);
  }
  const beginning = writers.filter((w) => w.begin);
  const flushing = writers.filter((w) => w.flush);

  return {
    async begin(events) {
      for (const w of beginning) await w.begin!(events);
    },
    async apply(stored) {
      const e = stored.event;
      // Most writers only collect (synchronously): await only those that write at once.
      for (const w of (e.tenantId === SYSTEM_TENANT ? systemByType : tenantByType).get(e.type) ?? []) {
        const writing = w.apply(stored);
        if (writing) await writing;
      }
    },
    async flush() {
      const handoff: BatchHandoff = { settled: [] };
      for (const w of flushing) await w.flush!(handoff);
    },
  };
}

/** Apply a batch of events in order (tenant rows first, set-based writes last). */
export async function applyEvents(q: Sql, events: StoredEvent[]): Promise<void> {
  const applier = createBatchApplier(q);
  await applier.begin(events);
  for (const e of events) await applier.apply(e);
  await applier.flush();
}

/** One event on its own. */
export const applyEvent = (q: Sql, stored: StoredEvent): Promise<void> => applyEvents(q, [stored]);

// ---- the audit's side: the read models it compares ---------------------------------------------------------

// `any` only to pick the audited models out of the list; each keeps its own fold and rows types.
// biome-ignore lint/suspicious/noExplicitAny: matches an audited model whatever its fold and rows types
type Audited = Extract<(typeof READ_MODELS)[number], AuditedReadModel<string, any, any>>;
const AUDITED = READ_MODELS.filter((m): m is Audited => 'audit' in m && m.audit !== undefined);

/** Each compared read model's fold, by its name. */
export type TenantReadModelFolds = { [M in Audited as M['name']]: ReturnType<M['fold']> };
/** Each compared read model's rows as the projection holds them, by its name. */
export type TenantReadModelRows = { [M in Audited as M['name']]: Awaited<ReturnType<M['audit']['read']>> };

/** What one tenant's events, folded in memory, say the per-tenant tables hold. */
export function foldTenantReadModels(events: StoredEvent[]): TenantReadModelFolds {
  const folds: Array<[string, ReadModelFold]> = AUDITED.map((m) => [m.name, m.fold()]);
  for (const stored of events) {
    const ref = refOf(stored);
    const handoff: EventHandoff = { settled: null };
    for (const [, fold] of folds) fold.apply(stored, ref, handoff);
  }
  return Object.fromEntries(folds) as TenantReadModelFolds;
}

/** One tenant's rows of every compared read model, each by its own audit query (run them inside one snapshot). */
export async function readTenantReadModelRows(q: Sql, tenantId: string): Promise<TenantReadModelRows> {
  const rows: Record<string, unknown> = {};
  for (const m of AUDITED) rows[m.name] = await m.audit.read(q, tenantId);
  return rows as TenantReadModelRows;
}

/** Every table comparison the read models make, in list order: the fold's rows against the projection's, and the actor's view. */
export function compareTenantReadModels(
  folds: TenantReadModelFolds,
  rows: TenantReadModelRows,
  actor: TenantState,
): TableComparison[] {
  const byName = <T>(record: object, name: string) => (record as Record<string, T>)[name]!;
  return AUDITED.flatMap((m) =>
    (m.audit as ReadModelAudit<unknown, unknown>).compare(byName(folds, m.name), byName(rows, m.name), actor),
  );
}
