import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../config/config.js';
import { storageSettings } from '../../config/storage-config.js';
import { connectNats, type NatsHandles } from '../../infra/nats.js';
import { processAlive, readRunFile } from '../../infra/run-file.js';
import { archiveLocation, openArchiveBucket } from '../../ledger-archive/archive-bucket.js';
import { archiveKeys } from '../../ledger-archive/archive-keys.js';
import { ArchiveDamagedError } from '../../ledger-archive/archive-reader.js';
import { RestoreConflictError, restoreArchive } from '../../ledger-archive/restore.js';
import { lostCaptures, storedCaptureIds } from '../../ledger-archive/stored-captures.js';
import { LOG_SEED_FILE_NAME, loadLogSeed } from '../../transparency/sequencer.js';
import { CliError, EXIT_OK, UsageError } from '../cli-io.js';
import type { CommandSpec } from '../command-spec.js';
import { jsonLine } from '../output-format.js';
import { createProgress, type Progress } from '../progress.js';

/**
 * `restore --from s3://<bucket>/<prefix> [--until <time>]`: an empty deployment rebuilt from its archive alone
 * (docs/operators.md, restore). Into NATS_URL, or into a nats-server of its own in DATA_DIR/nats, the one
 * `make run` then starts over the same store.
 */
export const restore: CommandSpec = {
  path: ['restore'],
  summary: 'Rebuild an empty deployment from the archive: check every segment, republish the ledger and the log.',
  description: `
Checks every segment of the archive (chain, signature with the log key of LOG_SIGNING_KEY or
DATA_DIR/${LOG_SEED_FILE_NAME}, body digests, ranges) and refuses a damaged or incomplete archive naming the first
bad segment. Then republishes LEDGER and TLOG at their original sequences and writes back the archived KV state
(webhook keys, certificates). Into NATS_URL when set, else into a nats-server it starts in DATA_DIR/nats (no
service may run there). Run again after an interruption, it continues. With ARTIFACT_STORE=s3, captures whose
artifacts are stored but whose events are not in the archive are listed as lost. Prints one JSON summary line.
Then start the service on the same DATA_DIR: projections rebuild from the restored ledger.`,
  options: {
    from: {
      type: 'string',
      value: 's3://BUCKET/PREFIX',
      help: 'The archive (ARCHIVE_URL of the lost deployment).',
      required: true,
    },
    until: { type: 'string', value: 'TIME', help: 'Restore only what was stored at or before this RFC 3339 time.' },
  },
  examples: [
    'LOG_SIGNING_KEY=… DATA_DIR=./data-new capture-ledger restore --from s3://archive/ledger',
    'capture-ledger restore --from s3://archive/ledger --until 2026-11-29T06:00:00Z',
  ],
  async run(args, io) {
    const config = loadConfig(io.env);
    const until = parseUntil(args.values.until as string | undefined);
    const location = archiveLocation(config, args.values.from as string);
    if (!location) throw new UsageError('--from is required');
    const dataDir = resolve(config.DATA_DIR);
    if (!config.LOG_SIGNING_KEY && !existsSync(join(dataDir, LOG_SEED_FILE_NAME)))
      throw new CliError(
        `the archive is checked with the log's key, and neither LOG_SIGNING_KEY nor ${join(dataDir, LOG_SEED_FILE_NAME)} is there`,
        "Set LOG_SIGNING_KEY to the lost deployment's log seed (or copy its log-key.seed into DATA_DIR).",
      );
    const keys = archiveKeys(config.LOG_ORIGIN, await loadLogSeed(config.LOG_SIGNING_KEY, dataDir));
    const bucket = await openArchiveBucket(location, { create: false });
    const nats = await openTarget(config, dataDir);
    const bars: Partial<Record<'check' | 'republish', Progress>> = {};
    const started = Date.now();
    try {
      const report = await restoreArchive({
        nats: nats.handles,
        replicas: config.NATS_REPLICAS,
        bucket,
        keys,
        until,
        progress(phase, done, total) {
          const bar = (bars[phase] ??= createProgress(io, {
            label: phase,
            unit: phase === 'check' ? 'segments' : 'records',
            from: 0,
            total,
          }));
          bar.update(done);
        },
      });
      for (const bar of Object.values(bars)) bar.finish();
      const artifacts = storageSettings(config);
      const lost = artifacts.kind === 's3' ? lostCaptures(await storedCaptureIds(artifacts), report.captureIds) : null;
      if (lost?.length)
        io.stderr(
          `restore: ${lost.length} capture(s) have artifacts in S3 but no events in the archive (acknowledged after its last segment): ${lost.join(', ')}\n`,
        );
      await io.stdout(
        jsonLine({
          archive: location.url,
          segments: report.segments,
          lastSealedAt: report.lastSealedAt,
          lastTime: report.lastTime,
          until: until?.toISOString() ?? null,
          streams: report.streams,
          kvEntries: report.kvEntries,
          captures: report.captureIds.size,
          lost,
          seconds: (Date.now() - started) / 1000,
        }),
      );
      return EXIT_OK;
    } catch (err) {
      if (err instanceof ArchiveDamagedError)
        throw new CliError(
          `the archive is refused: ${err.message}`,
          'Nothing was written. Restore from an intact copy of the archive, or with --until before that segment’s time.',
        );
      if (err instanceof RestoreConflictError)
        throw new CliError(err.message, 'Restore into a fresh DATA_DIR or an empty cluster.');
      throw err;
    } finally {
      await nats.close();
    }
  },
};

function parseUntil(text: string | undefined): Date | null {
  if (text === undefined) return null;
  const at = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(at))
    throw new UsageError(`--until must be an RFC 3339 time, got '${text}'`);
  return new Date(at);
}

/** NATS_URL, or a nats-server of the restore's own in DATA_DIR/nats (refused while a service runs there). */
async function openTarget(
  config: ReturnType<typeof loadConfig>,
  dataDir: string,
): Promise<{ handles: NatsHandles; close(): Promise<void> }> {
  if (config.NATS_URL) {
    const handles = await connectNats(config.NATS_URL, 'capture-ledger-restore', {
      replicas: config.NATS_REPLICAS,
      user: config.NATS_USER,
      pass: config.NATS_PASSWORD,
    });
    return { handles, close: async () => void (await handles.nc.close().catch(() => undefined)) };
  }
  const run = await readRunFile(dataDir).catch(() => null);
  if (run && processAlive(run.pid))
    throw new CliError(
      `a service (process ${run.pid}) runs on DATA_DIR ${dataDir}`,
      'Stop it, or restore into another DATA_DIR; a restore goes into an empty deployment.',
    );
  const { startEmbeddedNats } = await import('../../infra/embedded-nats.js');
  const credentials = { user: 'capture-ledger-restore', pass: randomBytes(24).toString('base64url') };
  const server = await startEmbeddedNats(join(dataDir, 'nats'), { credentials });
  try {
    const handles = await connectNats(server.url, 'capture-ledger-restore', credentials);
    return {
      handles,
      async close() {
        await handles.nc.close().catch(() => undefined);
        await server.stop();
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}
