import type { StoredEvent } from '../../src/ledger/event-store.js';
import { SYSTEM_TENANT } from '../../src/ledger/streams.js';
import { CAPTURES_HANDLES, createCapturesFold, createCapturesWriter } from './captures.js';
import { createEvidenceKeysWriter, EVIDENCE_KEYS_HANDLES } from './evidence-keys.js';
import { createKeysFold, createKeysWriter, KEYS_HANDLES } from './keys.js';
import { refOf, type Sql } from './read-model.js';
import { createSchedulesFold, createSchedulesWriter, SCHEDULES_HANDLES } from './schedules.js';
import { createTenantsFold, createTenantsWriter, TENANTS_HANDLES } from './tenants.js';
import { createUsageFold, createUsageWriter, USAGE_HANDLES } from './usage.js';
import { createWebhookDeliveriesWriter, WEBHOOK_DELIVERIES_HANDLES } from './webhook-deliveries.js';
import { createWebhooksFold, createWebhooksWriter, WEBHOOKS_HANDLES } from './webhooks.js';

/**
 * The projection as a whole: every read model's writer, run by the projector inside one transaction per
 * batch, and every read model's pure fold, run by the audit — two ways of carrying out each model's one
 * definition of what an event does to its rows (read-model.ts). Both take the same path through the models:
 * captures settles outcomes first, then usage and schedules count what it settled.
 */

export type { EventRef, SettledCapture, Sql, TableComparison } from './read-model.js';
export { refOf } from './read-model.js';

interface EventWriter {
  /** A promise when it writes at once; nothing when it only collected the event for `flush`. */
  apply(stored: StoredEvent): unknown;
}

/**
 * A batch's writes: each event goes, in order, to the read models that handle its type (rare events are
 * written at once, one statement each); the hot path — capture rows, outcomes, counts, usage — is collected
 * and written with a few set-based statements by `flush`. The deferred writes commute with the per-event ones
 * (see captures.ts and schedules.ts), so the result equals applying the events one by one.
 */
export interface BatchApplier {
  apply(stored: StoredEvent): Promise<void>;
  flush(): Promise<void>;
}

export function createBatchApplier(q: Sql): BatchApplier {
  const tenants = createTenantsWriter(q);
  const captures = createCapturesWriter(q);
  const usage = createUsageWriter(q);
  const schedules = createSchedulesWriter(q);
  const tenantWriters: Array<[readonly string[], EventWriter]> = [
    [TENANTS_HANDLES, tenants],
    [KEYS_HANDLES, createKeysWriter(q)],
    [CAPTURES_HANDLES, captures],
    [USAGE_HANDLES, usage],
    [WEBHOOKS_HANDLES, createWebhooksWriter(q)],
    [WEBHOOK_DELIVERIES_HANDLES, createWebhookDeliveriesWriter(q)],
    [SCHEDULES_HANDLES, schedules],
  ];
  const byType = new Map<string, EventWriter[]>();
  for (const [types, writer] of tenantWriters) for (const type of types) byType.set(type, [...(byType.get(type) ?? []), writer]);
  const systemWriter = createEvidenceKeysWriter(q);
  const systemTypes = new Set<string>(EVIDENCE_KEYS_HANDLES);

  return {
    async apply(stored) {
      const e = stored.event;
      if (e.tenantId === SYSTEM_TENANT) {
        if (systemTypes.has(e.type)) await systemWriter.apply(stored);
        return;
      }
      // Most writers only collect (synchronously): await only those that write at once.
      for (const w of byType.get(e.type) ?? []) {
        const writing = w.apply(stored);
        if (writing) await writing;
      }
    },
    async flush() {
      const settled = await captures.flush();
      await usage.flush(settled);
      await schedules.flush(settled);
    },
  };
}

/** Apply a batch of events in order (tenant rows first, set-based writes last). */
export async function applyEvents(q: Sql, events: StoredEvent[]): Promise<void> {
  await createTenantsWriter(q).begin(events);
  const applier = createBatchApplier(q);
  for (const e of events) await applier.apply(e);
  await applier.flush();
}

/** One event on its own. */
export const applyEvent = (q: Sql, stored: StoredEvent): Promise<void> => applyEvents(q, [stored]);

/** What one tenant's events, folded in memory, say the per-tenant tables hold. */
export function foldTenantReadModels(events: StoredEvent[]) {
  const folds = {
    tenants: createTenantsFold(),
    keys: createKeysFold(),
    captures: createCapturesFold(),
    usage: createUsageFold(),
    webhooks: createWebhooksFold(),
    schedules: createSchedulesFold(),
  };
  for (const stored of events) {
    const ref = refOf(stored);
    folds.tenants.apply(stored, ref);
    folds.keys.apply(stored, ref);
    const settled = folds.captures.apply(stored, ref);
    folds.usage.apply(stored, ref, settled);
    folds.webhooks.apply(stored, ref);
    folds.schedules.apply(stored, ref, settled);
  }
  return folds;
}
export type TenantReadModelFolds = ReturnType<typeof foldTenantReadModels>;
