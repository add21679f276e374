import { checkSnapshotAgainstLog, parseSnapshot } from '../../actors/actor-snapshot.js';
import type { TenantEvent } from '../../domain/events.js';
import {
  encodeTenantState,
  evolveTenant,
  initialTenantState,
  TENANT_STATE_VERSION,
} from '../../domain/tenant/index.js';
import type { EventEnvelope } from '../../ledger/envelope.js';
import type { StoredEvent } from '../../ledger/event-store.js';
import { type Divergence, refOf } from './tenant-audit-model.js';

/**
 * The snapshot half of `audit --tenant T` (DESIGN decision 12): the tenant's actor snapshot must be intact,
 * sit on a commit of the tenant's subject whose last event has its lastHash, and hold exactly the state that
 * folding the log up to that commit yields. A snapshot of an older state version is reported as stale, not
 * as a divergence: actors ignore it and write a current one.
 */

export interface SnapshotAuditReport {
  status: 'absent' | 'ok' | 'stale' | 'bad';
  lastSeq: number | null;
  /** Events after the snapshot: what the next hydration folds. */
  tailEvents: number | null;
  reason: string | null;
}

const snapshotDivergence = (
  tenantId: string,
  ref: Divergence['ref'],
  field: string,
  snapshot: unknown,
  log: unknown,
  reason: string,
): Divergence => ({
  kind: 'snapshot',
  ref,
  detail: { table: 'snapshot', key: tenantId, field, projection: snapshot, log, reason },
});

/** `events`: every event of the tenant's subject, in order. */
export function auditSnapshot(
  tenantId: string,
  bytes: Uint8Array | null,
  events: StoredEvent[],
): { report: SnapshotAuditReport; divergences: Divergence[] } {
  if (!bytes) return { report: { status: 'absent', lastSeq: null, tailEvents: null, reason: null }, divergences: [] };
  const parsed = parseSnapshot(bytes, { key: tenantId, stateVersion: TENANT_STATE_VERSION });
  if (!parsed.ok) {
    const stale = parsed.kind === 'stale';
    return {
      report: { status: stale ? 'stale' : 'bad', lastSeq: null, tailEvents: null, reason: parsed.reason },
      divergences: stale ? [] : [snapshotDivergence(tenantId, null, '(snapshot)', 'unreadable', null, parsed.reason)],
    };
  }
  const s = parsed.snapshot;
  const upTo = events.filter((e) => e.seq <= s.lastSeq);
  const commit = events.filter((e) => e.seq === s.lastSeq);
  const problem = checkSnapshotAgainstLog(s, events.at(-1) ?? null, commit.length > 0 ? commit : null);
  const bad = (divergences: Divergence[], reason: string) => ({
    report: { status: 'bad' as const, lastSeq: s.lastSeq, tailEvents: events.length - upTo.length, reason },
    divergences,
  });
  if (problem)
    return bad(
      [
        snapshotDivergence(
          tenantId,
          commit.length > 0 ? refOf(commit.at(-1)!) : null,
          'lastSeq/lastHash',
          { lastSeq: s.lastSeq, lastHash: s.lastHash },
          null,
          problem,
        ),
      ],
      problem,
    );

  // Fold the log up to the snapshot's commit and compare field by field.
  let state = initialTenantState(tenantId);
  for (const e of upTo) state = evolveTenant(state, e.event as EventEnvelope<TenantEvent>);
  const folded = encodeTenantState(state) as unknown as Record<string, unknown>;
  const held = (s.state ?? {}) as Record<string, unknown>;
  const ref = refOf(upTo.at(-1)!);
  const divergences: Divergence[] = [];
  for (const field of new Set([...Object.keys(folded), ...Object.keys(held)])) {
    if (JSON.stringify(held[field]) === JSON.stringify(folded[field])) continue;
    divergences.push(
      snapshotDivergence(
        tenantId,
        ref,
        `state.${field}`,
        held[field] ?? null,
        folded[field] ?? null,
        `state.${field} is ${JSON.stringify(held[field])} in the snapshot but ${JSON.stringify(folded[field])} from the log up to sequence ${s.lastSeq}`,
      ),
    );
  }
  if (divergences.length > 0)
    return bad(
      divergences,
      `the state differs from the fold of the log in ${divergences.map((d) => d.detail.field).join(', ')}`,
    );
  return {
    report: { status: 'ok', lastSeq: s.lastSeq, tailEvents: events.length - upTo.length, reason: null },
    divergences: [],
  };
}
