import { openExistingSnapshotStore } from '../../actors/snapshot-store.js';
import { tenantIdSchema } from '../../api/schemas.js';
import { LEDGER_STREAM, tenantSubject } from '../../ledger/streams.js';
import { checkResult } from '../../application/operator-checks.js';
import { auditTenant, type TenantAuditReport } from '../audit/tenant-audit.js';
import { recordCheck } from '../check-record.js';
import type { Divergence } from '../audit/tenant-audit-model.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import { type CommandSpec, flagOpt, stringOpt } from '../command-spec.js';
import { jsonLine } from '../output-format.js';

/** `audit --tenant T`: hash chain + re-fold of the tenant's log, compared with the projections. */

/** What a divergence means, in one line. */
export function divergenceMessage(d: Divergence): string {
  const { table, key, field, projection, log, reason } = d.detail;
  const v = JSON.stringify;
  switch (d.kind) {
    case 'hash-chain':
      return `hash chain broken: ${reason}${field === 'hash' ? ' (the stored event was altered after it was appended)' : ' (an event before it was altered, removed or inserted)'}`;
    case 'foreign-event':
      return reason ?? `event ${key} belongs to tenant ${v(log)}`;
    case 'projection-mismatch':
      return `${table} ${key}: ${field} is ${v(projection)} in the projection but ${v(log)} from the log`;
    case 'projection-missing-row':
      return `${table} ${key}: the log creates this row but the projection has none`;
    case 'projection-extra-row':
      return `${table} ${key}: the projection has this row but no event of the tenant creates it`;
    case 'actor-state':
      return `${table} ${key}: ${field} is ${v(projection)} in the projection but ${v(log)} in the actor's state (the fold of the log)`;
    case 'snapshot':
      return `actor snapshot of ${key}: ${reason}`;
  }
}

export function describeDivergence(d: Divergence): string[] {
  const where = d.ref
    ? `at sequence ${d.ref.seq} (event ${d.ref.index + 1} of its commit), event ${d.ref.eventId}, ${d.ref.type}, occurred ${d.ref.occurredAt}`
    : 'in the projection, explained by no event';
  return [where, divergenceMessage(d)];
}

export function formatAuditReport(r: TenantAuditReport, all: boolean): string {
  const c = r.counts;
  const lines: string[] = [];
  if (r.events === 0) {
    lines.push(`audit of tenant ${r.tenantId}: ${r.ok ? 'no events' : 'DIVERGENCE'}`, `  ${r.subject} holds no events`);
  } else {
    lines.push(
      `audit of tenant ${r.tenantId}: ${r.ok ? 'OK' : 'DIVERGENCE'}`,
      `  ledger:     ${r.events} events in ${r.commits} commits on ${r.subject} (sequences ${r.firstSeq}..${r.lastSeq}), head ${r.headHash}`,
      `  projection: checkpoint ${r.checkpoint}; ${r.compared} events compared (through the ${r.cut})` +
        `${r.chainOnly ? `, ${r.chainOnly} later events hash-checked only (the projection has not reached them)` : ''}`,
      `  state:      keys ${c.keys} (${c.keysRevoked} revoked), captures ${c.captures.pending + c.captures.complete + c.captures.failed} ` +
        `(pending ${c.captures.pending}, complete ${c.captures.complete}, failed ${c.captures.failed}), usage periods ${c.usagePeriods}, ` +
        `webhooks ${c.webhooks} (${c.webhooksDeleted} deleted), schedules ${c.schedules} (${c.schedulesDeleted} deleted)`,
    );
  }
  if (r.snapshot) {
    const sn = r.snapshot;
    lines.push(
      `  snapshot:   ${
        sn.status === 'absent'
          ? 'none (the actor folds the whole log)'
          : sn.status === 'ok'
            ? `at sequence ${sn.lastSeq}, matches the fold of the log; ${sn.tailEvents} later events`
            : sn.status === 'stale'
              ? `stale, ignored by actors (${sn.reason})`
              : `BAD (${sn.reason}); the log is the truth: delete key ${r.tenantId} of bucket actor-snapshots and actors fold the log again`
      }`,
    );
  }
  if (r.divergences.length > 0) {
    const shown = all ? r.divergences : r.divergences.slice(0, 1);
    shown.forEach((d, i) => {
      const [where, what] = describeDivergence(d);
      lines.push(`  ${i === 0 ? 'first divergence' : `divergence ${i + 1}`} ${where}`, `    ${what}`);
    });
    const more = r.divergences.length - shown.length;
    if (more > 0) lines.push(`  ${more} more divergence${more === 1 ? '' : 's'}; run with --all to list them`);
  } else if (r.events > 0) {
    lines.push('  hash chain intact; projection matches the log');
  }
  return `${lines.join('\n')}\n`;
}

/** What an audit looked at, in a sentence (the console's checks page). */
function auditCoverage(r: TenantAuditReport): string {
  if (r.events === 0) return `tenant ${r.tenantId}: no events on ${r.subject}`;
  return `tenant ${r.tenantId}: ${r.events} events in ${r.commits} commits (LEDGER sequences ${r.firstSeq}..${r.lastSeq}), ${r.compared} compared with the projection at checkpoint ${r.checkpoint}`;
}

export const audit: CommandSpec = {
  path: ['audit'],
  summary: "Verify a tenant's hash chain and compare its re-folded log with the projections.",
  description: `
Reads every event of ledger.tenant.<T>, checks each envelope's hash and its link to the previous one, re-folds
the tenant's state (the actor's evolveTenant) and what the projection tables must hold, and compares with
api_keys, captures (statuses, and counts in capture_counts), usage_monthly counters, webhooks, schedules and the tenant row, as
of the projection's checkpoint (one consistent snapshot). The tenant actor's snapshot (KV bucket actor-snapshots)
must sit on a commit of the subject with the same last hash and equal the fold of the log up to it. Exit 0 with a summary when everything agrees;
exit 1 naming the first divergence (stream sequence, event id, what differs) otherwise.
--stream/--subject read a copy of the log instead (e.g. one restored from a backup).`,
  options: {
    tenant: { type: 'string', value: 'T', help: 'the tenant to audit', required: true },
    all: { type: 'boolean', help: 'list every divergence, not only the first' },
    json: { type: 'boolean', help: 'print the report as JSON' },
    stream: { type: 'string', value: 'NAME', help: 'the JetStream stream to read', default: LEDGER_STREAM },
    subject: {
      type: 'string',
      value: 'SUBJECT',
      help: "the tenant's subject in that stream (default ledger.tenant.<T>)",
    },
  },
  examples: ['capture-ledger audit --tenant acme', 'capture-ledger audit --tenant acme --json --all'],
  async run(args, io) {
    const tenantId = stringOpt(args, 'tenant')!;
    if (!tenantIdSchema.safeParse(tenantId).success)
      throw new UsageError(`--tenant must match ^[a-z0-9_-]{1,64}$; got '${tenantId}'`);
    const subject = stringOpt(args, 'subject') ?? tenantSubject(tenantId);
    const session = openSession(io);
    try {
      const stream = stringOpt(args, 'stream')!;
      const store = await session.store(stream);
      const pool = await session.pool();
      const projectedStream = stream === LEDGER_STREAM;
      const snapshots =
        projectedStream && subject === tenantSubject(tenantId)
          ? await openExistingSnapshotStore((await session.nats()).nc)
          : null;
      const started = new Date();
      const report = await auditTenant({ store, subject, pool, tenantId, projectedStream, snapshots });
      if (report.events === 0 && report.divergences.length === 0) {
        throw new CliError(
          `tenant '${tenantId}' has no events on ${subject}`,
          'Check the tenant id (`capture-ledger usage report --period YYYY-MM` lists the tenants).',
        );
      }
      // Only the live ledger's audit is the deployment's result; a copy read from a backup is not.
      if (stream === LEDGER_STREAM && subject === tenantSubject(tenantId)) {
        const findings = report.divergences.map((d) => ({ kind: d.kind, message: describeDivergence(d).join(': ') }));
        await recordCheck(
          session,
          io,
          checkResult('ledger-audit', started, new Date(), findings, auditCoverage(report), 'cli'),
        );
      }
      if (flagOpt(args, 'json')) {
        const divergences = (flagOpt(args, 'all') ? report.divergences : report.divergences.slice(0, 1)).map((d) => ({
          ...d,
          message: divergenceMessage(d),
        }));
        await io.stdout(jsonLine({ ...report, divergences, divergenceCount: report.divergences.length }));
      } else {
        await io.stdout(formatAuditReport(report, flagOpt(args, 'all')));
      }
      return report.ok ? EXIT_OK : EXIT_FAILURE;
    } finally {
      await session.close();
    }
  },
};
