import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import type { StorageHealth } from './artifact-store.js';
import { isLockRefusal, isNotFound, isStorageUnavailable } from './s3-errors.js';
import { storageDuration, storagePendingWrites, storageRequests, storageUp } from '../observability/metrics.js';

/** The logger the monitor reports an outage and the recovery to (pino's shape). */
export interface StorageLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Whether the S3 storage answers, seen from every request the store makes (a client middleware) and from a
 * HeadBucket probe every `probeMs`, so an outage is noticed while only presigned links are handed out. The
 * outage is logged once when it starts and once when it ends, naming the store; every request is counted and
 * timed (capture_ledger_storage_*).
 */
export interface StorageMonitor {
  health(): StorageHealth;
  /** Asks the storage now (HeadBucket) and answers what it found. */
  probe(): Promise<StorageHealth>;
  /** Counts a write under way (capture_ledger_storage_pending_writes) until the returned function is called. */
  writing(): () => void;
  stop(): void;
}

export function watchS3(
  s3: S3Client,
  opts: { bucket: string; endpoint: string; log?: StorageLog | undefined; probeMs?: number },
): StorageMonitor {
  const store = `s3 bucket ${opts.bucket} at ${opts.endpoint}`;
  let down: { since: Date; error: string } | null = null;
  storageUp.set(1);

  const answered = () => {
    if (!down) return;
    const forS = Math.round((Date.now() - down.since.getTime()) / 1000);
    opts.log?.info({ store, downForS: forS }, `object storage available again (${store}) after ${forS} s`);
    down = null;
    storageUp.set(1);
  };
  const failed = (err: unknown) => {
    if (down) return;
    const error =
      err instanceof Error ? `${err.name}: ${err.message || (err as { code?: string }).code || ''}` : String(err);
    down = { since: new Date(), error };
    storageUp.set(0);
    opts.log?.error(
      { store, err },
      `object storage unavailable (${store}): reads answer 503 with Retry-After and writes wait until it answers again`,
    );
  };

  s3.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const stopTimer = storageDuration.startTimer({ operation });
      try {
        const out = await next(args);
        storageRequests.inc({ operation, outcome: 'ok' });
        answered();
        return out;
      } catch (err) {
        const outcome = isStorageUnavailable(err)
          ? 'unavailable'
          : isNotFound(err)
            ? 'not_found'
            : isLockRefusal(err)
              ? 'refused'
              : 'error';
        storageRequests.inc({ operation, outcome });
        if (outcome === 'unavailable') failed(err);
        else answered();
        throw err;
      } finally {
        stopTimer();
      }
    },
    { step: 'initialize', name: 'captureLedgerStorageMonitor' },
  );

  const health = (): StorageHealth =>
    down ? { status: 'degraded', store, since: down.since.toISOString(), error: down.error } : { status: 'ok', store };
  const probe = async () => {
    // The middleware records the answer (or its absence); any answer at all means the storage is there.
    await s3.send(new HeadBucketCommand({ Bucket: opts.bucket })).catch(() => {});
    return health();
  };
  const timer = setInterval(() => void probe(), opts.probeMs ?? 5000);
  timer.unref();

  return {
    health,
    probe,
    writing() {
      storagePendingWrites.inc();
      let done = false;
      return () => {
        if (!done) storagePendingWrites.dec();
        done = true;
      };
    },
    stop: () => clearInterval(timer),
  };
}
