import type { Tier } from '../../domain/events.js';
import { DEFAULT_TIER, TIER_LIMITS } from '../../domain/tiers.js';
import { tenantIdSchema } from '../../api/schemas.js';
import { CliError, EXIT_OK, UsageError } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import type { CommandSpec } from '../command-spec.js';
import { stringOpt } from '../command-spec.js';
import { csv, jsonLine, parsePeriod } from '../output-format.js';
import { readUsageReport } from '../../../projections/read-models/usage.js';

/** `usage report`: one row per tenant for a billing period, from the projections (usage_monthly + tenants). */

export interface UsageReportRow {
  tenantId: string;
  period: string;
  tier: Tier;
  capturesSubmitted: number;
  capturesCompleted: number;
  capturesFailed: number;
  storageBytes: number;
  apiCalls: number;
  capturesLimit: number;
  storageLimit: number;
}

/** CSV header, in the row's field order (snake_case, stable: scripts and spreadsheets depend on it). */
export const USAGE_CSV_HEADER = [
  'tenant_id',
  'period',
  'tier',
  'captures_submitted',
  'captures_completed',
  'captures_failed',
  'storage_bytes',
  'api_calls',
  'captures_limit',
  'storage_limit',
];

export const usageCsv = (rows: UsageReportRow[]): string =>
  csv(
    USAGE_CSV_HEADER,
    rows.map((r) => [
      r.tenantId,
      r.period,
      r.tier,
      r.capturesSubmitted,
      r.capturesCompleted,
      r.capturesFailed,
      r.storageBytes,
      r.apiCalls,
      r.capturesLimit,
      r.storageLimit,
    ]),
  );

export const usageReport: CommandSpec = {
  path: ['usage', 'report'],
  summary: 'Usage per tenant for one billing month, as CSV or JSON (from the projections).',
  description: `
One row per tenant known to the projection (tenants with no activity in the month show zeros):
${USAGE_CSV_HEADER.join(', ')}. Limits are the tier defaults unless an operator override applies.
CSV quotes fields per RFC 4180 and ends lines with \\n; JSON is one document {period, tenants: [...]}
with camelCase fields.`,
  options: {
    period: { type: 'string', value: 'YYYY-MM', help: 'the billing month (UTC)', required: true },
    tenant: { type: 'string', value: 'T', help: 'only tenant T' },
    format: { type: 'string', value: 'FORMAT', help: 'output format', choices: ['csv', 'json'], default: 'csv' },
  },
  examples: [
    'capture-ledger usage report --period 2025-03 > usage-2025-03.csv',
    'capture-ledger usage report --period 2025-03 --tenant acme --format json',
  ],
  async run(args, io) {
    const period = parsePeriod(stringOpt(args, 'period')!);
    const tenantId = stringOpt(args, 'tenant');
    if (tenantId !== undefined && !tenantIdSchema.safeParse(tenantId).success)
      throw new UsageError(`--tenant must match ^[a-z0-9_-]{1,64}$; got '${tenantId}'`);
    const session = openSession(io);
    try {
      const pool = await session.pool();
      const found = await readUsageReport(pool, period, tenantId ?? null);
      if (tenantId !== undefined && found.length === 0) {
        throw new CliError(
          `no tenant '${tenantId}' in the projection`,
          `Check the tenant id (\`capture-ledger usage report --period ${period}\` lists every tenant).`,
        );
      }
      const rows: UsageReportRow[] = found.map((row) => {
        const tier = row.tier ?? DEFAULT_TIER;
        return {
          tenantId: row.tenant_id,
          period,
          tier,
          capturesSubmitted: row.captures_submitted,
          capturesCompleted: row.captures_completed,
          capturesFailed: row.captures_failed,
          storageBytes: row.storage_bytes,
          apiCalls: row.api_call_count,
          capturesLimit: row.captures_override ?? TIER_LIMITS[tier].capturesPerMonth,
          storageLimit: row.storage_override ?? TIER_LIMITS[tier].storageBytes,
        };
      });
      await io.stdout(stringOpt(args, 'format') === 'json' ? jsonLine({ period, tenants: rows }) : usageCsv(rows));
      return EXIT_OK;
    } finally {
      await session.close();
    }
  },
};
