import {
  BUCKETS,
  bucketStream,
  DURABLES,
  type NatsRole,
  STREAMS,
  type StreamDeclaration,
  SUBJECTS,
} from './topology.js';

/**
 * The topology as the Markdown table of docs/architecture.md ("The parts"), so the docs are
 * derived from the one declaration; test/unit/ops/topology.unit.spec.ts checks the file holds exactly this table.
 */
const roles = (list: readonly NatsRole[]) => (list.length ? [...new Set(list)].join(', ') : '—');
const duration = (ms: number) =>
  ms % 86_400_000 === 0 ? `${ms / 86_400_000} day${ms === 86_400_000 ? '' : 's'}` : `${ms / 60_000} min`;
const code = (list: readonly string[]) => list.map((s) => `\`${s}\``).join(', ');

/** A subject pattern of the stream's that a declared subject falls under (`ledger.>` holds `ledger.tenant.>`). */
const streamHolds = (stream: StreamDeclaration, subject: string) =>
  stream.config.subjects.some(
    (pattern) => pattern === subject || (pattern.endsWith('.>') && subject.startsWith(pattern.slice(0, -1))),
  );

function streamRow(stream: StreamDeclaration): string {
  const subjects = Object.values(SUBJECTS).filter((s) => streamHolds(stream, s.subject));
  const writers = subjects.flatMap((s) => s.publish);
  const durables = Object.values(DURABLES).filter((d) => d.stream === stream.name);
  const readers = [...stream.ordered, ...stream.messages, ...durables.map((d) => d.owner)];
  const kind = stream.config.deny_purge ? 'limits, immutable (deny delete and purge)' : 'work queue';
  const consumers = durables.length ? `; durables ${code(durables.map((d) => d.name))}` : '';
  return `| stream \`${stream.name}\` | ${code(subjects.map((s) => s.subject))} | ${kind}${consumers} | ${roles(writers)} | ${roles(readers)} | ${stream.holds} |`;
}

export function topologyTable(): string {
  const rows = [
    '| Name | Subjects | Kind | Written by | Read by | Holds |',
    '|---|---|---|---|---|---|',
    ...Object.values(STREAMS).map(streamRow),
    ...Object.values(BUCKETS).map((b) => {
      const options = [
        b.options.history ? `history ${b.options.history}` : '',
        b.options.ttl ? `TTL ${duration(b.options.ttl)}` : '',
      ].filter(Boolean);
      const kind = `${b.kind === 'kv' ? 'KV' : 'object store, deny delete, purge and rollups'} (\`${bucketStream(b)}\`)${options.length ? `, ${options.join(', ')}` : ''}`;
      return `| bucket \`${b.name}\` | | ${kind} | ${roles(b.write)} | ${roles(b.read)} | ${b.holds} |`;
    }),
    ...Object.values(SUBJECTS)
      .filter((s) => s.kind !== 'event')
      .map(
        (s) =>
          `| core \`${s.subject}\` | | ${s.kind === 'request' ? 'request/reply' : 'fire and forget'} | ${roles(s.publish)} | ${roles(s.subscribe)} | ${s.holds} |`,
      ),
  ];
  return rows.join('\n');
}
