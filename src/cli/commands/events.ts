import { DeliverPolicy } from '@nats-io/jetstream';
import type { EventEnvelope } from '../../ledger/envelope.js';
import { type StoredEvent, storedOf } from '../../ledger/event-store.js';
import { LEDGER_STREAM, SYSTEM_SUBJECT, SYSTEM_TENANT, tenantSubject } from '../../ledger/streams.js';
import { tenantIdSchema } from '../../api/schemas.js';
import { EXIT_OK, UsageError } from '../cli-io.js';
import { openSession } from '../cli-session.js';
import { type CommandSpec, intOpt, listOpt, type ParsedArgs, stringOpt } from '../command-spec.js';
import { jsonLine, parseInstant, table } from '../output-format.js';

/** `events list` and `events tail`: the LEDGER stream as JSON lines (or a table), filtered by tenant and type. */

export interface EventFilter {
  tenantId?: string;
  /** Exact types or prefixes ending in `.*` (`capture.*`). */
  types: string[];
  since?: Date;
  until?: Date;
}

/** The subject a tenant filter reads: only that tenant's events, never the whole log. */
export function subjectFor(tenantId: string | undefined): string {
  if (tenantId === undefined) return 'ledger.>';
  return tenantId === SYSTEM_TENANT ? SYSTEM_SUBJECT : tenantSubject(tenantId);
}

export function matchesType(type: string, patterns: string[]): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((p) => (p.endsWith('.*') ? type.startsWith(p.slice(0, -1)) : type === p));
}

export function matches(e: StoredEvent, f: EventFilter): boolean {
  if (f.tenantId !== undefined && e.event.tenantId !== f.tenantId) return false;
  if (!matchesType(e.event.type, f.types)) return false;
  if (f.since || f.until) {
    const at = Date.parse(e.event.occurredAt);
    if (f.since && at < f.since.getTime()) return false;
    if (f.until && at >= f.until.getTime()) return false;
  }
  return true;
}

/**
 * The JSON-lines form of a stored event: where it is in the stream, then the envelope as stored — except a
 * webhook secret in the clear (events from before secrets were sealed), which operator output never shows.
 */
export const eventRecord = (e: StoredEvent) => ({
  seq: e.seq,
  index: e.index,
  subject: e.subject,
  event: withoutSecret(e.event),
});

function withoutSecret(event: EventEnvelope): EventEnvelope {
  const data = (event as { data?: Record<string, unknown> }).data;
  if (event.type !== 'webhook.registered' || typeof data?.['secret'] !== 'string') return event;
  return { ...event, data: { ...data, secret: '[redacted]' } } as EventEnvelope;
}

const DETAIL_FIELDS = [
  'captureId',
  'keyHash',
  'webhookId',
  'scheduleId',
  'deliveryId',
  'keyId',
  'tier',
  'outcome',
  'attempt',
  'count',
  'error',
];

/** A short human summary of an event's data for the table format. */
export function eventDetail(event: EventEnvelope): string {
  const data = (event as { data?: Record<string, unknown> }).data ?? {};
  const parts: string[] = [];
  if (event.type === 'capture.submitted') {
    const captures = (data.captures as Array<{ captureId: string }>) ?? [];
    parts.push(
      `captures=${captures.length}`,
      `first=${captures[0]?.captureId ?? '-'}`,
      `source=${String(data.source)}`,
    );
  }
  for (const k of DETAIL_FIELDS) {
    const v = data[k];
    if (v === undefined || v === null) continue;
    const text = String(v);
    parts.push(
      `${k}=${k === 'keyHash' ? `${text.slice(0, 12)}…` : text.length > 60 ? `${text.slice(0, 57)}...` : text}`,
    );
  }
  return parts.join(' ');
}

function filterOf(args: ParsedArgs, withTimes: boolean): EventFilter {
  const tenantId = stringOpt(args, 'tenant');
  if (tenantId !== undefined && tenantId !== SYSTEM_TENANT && !tenantIdSchema.safeParse(tenantId).success) {
    throw new UsageError(
      `--tenant must match ^[a-z0-9_-]{1,64}$ (or be '${SYSTEM_TENANT}' for signing-key events); got '${tenantId}'`,
    );
  }
  const types = listOpt(args, 'type')
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of types) {
    if (!/^[a-z_]+(\.[a-z_]+|\.\*)$/.test(t))
      throw new UsageError(
        `--type must be an event type such as capture.completed or a prefix such as capture.*; got '${t}'`,
      );
  }
  const filter: EventFilter = { types, ...(tenantId !== undefined ? { tenantId } : {}) };
  if (withTimes) {
    const since = stringOpt(args, 'since');
    const until = stringOpt(args, 'until');
    if (since) filter.since = parseInstant(since, '--since');
    if (until) filter.until = parseInstant(until, '--until');
    if (filter.since && filter.until && filter.since >= filter.until)
      throw new UsageError('--since must be before --until');
  }
  return filter;
}

const TENANT_OPTION = {
  type: 'string',
  value: 'T',
  help: `only tenant T (reads only ledger.tenant.<T>; '${SYSTEM_TENANT}' reads the signing-key events)`,
} as const;
const TYPE_OPTION = {
  type: 'string',
  value: 'TYPE',
  multiple: true,
  help: 'only events of this type; repeat or comma-separate; a prefix such as capture.* matches a family',
} as const;

export const eventsList: CommandSpec = {
  path: ['events', 'list'],
  summary: 'List ledger events (from the LEDGER stream, oldest first).',
  description: `
Each JSON line is {"seq", "index", "subject", "event"}: the commit's stream sequence, the event's place in
that commit, its subject and the stored envelope (id, type, tenantId, occurredAt, causedBy, correlationId,
prevHash, hash, data). --since/--until compare the event's occurredAt (since inclusive, until exclusive);
without --tenant the whole log is read.`,
  options: {
    tenant: TENANT_OPTION,
    type: TYPE_OPTION,
    since: { type: 'string', value: 'ISO', help: 'only events that occurred at or after this instant' },
    until: { type: 'string', value: 'ISO', help: 'only events that occurred before this instant' },
    'from-seq': { type: 'string', value: 'N', help: 'start reading at stream sequence N' },
    format: { type: 'string', value: 'FORMAT', help: 'output format', choices: ['jsonl', 'table'], default: 'jsonl' },
  },
  examples: [
    'capture-ledger events list --tenant acme --type capture.failed --since 2025-03-01',
    'capture-ledger events list --type key.created,key.revoked --format table',
  ],
  async run(args, io) {
    const filter = filterOf(args, true);
    const fromSeq = intOpt(args, 'from-seq', 1, Number.MAX_SAFE_INTEGER) ?? 1;
    const asTable = stringOpt(args, 'format') === 'table';
    const session = openSession(io);
    try {
      const store = await session.store();
      const rows: Array<Array<string | number>> = [];
      const emit = async (e: StoredEvent) => {
        if (!matches(e, filter)) return;
        if (asTable)
          rows.push([e.seq, e.event.occurredAt, e.event.tenantId, e.event.type, e.event.id, eventDetail(e.event)]);
        else await io.stdout(jsonLine(eventRecord(e)));
      };
      if (filter.tenantId !== undefined) {
        for (const e of await store.readSubject(subjectFor(filter.tenantId), fromSeq)) await emit(e);
      } else {
        await store.replay(fromSeq, emit);
      }
      if (asTable) await io.stdout(table(['seq', 'occurredAt', 'tenant', 'type', 'id', 'detail'], rows));
      return EXIT_OK;
    } finally {
      await session.close();
    }
  },
};

export const eventsTail: CommandSpec = {
  path: ['events', 'tail'],
  summary: 'Follow new ledger events live, from now, as JSON lines (Ctrl-C to stop).',
  description: `
Starts after the stream's last sequence at the moment it starts and prints every later event that passes the
filters, in the same JSON-lines form as \`events list\`. Stops on Ctrl-C (exit 0) or after --limit events.`,
  options: {
    tenant: TENANT_OPTION,
    type: TYPE_OPTION,
    limit: { type: 'string', value: 'N', help: 'exit after printing N events' },
  },
  examples: [
    'capture-ledger events tail --tenant acme',
    "capture-ledger events tail --type 'capture.*' | jq .event.data",
  ],
  async run(args, io) {
    const filter = filterOf(args, false);
    const limit = intOpt(args, 'limit', 1, Number.MAX_SAFE_INTEGER);
    const session = openSession(io);
    try {
      const store = await session.store();
      const { js } = await session.nats();
      const subject = subjectFor(filter.tenantId);
      const from = (await store.lastSeq()) + 1;
      const consumer = await js.consumers.get(LEDGER_STREAM, {
        filter_subjects: subject,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: from,
      });
      const messages = await consumer.consume({ max_messages: 256 });
      const stop = () => void messages.close().catch(() => undefined);
      if (io.signal?.aborted) stop();
      io.signal?.addEventListener('abort', stop, { once: true });
      io.stderr(`tailing ${subject} from sequence ${from} (Ctrl-C to stop)\n`);
      let printed = 0;
      try {
        outer: for await (const m of messages) {
          for (const e of storedOf(m.seq, m.subject, m.data)) {
            if (!matches(e, filter)) continue;
            await io.stdout(jsonLine(eventRecord(e)));
            if (limit !== undefined && ++printed >= limit) break outer;
          }
        }
      } finally {
        io.signal?.removeEventListener('abort', stop);
        stop();
      }
      return EXIT_OK;
    } finally {
      await session.close();
    }
  },
};
