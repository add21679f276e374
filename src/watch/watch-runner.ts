import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { CaptureDiffs } from './capture-diff-service.js';
import { DomainError } from '../domain/errors.js';
import { type ComparisonSummary, notifies } from './watch-policy.js';
import { DURABLES } from '../infra/topology.js';
import { DiffBoundError } from './diff-bounds.js';
import { type Feeder, runLedgerConsumer } from '../ledger/ledger-consumer.js';
import type { ProjectionWaiter } from '../projector/projection-waiter.js';
import { findCapture } from '../../projections/read-models/captures.js';
import { findComparison, findPreviousCompleteRun } from '../../projections/read-models/comparisons.js';
import { findActiveSchedule } from '../../projections/read-models/schedules.js';

/**
 * The watch (docs/watch.md): a durable LEDGER consumer in the api role. Each capture.completed of a
 * watched schedule's run is diffed against the previous complete run of that schedule, and the comparison is
 * recorded through the tenant's actor as `capture.compared` — `notify` when it changed beyond the watch's
 * thresholds, which the webhook feeder turns into a `capture.changed` event for the webhooks that asked for it.
 * A redelivered event finds its comparison recorded and does nothing. A diff that reaches a bound (its time limit
 * in the diff thread, the blocks of text compared; docs/watch.md, Bounds) is recorded as such — not changed, not
 * notified, the bound named — and never retried: the same runs would reach it again. One bound says the page changed:
 * more blocks of text added and removed than the diff compares (`textEdits`); that run is recorded as changed and
 * notifies, since a page rewritten beyond the bound is the change a watch exists for.
 */
export const WATCH_CONSUMER = DURABLES.watch.name;

const PROJECTION_WAIT_MS = 10_000;

/** What a comparison whose diff reached a bound counts: nothing was compared. */
const EMPTY_SUMMARY: ComparisonSummary = {
  textBlocksAdded: 0,
  textBlocksRemoved: 0,
  textBlocksChanged: 0,
  textChangeRatio: 0,
  headersChanged: 0,
  resourcesAdded: 0,
  resourcesRemoved: 0,
  resourcesChanged: 0,
  pixelChangeRatio: 0,
  changedRegions: 0,
};

export interface WatchRunnerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  pool: pg.Pool;
  waiter: ProjectionWaiter;
  tenants: TenantActors;
  diffs: CaptureDiffs;
  log: Logger;
}

export function startWatchRunner(deps: WatchRunnerDeps): Promise<Feeder> {
  const { pool, log } = deps;
  return runLedgerConsumer(deps.js, deps.jsm, WATCH_CONSUMER, log, async (e, seq) => {
    if (e.type !== 'capture.completed') return;
    if (!(await deps.waiter.waitFor(seq, PROJECTION_WAIT_MS)))
      throw new Error(`the projection has not reached ledger sequence ${seq} yet (is a projector running?)`);
    const row = await findCapture(pool, e.data.captureId);
    if (!row?.schedule_id || row.status !== 'complete') return;
    const schedule = await findActiveSchedule(pool, row.tenant_id, row.schedule_id);
    if (!schedule?.watch) return;
    if (await findComparison(pool, row.capture_id)) return;
    const base = await findPreviousCompleteRun(pool, row.tenant_id, row.schedule_id, row.created_at);
    if (!base) return; // the first complete run: nothing to compare with yet
    const { watch } = schedule;
    const options = { ignoreSelectors: watch.ignoreSelectors, ignoreText: watch.ignoreText };
    const scheduleId = row.schedule_id; // narrowed above; a closure does not keep the narrowing
    const record = (outcome: { changed: boolean; notify: boolean; summary: ComparisonSummary; bound?: string }) =>
      deps.tenants.execute(
        row.tenant_id,
        {
          type: 'RecordComparison',
          data: {
            captureId: row.capture_id,
            baseCaptureId: base.capture_id,
            scheduleId,
            options,
            ...outcome,
          },
        },
        { correlationId: e.correlationId, causedBy: { kind: 'system', component: 'watch' } },
      );
    let diff: Awaited<ReturnType<CaptureDiffs['diffRows']>>;
    try {
      diff = await deps.diffs.diffRows(base, row, options);
    } catch (err) {
      if (err instanceof DiffBoundError) {
        log.warn(
          { captureId: row.capture_id, base: base.capture_id, bound: err.bound, detail: err.message },
          'watch: the diff reached a bound; recorded as such',
        );
        const rewritten = err.bound === 'textEdits';
        await record({
          changed: rewritten,
          notify: rewritten,
          summary: EMPTY_SUMMARY,
          bound: `${err.bound}: ${err.message}`,
        });
        return;
      }
      // A stored artifact lost or damaged (readRecordedArtifact's 500): retrying cannot help; the operator's
      // storage verify reports it.
      if (err instanceof DomainError) {
        log.error({ err, captureId: row.capture_id, base: base.capture_id }, 'watch: the runs cannot be compared');
        return;
      }
      throw err;
    }
    // Pixels count without minPixelChange only when every ignored element and text was masked (docs/watch.md).
    const ignored = diff.screenshot?.ignored;
    const allMasked = ignored !== undefined && ignored.notRecorded.length === 0 && ignored.textNotRecorded.length === 0;
    const notify = notifies(watch, diff.summary, allMasked);
    await record({ changed: diff.changed, notify, summary: diff.summary });
    log.info(
      { captureId: row.capture_id, base: base.capture_id, changed: diff.changed, notify },
      'watch: run compared',
    );
  });
}
