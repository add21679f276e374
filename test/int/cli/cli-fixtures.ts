import type { TenantActors } from '../../../src/actors/tenant-actors.js';
import { newId } from '../../../src/domain/ids.js';
import type { TenantCommand, TenantCommandOf } from '../../../src/domain/tenant/index.js';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { runCli } from '../../../src/cli/run-cli.js';

export type Tenants = TenantActors;
const ctx = { correlationId: 'cli-test', causedBy: { kind: 'admin' as const } };

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the CLI in this process with its own environment; output collected. */
export async function cli(
  argv: string[],
  env: Record<string, string>,
  opts: { signal?: AbortSignal; onStderr?: (text: string) => void } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    env: { DATA_DIR: '/nonexistent-cli-test-dir', ...env },
    stdout: (t) => void (stdout += t),
    stderr: (t) => {
      stderr += t;
      opts.onStderr?.(t);
    },
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

export const jsonLines = (text: string): any[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/**
 * A tenant history touching every projected table: keys (one revoked), tier and overrides, captures
 * submitted/completed/failed, webhooks (one deleted) with delivery attempts and a dead letter, schedules
 * (one fired and completed, one skipped, one deleted) and API call counts.
 */
export async function writeTenantHistory(
  tenants: Tenants,
  tenantId: string,
  captures = 12,
): Promise<{ captureIds: string[] }> {
  const run = (command: TenantCommand) => tenants.execute(tenantId, command, ctx);
  for (let k = 0; k < 2; k++) {
    const keyHash = newId('evt').slice(4).padEnd(64, String(k));
    await run({ type: 'CreateKey', data: { keyHash, scopes: k ? ['read'] : ['capture', 'read'], name: `key ${k}` } });
    if (k === 1) await run({ type: 'RevokeKey', data: { keyHash } });
  }
  await run({ type: 'SetTier', data: { tier: 'pro' } });
  await run({ type: 'SetQuotaOverrides', data: { capturesPerMonth: 100_000, storageBytes: null } });

  const webhookIds = [newId('whk'), newId('whk')];
  for (const webhookId of webhookIds) {
    // A secret in the clear, as webhooks registered before secrets were sealed have it in the log.
    const legacy = {
      webhookId,
      url: `https://hooks.example.org/${webhookId}`,
      events: ['capture.complete'],
      name: 'hook',
      secret: 'whsec_test',
    };
    await run({ type: 'RegisterWebhook', data: legacy as unknown as TenantCommandOf<'RegisterWebhook'>['data'] });
  }
  await run({ type: 'DeleteWebhook', data: { webhookId: webhookIds[1]! } });

  const captureIds: string[] = [];
  for (let i = 0; i < captures; i++) {
    const captureId = newId('cap');
    captureIds.push(captureId);
    await run({
      type: 'SubmitCaptures',
      data: { captures: [{ captureId, url: `https://example.org/page/${i}, "quoted"` }], source: 'single' },
    });
    if (i % 3 === 0) {
      await run({
        type: 'FailCapture',
        data: {
          captureId,
          error: i % 2 ? 'timeout, after 30 s' : 'DNS lookup failed',
          retryable: i % 2 === 1,
          attempts: 3,
        },
      });
    } else if (i % 3 === 1) {
      await run({
        type: 'CompleteCapture',
        data: {
          captureId,
          completedAt: new Date().toISOString(),
          renderQuality: i % 2 ? 'partial' : 'full',
          render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
          artifacts: { screenshot: 's', html: 'h' },
          storedBytes: 1000 + i,
          attempts: 1,
        },
      });
    }
  }
  const deliveryId = newId('dlv');
  await run({
    type: 'RecordDeliveryAttempt',
    data: {
      deliveryId,
      webhookId: webhookIds[0]!,
      eventId: newId('evt'),
      eventType: 'capture.complete',
      attempt: 1,
      outcome: 'failed',
      httpStatus: 500,
      latencyMs: 12,
    },
  });
  await run({
    type: 'RecordDeliveryAttempt',
    data: {
      deliveryId,
      webhookId: webhookIds[0]!,
      eventId: newId('evt'),
      eventType: 'capture.complete',
      attempt: 2,
      outcome: 'delivered',
      httpStatus: 200,
      latencyMs: 9,
    },
  });
  await run({
    type: 'DeadLetterDelivery',
    data: {
      deliveryId: newId('dlv'),
      webhookId: webhookIds[0]!,
      eventId: newId('evt'),
      eventType: 'capture.complete',
      attempts: 4,
      reason: 'HTTP 500',
    },
  });

  const scheduleIds = [newId('sch'), newId('sch'), newId('sch')];
  for (const scheduleId of scheduleIds) {
    await run({
      type: 'CreateSchedule',
      data: { scheduleId, url: 'https://example.org/daily', name: 'daily', cron: '0 * * * *' },
    });
  }
  const fired = newId('cap');
  await run({
    type: 'FireSchedule',
    data: { scheduleId: scheduleIds[0]!, fireTime: '2030-01-01T10:00:00.000Z', captureId: fired },
  });
  await run({
    type: 'CompleteCapture',
    data: {
      captureId: fired,
      completedAt: new Date().toISOString(),
      renderQuality: 'full',
      render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
      artifacts: { screenshot: 's', html: 'h' },
      storedBytes: 5,
      attempts: 1,
    },
  });
  captureIds.push(fired);
  // Quota used up: the next run of the second schedule is skipped (spec 4.12).
  await run({ type: 'SetQuotaOverrides', data: { capturesPerMonth: 0, storageBytes: null } });
  await run({
    type: 'FireSchedule',
    data: { scheduleId: scheduleIds[1]!, fireTime: '2030-01-01T11:00:00.000Z', captureId: newId('cap') },
  });
  await run({ type: 'SetQuotaOverrides', data: { capturesPerMonth: 100_000, storageBytes: null } });
  await run({ type: 'DeleteSchedule', data: { scheduleId: scheduleIds[2]! } });
  await run({ type: 'RecordApiCalls', data: { period: new Date().toISOString().slice(0, 7), count: 17 } });
  return { captureIds };
}
