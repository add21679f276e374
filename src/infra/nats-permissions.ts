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
 * The names below are the streams, buckets and durable consumers of src/ledger/streams.ts, the buckets' modules
 * and the feeders; a new one must be granted here, or the role meets a permissions violation (the cluster test
 * test/e2e/cluster.e2e.spec.ts starts every role with these users).
 */
export type NatsRole = 'api' | 'worker' | 'signer' | 'projector' | 'dispatcher' | 'scheduler' | 'sequencer';

export interface NatsUser {
  user: string;
  /** The password, or `{ env: NAME }` for a reference nats-server resolves from its environment (docker-compose). */
  password: string | { env: string };
  /** A role's permissions, or 'operator' for everything (operator CLI, the launcher itself). */
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

// Every role checks the core streams at start (src/infra/nats.ts, src/transparency/log-stream.ts).
const CORE_STREAMS = ['LEDGER', 'JOBS', 'DELIVERIES', 'TLOG'];
// Every role with a database opens the actor snapshots and the artifacts at start (src/server.ts): info only.
const DATABASE_ROLE_STREAMS = [...CORE_STREAMS, 'KV_actor-snapshots', 'OBJ_artifacts'];
// A role that runs tenant commands (the tenant actors): reads a tenant's commits and its snapshot, appends.
const TENANT_ACTORS = { ordered: ['LEDGER'], messages: ['LEDGER'], kvRead: ['actor-snapshots'], kvWrite: ['actor-snapshots'], publish: ['ledger.tenant.>'] };

const none: RoleGrants = { streamInfo: [], durables: [], ordered: [], messages: [], kvRead: [], kvWrite: [], objRead: [], objWrite: [], publish: [], subscribe: [], responds: false };
const grants = (g: Partial<RoleGrants>): RoleGrants => ({ ...none, ...g });

export const ROLE_GRANTS: Record<NatsRole, RoleGrants> = {
  // Owns the tenant actors: appends tenant facts, decides the workers' capture outcomes (capture.outcome) and
  // tells them whether a capture is still pending (capture.pending), limits rates, keeps certificates and
  // webhook keys, serves artifacts and the transparency log.
  // tlog.checkpoint.request: the verify endpoint asks a sequencer for a checkpoint; notary.certify: a signer
  // signs a certificate's hash (never a bundle's: notary.sign is the worker's).
  api: grants({
    streamInfo: [...DATABASE_ROLE_STREAMS, 'KV_ratelimits', 'KV_webhook-keys', 'KV_certificates'],
    ordered: [...TENANT_ACTORS.ordered, 'TLOG'],
    messages: [...TENANT_ACTORS.messages, 'TLOG'],
    kvRead: [...TENANT_ACTORS.kvRead, 'ratelimits', 'webhook-keys', 'certificates'],
    kvWrite: [...TENANT_ACTORS.kvWrite, 'ratelimits', 'webhook-keys', 'certificates'],
    objRead: ['artifacts'],
    publish: [...TENANT_ACTORS.publish, 'auth.key-revoked', 'tlog.checkpoint.request', 'notary.certify'],
    subscribe: ['auth.key-revoked', 'capture.outcome', 'capture.pending'],
    responds: true,
  }),
  // Renders hostile pages: feeds and takes capture jobs, writes artifacts and its attempt counts, asks the
  // signer for timestamps and signatures, asks the api whether a capture is still pending and reports outcomes
  // to it. It appends nothing to the ledger, reads no actor snapshot, webhook key, rate limit or delivery.
  worker: grants({
    streamInfo: [...DATABASE_ROLE_STREAMS, 'KV_capture-attempts'],
    durables: [
      { stream: 'LEDGER', name: 'job-feeder' },
      { stream: 'JOBS', name: 'capture-workers' },
    ],
    kvRead: ['capture-attempts'],
    kvWrite: ['capture-attempts'],
    // A put looks up the object's current entry first (a message read), and writes chunks and its entry.
    messages: ['OBJ_artifacts'],
    objWrite: ['artifacts'],
    publish: ['jobs.capture', 'capture.outcome', 'capture.pending', 'notary.describe', 'notary.timestamp', 'notary.sign'],
  }),
  // Holds the signing key: answers notary.* and records its key and TSA on the system subject.
  signer: grants({
    streamInfo: CORE_STREAMS,
    ordered: ['LEDGER'],
    messages: ['LEDGER'],
    publish: ['ledger.system'],
    subscribe: ['notary.describe', 'notary.timestamp', 'notary.sign', 'notary.certify'],
    responds: true,
  }),
  // Reads the log into Postgres; appends nothing.
  projector: grants({ streamInfo: DATABASE_ROLE_STREAMS, ordered: ['LEDGER'] }),
  // Turns capture outcomes into webhook deliveries and sends them, recording each attempt through the tenant actors.
  dispatcher: grants({
    streamInfo: [...DATABASE_ROLE_STREAMS, 'KV_webhook-keys'],
    durables: [
      { stream: 'LEDGER', name: 'webhook-feeder' },
      { stream: 'DELIVERIES', name: 'webhook-dispatchers' },
    ],
    ordered: TENANT_ACTORS.ordered,
    messages: TENANT_ACTORS.messages,
    kvRead: [...TENANT_ACTORS.kvRead, 'webhook-keys'],
    kvWrite: [...TENANT_ACTORS.kvWrite, 'webhook-keys'],
    publish: [...TENANT_ACTORS.publish, 'jobs.webhook'],
  }),
  // Fires schedules through the tenant actors.
  scheduler: grants({ streamInfo: DATABASE_ROLE_STREAMS, ...TENANT_ACTORS }),
  // The transparency log: reads the ledger, appends leaves, checkpoints and its key to TLOG, asks a signer to
  // time-stamp checkpoints, answers checkpoint requests.
  sequencer: grants({
    streamInfo: CORE_STREAMS,
    ordered: ['LEDGER', 'TLOG'],
    messages: ['TLOG'],
    publish: ['tlog.leaves', 'tlog.checkpoints', 'tlog.key', 'notary.timestamp', 'notary.describe'],
    subscribe: ['tlog.checkpoint.request'],
    responds: true,
  }),
};

// Belt and braces: refused even if an allow entry above were ever widened by mistake.
const NEVER = [
  '$JS.API.STREAM.DELETE.>',
  '$JS.API.STREAM.PURGE.>',
  '$JS.API.STREAM.MSG.DELETE.>',
  '$JS.API.STREAM.CREATE.>',
  '$JS.API.STREAM.UPDATE.>',
  '$JS.API.CONSUMER.DELETE.>',
];

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
    // Ordered consumers have random names (and a filter subject in the create subject).
    ...unique(ordered).flatMap((s) => [
      `$JS.API.CONSUMER.CREATE.${s}`,
      `$JS.API.CONSUMER.CREATE.${s}.>`,
      `$JS.API.CONSUMER.INFO.${s}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${s}.*`,
      `$JS.FC.${s}.>`,
    ]),
    ...unique(messages).flatMap((s) => [`$JS.API.STREAM.MSG.GET.${s}`, `$JS.API.DIRECT.GET.${s}`, `$JS.API.DIRECT.GET.${s}.>`]),
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
    const perms = u.role === 'operator' ? '' : `, permissions: ${permissions(u.user, u.role)}`;
    const password = typeof u.password === 'string' ? JSON.stringify(u.password) : `$${u.password.env}`;
    return `    { user: ${JSON.stringify(u.user)}, password: ${password}${perms} }`;
  });
  return ['authorization {', '  users: [', ...lines, '  ]', '}'].join('\n');
}

/** The users of docker-compose.yml: passwords come from the servers' environment (NATS_<ROLE>_PASSWORD). */
export const COMPOSE_NATS_USERS: NatsUser[] = (['operator', 'api', 'worker', 'signer', 'projector', 'dispatcher', 'scheduler', 'sequencer'] as const).map((role) => ({
  user: role,
  password: { env: `NATS_${role.toUpperCase()}_PASSWORD` },
  role,
}));
