import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { CONSOLE_SESSION_MAX_HOURS_CEILING } from '../config/config.js';

/**
 * The NATS topology, declared once: every stream, KV and object-store bucket, durable consumer and core subject,
 * with its options and the roles that read or write it. Provisioning (nats-provision.ts), the per-role
 * permissions (nats-permissions.ts, and so ops/nats/cluster.conf) and the table in docs/architecture.md are
 * derived from it; test/unit/ops/topology.unit.spec.ts fails when one of them disagrees.
 *
 * A new stream, bucket or subject is one entry here: name it, say what it holds and who uses it.
 */
export type NatsRole = 'api' | 'worker' | 'signer' | 'projector' | 'dispatcher' | 'scheduler' | 'sequencer';

export const NATS_ROLES: readonly NatsRole[] = [
  'api',
  'worker',
  'signer',
  'projector',
  'dispatcher',
  'scheduler',
  'sequencer',
];
/** Roles that run tenant commands through the tenant actors (they append tenant facts and keep snapshots). */
const TENANT_ACTOR_ROLES: NatsRole[] = ['api', 'dispatcher', 'scheduler'];
/** Roles with a database: each opens the actor snapshots and the artifacts at start (src/roles/database-runtime.ts). */
const DATABASE_ROLES: NatsRole[] = ['api', 'worker', 'projector', 'dispatcher', 'scheduler'];
/** Roles that open the profile vault (src/profiles/profile-vault.ts): it reads the data keys and the contents together. */
const PROFILE_VAULT_READERS: NatsRole[] = ['api', 'worker', 'sequencer'];

export interface StreamDeclaration {
  name: string;
  /** What it holds, for the docs table. */
  holds: string;
  config: Partial<StreamConfig> & { subjects: string[] };
  /** Roles that read it with ordered (ephemeral) consumers. */
  ordered: NatsRole[];
  /** Roles that read single messages (by sequence, or last by subject). */
  messages: NatsRole[];
  /** Roles that only inspect it (every role checks the core streams at start). */
  info: NatsRole[];
  /** Copied to the archive (docs/operators.md, The archive): every message as stored. */
  archive?: 'copy';
}

export interface BucketDeclaration {
  kind: 'kv' | 'object';
  name: string;
  holds: string;
  /** KV options besides replicas (history, TTL in ms). */
  options: { history?: number; ttl?: number };
  read: NatsRole[];
  write: NatsRole[];
  /** Roles that open it without reading or writing (an info call at start). */
  info: NatsRole[];
  /** Copied to the archive: as stored, or each value sealed again under the archive's key-wrapping key. */
  archive?: 'copy' | 'sealed';
}

export interface DurableDeclaration {
  stream: string;
  name: string;
  owner: NatsRole;
  /** Roles besides the owner that read its consumer info (the operators' capacity view). */
  infoBy?: readonly NatsRole[];
}

export interface SubjectDeclaration {
  subject: string;
  holds: string;
  /** 'event': appended to a stream; 'request': core request/reply; 'notice': core fire-and-forget. */
  kind: 'event' | 'request' | 'notice';
  publish: NatsRole[];
  /** Roles that subscribe (a request's responders answer through allow_responses). */
  subscribe: NatsRole[];
}

const stream = (d: StreamDeclaration): StreamDeclaration => d;
const bucket = (d: Omit<BucketDeclaration, 'info'> & { info?: NatsRole[] }): BucketDeclaration => ({ info: [], ...d });
const subject = (d: SubjectDeclaration): SubjectDeclaration => d;
const ALL = [...NATS_ROLES];

/** An immutable stream: never deleted, never purged (decision 1; nats-server #4196 makes a purge dangerous). */
const IMMUTABLE = {
  retention: RetentionPolicy.Limits,
  storage: StorageType.File,
  discard: DiscardPolicy.New,
  deny_delete: true,
  deny_purge: true,
  allow_direct: true,
  duplicate_window: nanos(2 * 60_000),
} as const;
const WORK_QUEUE = {
  retention: RetentionPolicy.Workqueue,
  storage: StorageType.File,
  duplicate_window: nanos(10 * 60_000),
} as const;

export const STREAMS = {
  ledger: stream({
    name: 'LEDGER',
    holds: 'the truth: tenant commits on `ledger.tenant.<tenantId>`, system facts on `ledger.system`',
    config: { ...IMMUTABLE, subjects: ['ledger.>'] },
    ordered: ['api', 'signer', 'projector', 'dispatcher', 'scheduler', 'sequencer'],
    messages: [...TENANT_ACTOR_ROLES, 'signer'],
    info: ALL,
    archive: 'copy',
  }),
  jobs: stream({
    name: 'JOBS',
    holds: 'work queue of capture jobs, filled from capture.submitted events by the job feeder (decision 3)',
    config: { ...WORK_QUEUE, subjects: ['jobs.capture'] },
    ordered: [],
    messages: [],
    info: ALL,
  }),
  deliveries: stream({
    name: 'DELIVERIES',
    holds: 'work queue of webhook deliveries, filled from capture outcome events by the webhook feeder',
    config: { ...WORK_QUEUE, subjects: ['jobs.webhook'] },
    ordered: [],
    messages: [],
    info: ALL,
  }),
  tlog: stream({
    name: 'TLOG',
    holds: 'the transparency log: leaf batches, checkpoints and the log key (docs/transparency.md)',
    config: { ...IMMUTABLE, subjects: ['tlog.leaves', 'tlog.checkpoints', 'tlog.key'] },
    ordered: ['api', 'sequencer'],
    messages: ['api', 'sequencer'],
    info: ALL,
    archive: 'copy',
  }),
} as const;

export const BUCKETS = {
  artifacts: bucket({
    kind: 'object',
    name: 'artifacts',
    holds: 'screenshots, HTML, headers and bundles, `<captureId>/<attemptKey>/<artifact>`, write-once',
    options: {},
    read: ['api'],
    write: ['worker'],
    info: DATABASE_ROLES,
  }),
  rateLimits: bucket({
    kind: 'kv',
    name: 'ratelimits',
    holds:
      'rate limits: `<limiter key>.log` (the exact rolling log), `<limiter key>.<window>` (a counter above 2000 per window)',
    options: { history: 1, ttl: 5 * 60_000 },
    read: ['api'],
    write: ['api'],
  }),
  snapshots: bucket({
    kind: 'kv',
    name: 'actor-snapshots',
    holds: 'tenant actor snapshots, `<tenantId>` (caches, never truth)',
    options: { history: 1 },
    read: TENANT_ACTOR_ROLES,
    write: TENANT_ACTOR_ROLES,
    info: DATABASE_ROLES,
  }),
  webhookKeys: bucket({
    kind: 'kv',
    name: 'webhook-keys',
    holds: 'per-webhook keys that seal webhook secrets (crypto-shredding)',
    options: { history: 1 },
    read: ['api', 'dispatcher', 'sequencer'],
    write: ['api', 'dispatcher'],
    archive: 'sealed',
  }),
  profileKeys: bucket({
    kind: 'kv',
    name: 'profile-keys',
    holds:
      "each tenant's browser-profile data key, `<tenantId>`, wrapped by PROFILE_KEY (keyId and AES-256-GCM sealed key)",
    options: { history: 1 },
    read: PROFILE_VAULT_READERS,
    write: ['api', 'worker'],
    // Wrapped by PROFILE_KEY, which stays with the deployment's secrets (docs/operators.md, The archive).
    archive: 'copy',
  }),
  profileContents: bucket({
    kind: 'kv',
    name: 'profile-contents',
    holds:
      "browser profiles' latest contents, `<tenantId>.<profileId>`, sealed (AES-256-GCM) under the tenant's data key; deleted with the profile, never purged",
    options: { history: 1 },
    read: PROFILE_VAULT_READERS,
    write: ['api'],
    archive: 'copy',
  }),
  attempts: bucket({
    kind: 'kv',
    name: 'capture-attempts',
    holds: 'attempt counts per capture, `<captureId>` (compare-and-set)',
    options: { history: 1, ttl: 7 * 24 * 3600_000 },
    read: ['worker'],
    write: ['worker'],
  }),
  corroborationClaims: bucket({
    kind: 'kv',
    name: 'corroboration-claims',
    holds:
      "which worker took a member of a corroborated set, `<setId>.<workerId>` → captureId, written once (create): a worker holding one gives the set's other members back",
    // Only needed while the set's members render; entries fall off by age, never by a purge (#4196).
    options: { history: 1, ttl: 24 * 3600_000 },
    read: ['worker'],
    write: ['worker'],
  }),
  consoleSessions: bucket({
    kind: 'kv',
    name: 'console-sessions',
    holds:
      'console sign-in sessions, `<tenant|operator>.<sha256 of the session id>` (never the id or a key); ended by delete, never purge',
    // No per-message TTL before NATS 2.11: the bucket's TTL drops an entry not written for the longest lifetime.
    options: { history: 1, ttl: CONSOLE_SESSION_MAX_HOURS_CEILING * 3600_000 },
    read: ['api'],
    write: ['api'],
  }),
  operatorChecks: bucket({
    kind: 'kv',
    name: 'operator-checks',
    holds:
      "the last result of each operator check, `<check>` (ledger-audit, log-audit, log-monitor, storage-verify), and `log-monitor-state` (checkpoints the API's monitor has seen); written by the CLI's operator user and the api, never purged",
    // A few revisions for `nats kv history`; older ones fall off by the per-subject limit, never by a purge (#4196).
    options: { history: 5 },
    read: ['api'],
    write: ['api'],
  }),
  certificates: bucket({
    kind: 'kv',
    name: 'certificates',
    holds: 'signed capture certificates, `<captureId>`, written once',
    options: { history: 1 },
    read: ['api', 'sequencer'],
    write: ['api'],
    archive: 'copy',
  }),
  archiveState: bucket({
    kind: 'kv',
    name: 'ledger-archive',
    holds:
      "the archiver's `lease` (which process archives; docs/operators.md, The archive) and its `status` (where the archive stands)",
    options: { history: 1 },
    read: ['api', 'sequencer'],
    write: ['sequencer'],
  }),
} as const;

export const DURABLES = {
  jobFeeder: { stream: STREAMS.ledger.name, name: 'job-feeder', owner: 'worker' },
  captureWorkers: { stream: STREAMS.jobs.name, name: 'capture-workers', owner: 'worker', infoBy: ['api'] },
  webhookFeeder: { stream: STREAMS.ledger.name, name: 'webhook-feeder', owner: 'dispatcher' },
  webhookDispatchers: { stream: STREAMS.deliveries.name, name: 'webhook-dispatchers', owner: 'dispatcher' },
  watch: { stream: STREAMS.ledger.name, name: 'watch', owner: 'api' },
} as const satisfies Record<string, DurableDeclaration>;

export const SUBJECTS = {
  tenantEvents: subject({
    subject: 'ledger.tenant.>',
    kind: 'event',
    holds: 'tenant commits, one per actor turn',
    publish: TENANT_ACTOR_ROLES,
    subscribe: [],
  }),
  systemEvents: subject({
    subject: 'ledger.system',
    kind: 'event',
    holds: 'system facts: signing keys, TSA certificates',
    publish: ['signer'],
    subscribe: [],
  }),
  captureJobs: subject({
    subject: 'jobs.capture',
    kind: 'event',
    holds: 'capture jobs fed from capture.submitted events',
    publish: ['worker'],
    subscribe: [],
  }),
  webhookJobs: subject({
    subject: 'jobs.webhook',
    kind: 'event',
    holds: 'webhook deliveries fed from capture outcomes',
    publish: ['dispatcher'],
    subscribe: [],
  }),
  logLeaves: subject({
    subject: 'tlog.leaves',
    kind: 'event',
    holds: 'transparency-log leaf batches',
    publish: ['sequencer'],
    subscribe: [],
  }),
  logCheckpoints: subject({
    subject: 'tlog.checkpoints',
    kind: 'event',
    holds: 'signed checkpoints',
    publish: ['sequencer'],
    subscribe: [],
  }),
  logKey: subject({
    subject: 'tlog.key',
    kind: 'event',
    holds: "the log's verifier key",
    publish: ['sequencer'],
    subscribe: [],
  }),
  keyRevoked: subject({
    subject: 'auth.key-revoked',
    kind: 'notice',
    holds: "a revoked key's hash: every API process evicts it from its cache",
    publish: ['api'],
    subscribe: ['api'],
  }),
  captureOutcome: subject({
    subject: 'capture.outcome',
    kind: 'request',
    holds: "a worker's CompleteCapture / FailCapture, decided by an api process's tenant actor",
    publish: ['worker'],
    subscribe: ['api'],
  }),
  capturePending: subject({
    subject: 'capture.pending',
    kind: 'request',
    holds: 'a worker asks whether a capture is still pending before rendering it',
    publish: ['worker'],
    subscribe: ['api'],
  }),
  notaryDescribe: subject({
    subject: 'notary.describe',
    kind: 'request',
    holds: "the signer's keys and TSA",
    publish: ['worker', 'sequencer', 'api'],
    subscribe: ['signer'],
  }),
  notaryTimestamp: subject({
    subject: 'notary.timestamp',
    kind: 'request',
    holds: 'an RFC 3161 timestamp of a digest',
    publish: ['worker', 'sequencer'],
    subscribe: ['signer'],
  }),
  notarySign: subject({
    subject: 'notary.sign',
    kind: 'request',
    holds: "a bundle hash signed with the deployment's key",
    publish: ['worker'],
    subscribe: ['signer'],
  }),
  notaryCertify: subject({
    subject: 'notary.certify',
    kind: 'request',
    holds: "a certificate's hash signed",
    publish: ['api'],
    subscribe: ['signer'],
  }),
  notarySignPdf: subject({
    subject: 'notary.sign-pdf',
    kind: 'request',
    holds: "a certificate PDF's byte-range digest signed (PAdES CMS)",
    publish: ['api'],
    subscribe: ['signer'],
  }),
  checkpointRequest: subject({
    subject: 'tlog.checkpoint.request',
    kind: 'request',
    holds: 'ask a sequencer for a checkpoint now (verify, on demand)',
    publish: ['api'],
    subscribe: ['sequencer'],
  }),
} as const;

/** The stream behind a bucket, as JetStream names it. */
export const bucketStream = (b: Pick<BucketDeclaration, 'kind' | 'name'>): string =>
  b.kind === 'kv' ? `KV_${b.name}` : `OBJ_${b.name}`;
