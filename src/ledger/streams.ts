import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import { DiscardPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';

/** Stream and subject names (see docs/architecture.md). */
export const LEDGER_STREAM = 'LEDGER';
export const JOBS_STREAM = 'JOBS';
export const DELIVERIES_STREAM = 'DELIVERIES';
export const ARTIFACT_BUCKET = 'artifacts';

export const tenantSubject = (tenantId: string): string => `ledger.tenant.${tenantId}`;
export const SYSTEM_SUBJECT = 'ledger.system';
export const SYSTEM_TENANT = '$system';
export const CAPTURE_JOB_SUBJECT = 'jobs.capture';
export const WEBHOOK_JOB_SUBJECT = 'jobs.webhook';

export const tenantOfSubject = (subject: string): string | null =>
  subject.startsWith('ledger.tenant.') ? subject.slice('ledger.tenant.'.length) : null;

const definitions: Array<Partial<StreamConfig> & { name: string; subjects: string[] }> = [
  {
    // The truth: immutable, never purged (decision 1).
    name: LEDGER_STREAM,
    subjects: ['ledger.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    deny_delete: true,
    deny_purge: true,
    allow_direct: true,
    duplicate_window: 2 * 60 * 1_000_000_000,
  },
  {
    // Work queue of capture jobs, filled from capture.submitted events by the job feeder (decision 3).
    name: JOBS_STREAM,
    subjects: [CAPTURE_JOB_SUBJECT],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: 10 * 60 * 1_000_000_000,
  },
  {
    // Work queue of webhook deliveries, filled from capture outcome events by the dispatcher.
    name: DELIVERIES_STREAM,
    subjects: [WEBHOOK_JOB_SUBJECT],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: 10 * 60 * 1_000_000_000,
  },
];

/** Create the streams when absent; safe to call from every process at every start. */
export async function ensureStreams(jsm: JetStreamManager): Promise<void> {
  for (const def of definitions) {
    try {
      await jsm.streams.info(def.name);
    } catch (err) {
      if ((err as { name?: string }).name !== 'StreamNotFoundError') throw err;
      try {
        await jsm.streams.add(def);
      } catch (addErr) {
        // another process created it between our info and add
        if (!/already in use|exists/i.test(String((addErr as Error).message))) throw addErr;
      }
    }
  }
}
