import {
  BUCKETS,
  bucketStream,
  DURABLES,
  type DurableDeclaration,
  NATS_ROLES,
  type NatsRole,
  STREAMS,
  SUBJECTS,
} from './topology.js';
export type { NatsRole } from './topology.js';

/**
 * NATS users for a deployment (DESIGN decision 11): one per role, each allowed only the subjects its role uses,
 * and an operator user for the CLI and for provisioning. No anonymous client is accepted.
 *
 * Each role's grants are an allow list, derived from what the role's code does (and checked against a traced
 * run of every role, docs/security.md): the JetStream API subjects for the streams it inspects, the consumers it
 * pulls from, the messages and KV / object-store entries it reads, and the subjects it publishes. Nothing else —
 * in particular no role may create, reconfigure, delete or purge a stream or delete a message (provisioning does
 * that as the operator, src/infra/nats-provision.ts), nor delete a consumer. Replies go to a per-user inbox
 * prefix (`natsInboxPrefix`) that only that user may subscribe to, so no role can read another's JetStream
 * replies (a KV read of a webhook key, a signer's answer); a role that serves requests answers them through
 * `allow_responses` rather than a right to publish into inboxes.
 *
 * The grants are derived from the topology (src/infra/topology.ts): a new stream, bucket or subject is declared
 * there with the roles that use it, or the role meets a permissions violation (the cluster test
 * test/e2e/cluster.e2e.spec.ts starts every role with these users).
 */

export interface NatsUser {
  user: string;
  /** The password, or `{ env: NAME }` for a reference nats-server resolves from its environment (docker-compose). */
  password: string | { env: string };
  /** A role's permissions, or 'operator' for everything but OPERATOR_NEVER (operator CLI, provisioning, the launcher). */
  role: NatsRole | 'operator';
}

/** The inbox prefix of a NATS user's connection: replies to its requests and pulls come there, and only it may subscribe to them. */
export const natsInboxPrefix = (user: string): string => `_INBOX_${user}`;

/** What one role may do with JetStream and core NATS. */
export interface RoleGrants {
  /** Streams it reads the info of (the start-up check of every stream, queue depths for /metrics). */
  streamInfo: string[];
  /** Durable pull consumers it owns: created by name, read, pulled from and acked. */
  durables: Array<{ stream: string; name: string }>;
  /** Durable consumers of other roles whose info it reads (queue depth and work in hand). */
  consumerInfo: Array<{ stream: string; name: string }>;
  /** Streams it reads with ordered (ephemeral, randomly named) consumers. */
  ordered: string[];
  /** Streams it reads single messages of (by sequence or last/next by subject). */
  messages: string[];
  /** KV buckets it reads, and those it writes (put, delete, purge of a key). */
  kvRead: string[];
  kvWrite: string[];
  /** Object stores it reads (chunks through an ordered consumer), and those it writes. */
  objRead: string[];
  objWrite: string[];
  /** Core subjects it publishes to (events, jobs, requests to other roles). */
  publish: string[];
  /** Core subjects it subscribes to, beyond its inbox. */
  subscribe: string[];
  /** Whether it answers requests (capture outcomes, notary, checkpoints). */
  responds: boolean;
}

const has = (roles: readonly NatsRole[], role: NatsRole) => roles.includes(role);
const streams = Object.values(STREAMS);
const buckets = Object.values(BUCKETS);
const subjects = Object.values(SUBJECTS);

/** What the topology (src/infra/topology.ts) says one role does, as grants. */
function grantsOf(role: NatsRole): RoleGrants {
  const bucketsWhere = (kind: 'kv' | 'object', pick: (b: (typeof buckets)[number]) => readonly NatsRole[]) =>
    buckets.filter((b) => b.kind === kind && has(pick(b), role)).map((b) => b.name);
  const objWrite = bucketsWhere('object', (b) => b.write);
  return {
    streamInfo: [
      ...streams.filter((s) => has(s.info, role)).map((s) => s.name),
      ...buckets.filter((b) => has(b.info, role)).map(bucketStream),
    ],
    durables: Object.values(DURABLES)
      .filter((d) => d.owner === role)
      .map(({ stream, name }) => ({ stream, name })),
    consumerInfo: Object.values(DURABLES as Record<string, DurableDeclaration>)
      .filter((d) => d.infoBy?.includes(role))
      .map(({ stream, name }) => ({ stream, name })),
    ordered: streams.filter((s) => has(s.ordered, role)).map((s) => s.name),
    // An object put looks up the object's current entry first (a message read).
    messages: [
      ...streams.filter((s) => has(s.messages, role)).map((s) => s.name),
      ...objWrite.map((name) => bucketStream({ kind: 'object', name })),
    ],
    kvRead: bucketsWhere('kv', (b) => b.read),
    kvWrite: bucketsWhere('kv', (b) => b.write),
    objRead: bucketsWhere('object', (b) => b.read),
    objWrite,
    publish: subjects.filter((s) => has(s.publish, role)).map((s) => s.subject),
    subscribe: subjects.filter((s) => has(s.subscribe, role)).map((s) => s.subject),
    responds: subjects.some((s) => s.kind === 'request' && has(s.subscribe, role)),
  };
}

export const ROLE_GRANTS = Object.fromEntries(NATS_ROLES.map((role) => [role, grantsOf(role)])) as Record<
  NatsRole,
  RoleGrants
>;

// Belt and braces: refused even if an allow entry above were ever widened by mistake.
const NEVER = [
  '$JS.API.STREAM.DELETE.>',
  '$JS.API.STREAM.PURGE.>',
  '$JS.API.STREAM.MSG.DELETE.>',
  '$JS.API.STREAM.CREATE.>',
  '$JS.API.STREAM.UPDATE.>',
  '$JS.API.CONSUMER.DELETE.>',
];

/**
 * What even the operator (provisioning, the CLI, the launcher) may not do: purge a stream or delete a message.
 * Nothing of ours needs either (artifacts are write-once, webhook keys are shredded by a delete marker), and a
 * filtered purge of a replicated stream can be replayed as a full one by nats-server before 2.9.21 (#4196), so a
 * regression fails loudly instead of silently wiping evidence.
 */
export const OPERATOR_NEVER = ['$JS.API.STREAM.PURGE.>', '$JS.API.STREAM.MSG.DELETE.>'];

const unique = (list: string[]) => [...new Set(list)];

/** The subjects a role may publish to (JetStream API calls are publishes too). Pure; unit-tested. */
export function publishAllow(g: RoleGrants): string[] {
  const kvStreams = (buckets: string[]) => buckets.map((b) => `KV_${b}`);
  const objStreams = (buckets: string[]) => buckets.map((b) => `OBJ_${b}`);
  const ordered = [...g.ordered, ...objStreams(g.objRead)];
  const messages = [...g.messages, ...kvStreams(g.kvRead), ...objStreams(g.objRead)];
  const info = [...g.streamInfo, ...ordered, ...messages, ...g.durables.map((d) => d.stream)];
  return unique([
    '$JS.API.INFO',
    ...unique(info).map((s) => `$JS.API.STREAM.INFO.${s}`),
    ...g.durables.flatMap(({ stream, name }) => [
      // nats-server 2.9 takes a named create as CONSUMER.CREATE.<stream>.<name>[.<filter>]; older clients use DURABLE.CREATE.
      `$JS.API.CONSUMER.CREATE.${stream}.${name}`,
      `$JS.API.CONSUMER.CREATE.${stream}.${name}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${name}`,
      `$JS.API.CONSUMER.INFO.${stream}.${name}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`,
      `$JS.ACK.${stream}.${name}.>`,
    ]),
    ...g.consumerInfo.map(({ stream, name }) => `$JS.API.CONSUMER.INFO.${stream}.${name}`),
    // Ordered consumers have random names (and a filter subject in the create subject).
    ...unique(ordered).flatMap((s) => [
      `$JS.API.CONSUMER.CREATE.${s}`,
      `$JS.API.CONSUMER.CREATE.${s}.>`,
      `$JS.API.CONSUMER.INFO.${s}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${s}.*`,
      `$JS.FC.${s}.>`,
    ]),
    ...unique(messages).flatMap((s) => [
      `$JS.API.STREAM.MSG.GET.${s}`,
      `$JS.API.DIRECT.GET.${s}`,
      `$JS.API.DIRECT.GET.${s}.>`,
    ]),
    ...g.kvWrite.map((b) => `$KV.${b}.>`),
    ...g.objWrite.map((b) => `$O.${b}.>`),
    ...g.publish,
  ]);
}

const quote = (list: string[]) => `[${list.map((s) => JSON.stringify(s)).join(', ')}]`;

function permissions(user: string, role: NatsRole): string {
  const g = ROLE_GRANTS[role];
  const subscribe = [`${natsInboxPrefix(user)}.>`, ...g.subscribe];
  const responses = g.responds ? ', allow_responses: true' : '';
  return `{ publish: { allow: ${quote(publishAllow(g))}, deny: ${quote(NEVER)} }, subscribe: { allow: ${quote(subscribe)} }${responses} }`;
}

/** The `authorization` block for nats-server's configuration file. */
export function natsAuthorizationConfig(users: NatsUser[]): string {
  const lines = users.map((u) => {
    const perms = `, permissions: ${u.role === 'operator' ? `{ publish: { deny: ${quote(OPERATOR_NEVER)} } }` : permissions(u.user, u.role)}`;
    const password = typeof u.password === 'string' ? JSON.stringify(u.password) : `$${u.password.env}`;
    return `    { user: ${JSON.stringify(u.user)}, password: ${password}${perms} }`;
  });
  return ['authorization {', '  users: [', ...lines, '  ]', '}'].join('\n');
}

/** The users of docker-compose.yml: passwords come from the servers' environment (NATS_<ROLE>_PASSWORD). */
export const COMPOSE_NATS_USERS: NatsUser[] = (
  ['operator', 'api', 'worker', 'signer', 'projector', 'dispatcher', 'scheduler', 'sequencer'] as const
).map((role) => ({
  user: role,
  password: { env: `NATS_${role.toUpperCase()}_PASSWORD` },
  role,
}));
