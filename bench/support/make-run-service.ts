import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/infra/free-port.js';
import { type ServiceProcess, startServiceProcess } from '../../test/support/service-process.js';

/**
 * The service as `make run` starts it (ops/run.sh runs the same entry point): its own process on a fresh
 * DATA_DIR, embedded NATS and Postgres, every role, defaults — with the fixture site's loopback origins
 * allowed (127.0.0.3 for the cross-origin frames) and rate limits a bench cannot reach. Runs `use` and stops it.
 */
export async function withMakeRunService<T>(
  name: string,
  use: (service: ServiceProcess, adminKey: string) => Promise<T>,
  nodeArgs: string[] = [],
  /** `defaultRateLimits`: keep `make run`'s per-address and per-tenant limits (600 and 1200 a minute), as a black-box client meets them. */
  opts: { defaultRateLimits?: boolean } = {},
  /** Settings beside `make run`'s defaults (e.g. ARTIFACT_STORE=s3 for the storage bench). */
  extraEnv: Record<string, string> = {},
): Promise<T> {
  const dataDir = await mkdtemp(join(tmpdir(), `cl-bench-${name}-`));
  const adminKey = `bench-${name}-admin-${process.pid}-0123456789`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    ADMIN_KEY: adminKey,
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32,127.0.0.3/32',
    ...(opts.defaultRateLimits ? {} : { RATE_LIMIT_IP_PER_MIN: '10000000', RATE_LIMIT_TENANT_PER_MIN: '10000000' }),
    ...extraEnv,
  };
  // Whatever the shell running the bench points at (NATS_URL, DATABASE_URL, …) is not `make run`'s default.
  for (const variable of [
    'NATS_URL',
    'DATABASE_URL',
    'ROLES',
    'WORKER_CONCURRENCY',
    'TSA_URL',
    'SIGNING_KEY',
    'CAPTURE_TIMEOUT_MS',
  ])
    delete process.env[variable];
  const service = await startServiceProcess(env, await freePort(), nodeArgs);
  try {
    return await use(service, adminKey);
  } finally {
    await service.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}
