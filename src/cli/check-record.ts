import type { CheckResult } from '../application/operator-checks.js';
import { openExistingCheckStore } from '../infra/kv-check-store.js';
import { readRunFile } from '../infra/run-file.js';
import type { CliIo } from './cli-io.js';
import { type CliSession, openSession } from './cli-session.js';

/**
 * A check's result recorded where the operators' console reads it (`GET /v1/admin/checks`; the `operator-checks`
 * bucket), through the CLI's own NATS connection. Recording never changes what a check prints or its exit code: a
 * deployment without the bucket, or a failed write, is a note on stderr.
 */
export async function recordCheck(session: CliSession, io: CliIo, result: CheckResult): Promise<void> {
  try {
    const store = await openExistingCheckStore((await session.nats()).nc);
    if (!store) {
      io.stderr(
        'note: the result was not recorded for the console: the deployment has no operator-checks bucket (start the api of this release once)\n',
      );
      return;
    }
    await store.put(result.check, result);
  } catch (err) {
    io.stderr(`note: the result was not recorded for the console: ${(err as Error).message}\n`);
  }
}

/**
 * For a check that needs no NATS (`log monitor` reads the log over HTTP, and may be run by anyone): recorded only
 * when the CLI is pointed at a deployment (NATS_URL, or DATA_DIR of a running service); otherwise nothing is said.
 */
export async function recordCheckIfConnected(io: CliIo, result: CheckResult): Promise<void> {
  let session: CliSession;
  try {
    session = openSession(io);
  } catch {
    return;
  }
  try {
    if (!session.config.NATS_URL && !(await readRunFile(session.dataDir).catch(() => null))) return;
    await recordCheck(session, io, result);
  } finally {
    await session.close();
  }
}
