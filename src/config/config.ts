import { availableParallelism, totalmem } from 'node:os';
import ipaddr from 'ipaddr.js';
import {
  type Complain,
  checked,
  type EnvField,
  type EnvOutput,
  mapped,
  oneOf,
  optionalString,
  parseEnv,
} from './env-fields.js';
import { parseOidcProviders } from './console-oidc-providers.js';
import { parseLogWitnesses } from './log-witnesses.js';
import { STORAGE_ENV, storageSettings } from './storage-config.js';
import { parseVantages } from './vantages.js';
import { DEFAULT_DIFF_TIME_LIMIT_MS } from '../watch/diff-bounds.js';

/** Every run-contract variable of DESIGN.md, parsed once at start (decision 8). */

const csv = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/**
 * Default WORKER_CONCURRENCY: captures running at once in one worker. A capture mostly waits (for the
 * network, the settle window, the TSA), so two per core keep the cores busy; each also holds a renderer
 * process and its page (about 250 MB for ordinary pages), so memory bounds it too, after 1 GB kept for the
 * browser, the service and the OS (docs/capture.md, Capture throughput; figures in docs/performance.md).
 */
export function defaultWorkerConcurrency(cores: number, memoryBytes: number): number {
  const byCpu = 2 * Math.max(1, cores);
  const byMemory = Math.floor((memoryBytes - 1024 ** 3) / (250 * 1024 ** 2));
  return Math.max(1, Math.min(byCpu, byMemory, 16));
}

/**
 * The longest a console session may live: the TTL of its KV bucket (src/infra/topology.ts), which is declared
 * once and provisioned before any process reads its configuration, so the setting can shorten it, not lengthen it.
 */
export const CONSOLE_SESSION_MAX_HOURS_CEILING = 12;

const integer =
  (name: string, def: number, min: number, max: number): EnvField<number> =>
  (v, complain) => {
    if (v === undefined || v.trim() === '') return def;
    if (!/^\d+$/.test(v.trim())) {
      complain(`${name} must be a whole number, got '${v}'`);
      return def;
    }
    const n = Number(v.trim());
    if (n < min || n > max) complain(`${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  };

/** Comma-separated seconds, e.g. `60,300,900`. */
const seconds = (name: string, def: string): EnvField<number[]> =>
  mapped((v, complain) => {
    const parts = csv(v ?? def);
    if (parts.length === 0 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p)))
      complain(`${name} must be comma-separated seconds, got '${v}'`);
    return parts.map(Number);
  });

const isCidr = (value: string): boolean => {
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
};

const isBareOrigin = (value: string): boolean => {
  if (!URL.canParse(value)) return true; // reported by urlString
  const u = new URL(value);
  return (
    (u.protocol === 'http:' || u.protocol === 'https:') &&
    (u.pathname === '/' || u.pathname === '') &&
    !u.search &&
    !u.hash &&
    !u.username &&
    !u.password
  );
};

const urlString = (name: string) => checked((v) => URL.canParse(v), `${name} must be an absolute URL`);

/** Each of a parser's errors (a JSON or list variable, parsed by its own module) is a complaint. */
function complainEach(errors: string[], complain: Complain): [] {
  for (const message of errors) complain(message);
  return [];
}

const ROLE_NAMES = ['api', 'worker', 'signer', 'projector', 'dispatcher', 'scheduler', 'sequencer', 'witness'] as const;
export type Role = (typeof ROLE_NAMES)[number];
/**
 * The witness (src/witness/) is another party's check on the log, not part of the service: it is never among the
 * default roles and runs alone in its process (no NATS, no database; docs/transparency.md, "Running a witness").
 */
const DEFAULT_ROLES = ROLE_NAMES.filter((r) => r !== 'witness');

/** Every role but the signer, the transparency-log sequencer and the witness reads or writes the projections. */
export const rolesUsePostgres = (roles: ReadonlySet<Role>): boolean =>
  [...roles].some((r) => r !== 'signer' && r !== 'sequencer' && r !== 'witness');

const envSchema = {
  PORT: integer('PORT', 8080, 0, 65535),
  HOST: mapped((v) => v ?? '0.0.0.0'),
  PUBLIC_BASE_URL: urlString('PUBLIC_BASE_URL'),
  /**
   * The replay origin (src/api/replay-server.ts): archived pages run there, never on the API's origin. REPLAY_PORT
   * is where its listener binds (0: any free port; `make run` uses PORT+1); REPLAY_ORIGIN is its origin as browsers
   * reach it (behind a proxy: its own host name), by default PUBLIC_BASE_URL's scheme with another host name for
   * loopback (localhost ↔ 127.0.0.1) and the listener's port.
   */
  REPLAY_PORT: integer('REPLAY_PORT', 0, 0, 65535),
  REPLAY_ORIGIN: (raw: string | undefined, complain: Complain) => {
    const v = urlString('REPLAY_ORIGIN')(raw, complain);
    if (v !== undefined && !isBareOrigin(v))
      complain('REPLAY_ORIGIN must be an origin (scheme://host[:port]), without a path, query or credentials');
    return v;
  },
  DATA_DIR: mapped((v) => v ?? './data'),
  NATS_URL: optionalString,
  /** This process's NATS user and password, when the servers require them (make cluster, docker-compose). */
  NATS_USER: optionalString,
  NATS_PASSWORD: optionalString,
  DATABASE_URL: checked(
    (v) => /^postgres(ql)?:\/\//.test(v),
    'DATABASE_URL must be a postgres:// or postgresql:// URL',
  ),
  ADMIN_KEY: checked((v) => v.length >= 16, 'ADMIN_KEY must be at least 16 characters'),
  /**
   * The analysts' credential: the report routes (GET /v1/admin/reports/{name}) and nothing else, by Bearer or an
   * analyst console session (docs/security.md, Analyst access). Unset: the reports take the admin credential only.
   */
  ANALYST_KEY: checked((v) => v.length >= 16, 'ANALYST_KEY must be at least 16 characters'),
  CAPTURE_API_KEY: checked((v) => v.length >= 16, 'CAPTURE_API_KEY must be at least 16 characters'),
  /** Bearer token for GET /metrics; unset: only clients on this machine may scrape. */
  METRICS_TOKEN: checked((v) => v.length >= 16, 'METRICS_TOKEN must be at least 16 characters'),
  CORS_ORIGINS: mapped((v) => csv(v)),
  SIGNING_KEY: checked(
    (v) => v === 'none' || Buffer.from(v, 'base64').length === 32,
    "SIGNING_KEY must be 'none' or the base64 encoding of a 32-byte Ed25519 seed",
  ),
  /**
   * The keys that wrap each tenant's browser-profile data key (docs/profiles.md): `<keyId>:<base64 of 32 bytes>`,
   * comma-separated; the first wraps, the others still open data keys wrapped before a rotation.
   * Unset: one generated once into DATA_DIR (src/profiles/profile-key.ts).
   */
  PROFILE_KEY: checked(
    (v) =>
      csv(v).every(
        (k) => /^[A-Za-z0-9_-]{1,32}:/.test(k) && Buffer.from(k.slice(k.indexOf(':') + 1), 'base64').length === 32,
      ),
    'PROFILE_KEY must be comma-separated <keyId>:<base64 of 32 bytes> (keyId: letters, digits, _ or -)',
  ),
  TSA_URL: checked((v) => v === 'none' || URL.canParse(v), "TSA_URL must be 'none' or an absolute URL"),
  TSA_CA_CERTS: mapped((v) => csv(v)),
  CHROMIUM_PATH: optionalString,
  ALLOW_PRIVATE_TARGETS: mapped((v) => csv(v)),
  BATCH_MAX: integer('BATCH_MAX', 20, 1, 100),
  RATE_LIMIT_IP_PER_MIN: integer('RATE_LIMIT_IP_PER_MIN', 600, 1, 10_000_000),
  RATE_LIMIT_TENANT_PER_MIN: integer('RATE_LIMIT_TENANT_PER_MIN', 1200, 1, 10_000_000),
  /**
   * Where the rate limits are counted: `nats` (a KV bucket every API process shares) or `memory` (this process
   * alone; only right where it is the deployment's one API process). Unset: `memory` when the process runs its
   * own embedded nats-server (`make run`, whose NATS no other process can reach), else `nats`.
   */
  RATE_LIMIT_STORE: oneOf(['nats', 'memory'], 'RATE_LIMIT_STORE must be nats or memory'),
  WEBHOOK_RETRY_DELAYS: seconds('WEBHOOK_RETRY_DELAYS', '60,300,900'),
  /**
   * Waits (seconds) before a capture is tried again after a failure that was the service's own (no browser page in
   * time, browser crash, worker stopped, storing failed); their number is how many such failures a capture bears
   * before it fails as service_overloaded / browser_crashed (docs/capture.md, Capture under load).
   */
  CAPTURE_RETRY_DELAYS: seconds('CAPTURE_RETRY_DELAYS', '30,120,300,600,600'),
  /** Extra CAs trusted for webhook delivery and ping: comma-separated PEM file paths (private PKI, tests). */
  WEBHOOK_CA_CERTS: mapped((v) => csv(v)),
  CAPTURE_TIMEOUT_MS: integer('CAPTURE_TIMEOUT_MS', 30_000, 1000, 600_000),
  CAPTURE_BACKLOG_MAX: integer('CAPTURE_BACKLOG_MAX', 1000, 1, 10_000_000),
  VERIFY_MAX_BYTES: integer('VERIFY_MAX_BYTES', 100 * 1024 * 1024, 1024, 10 * 1024 * 1024 * 1024),
  /**
   * How long one diff of two captures (GET /v1/captures/{id}/diff and its image, evidence and certificate, and each
   * watched run's comparison) may run in its worker thread before it is stopped: 422 naming the bound (docs/watch.md).
   */
  DIFF_TIME_LIMIT_MS: integer('DIFF_TIME_LIMIT_MS', DEFAULT_DIFF_TIME_LIMIT_MS, 100, 600_000),
  WORKER_CONCURRENCY: integer(
    'WORKER_CONCURRENCY',
    defaultWorkerConcurrency(availableParallelism(), totalmem()),
    1,
    64,
  ),
  /** Replicas of every stream, KV and object-store bucket (DESIGN decision 10); more than the cluster has stops the process. */
  NATS_REPLICAS: integer('NATS_REPLICAS', 1, 1, 5),
  /** The console's remote browser (docs/profiles-remote-browser.md): its idle and hard limits, and how many run at once. */
  REMOTE_BROWSER_IDLE_MS: integer('REMOTE_BROWSER_IDLE_MS', 5 * 60_000, 1000, 3_600_000),
  REMOTE_BROWSER_MAX_MS: integer('REMOTE_BROWSER_MAX_MS', 30 * 60_000, 1000, 4 * 3_600_000),
  REMOTE_BROWSER_PER_TENANT: integer('REMOTE_BROWSER_PER_TENANT', 2, 1, 50),
  REMOTE_BROWSER_MAX: integer('REMOTE_BROWSER_MAX', 8, 1, 500),
  /** Tenant actors idle this long are dropped from memory (after a snapshot); the next command re-hydrates. */
  ACTOR_IDLE_MS: integer('ACTOR_IDLE_MS', 5 * 60_000, 1000, 24 * 3_600_000),
  ROLES: mapped((v, complain): Set<Role> => {
    const roles = csv(v ?? DEFAULT_ROLES.join(','));
    const unknown = roles.filter((r) => !(ROLE_NAMES as readonly string[]).includes(r));
    if (unknown.length > 0 || roles.length === 0) {
      complain(
        `ROLES must be a comma-separated subset of ${ROLE_NAMES.join(',')}; unknown: ${unknown.join(',') || '(empty)'}`,
      );
      return new Set();
    }
    if (roles.includes('witness') && roles.length > 1) {
      complain('ROLES=witness runs alone: a witness is an independent check on the log, not one of its roles');
      return new Set();
    }
    return new Set(roles as Role[]);
  }),
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (rate limits per IP): unset/false none,
   * true all, a number of hops, or comma-separated addresses/CIDRs of the load balancers.
   */
  TRUST_PROXY: mapped((v, complain): boolean | number | string => {
    if (v === undefined || v === 'false') return false;
    if (v === 'true') return true;
    if (/^\d+$/.test(v)) return Number(v);
    const parts = csv(v);
    const bad = parts.filter((p) => !ipaddr.isValid(p) && !isCidr(p));
    if (bad.length > 0 || parts.length === 0)
      complain(
        `TRUST_PROXY must be true, false, a hop count or comma-separated addresses/CIDRs; not understood: ${bad.join(',') || v}`,
      );
    return parts.join(',');
  }),
  /**
   * Where a worker gets its bundles signed: `local` (default) — the worker role brings the signer role into its
   * process, as one process of `make run` must; `remote` — it asks the signer processes over NATS and never
   * holds the key (make cluster, docker-compose; docs/security.md).
   */
  SIGNER: (raw: string | undefined, complain: Complain) =>
    oneOf(['local', 'remote'], 'SIGNER must be local or remote')(raw, complain) ?? 'local',
  LOG_LEVEL: mapped((v) => v ?? 'info'),
  /**
   * `true`: the process stops, as on SIGTERM, once the process that started it is gone, instead of running on as an
   * orphan nobody will stop (the local cluster and the tests set it for the processes they start).
   */
  EXIT_WITH_PARENT: (raw: string | undefined, complain: Complain) =>
    oneOf(['true', 'false'], 'EXIT_WITH_PARENT must be true or false')(raw, complain) === 'true',
  /** The transparency log's checkpoint (note) key, separate from SIGNING_KEY: base64 32-byte seed; unset → generated once into DATA_DIR by the sequencer. */
  LOG_SIGNING_KEY: checked(
    (v) => Buffer.from(v, 'base64').length === 32,
    'LOG_SIGNING_KEY must be the base64 encoding of a 32-byte Ed25519 seed',
  ),
  /** The log's origin line and key name (docs/transparency.md); default: PUBLIC_BASE_URL's host and path + /v1/log. */
  LOG_ORIGIN: checked((v) => !/\s|\+/.test(v), 'LOG_ORIGIN must not contain spaces or +'),
  /** The archive (docs/operators.md, The archive): `s3://<bucket>/<prefix>`, on the S3_* endpoint and credentials. */
  ARCHIVE_URL: checked(
    (v) => /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(v),
    'ARCHIVE_URL must be s3://<bucket>/<prefix>',
  ),
  /** Days each archive segment is kept under S3 Object Lock (compliance mode). */
  ARCHIVE_RETENTION_DAYS: integer('ARCHIVE_RETENTION_DAYS', 3650, 1, 36_500),
  /** How often the scheduler role reads the active schedules and fires the due ones (cron has minute resolution). */
  SCHEDULER_TICK_MS: integer('SCHEDULER_TICK_MS', 10_000, 100, 60_000),
  /** The archiver cuts a segment this often, or at ARCHIVE_SEGMENT_RECORDS records, when anything is new. */
  ARCHIVE_INTERVAL_MS: integer('ARCHIVE_INTERVAL_MS', 1000, 100, 60_000),
  ARCHIVE_SEGMENT_RECORDS: integer('ARCHIVE_SEGMENT_RECORDS', 5000, 1, 100_000),
  /** A console session ends after this long without a request (docs/security.md, Console sessions). */
  CONSOLE_SESSION_IDLE_MINUTES: integer('CONSOLE_SESSION_IDLE_MINUTES', 60, 1, CONSOLE_SESSION_MAX_HOURS_CEILING * 60),
  /** A console session ends this long after sign-in, however busy (at most the session bucket's TTL). */
  CONSOLE_SESSION_MAX_HOURS: integer(
    'CONSOLE_SESSION_MAX_HOURS',
    CONSOLE_SESSION_MAX_HOURS_CEILING,
    1,
    CONSOLE_SESSION_MAX_HOURS_CEILING,
  ),
  /**
   * OpenID providers for console sign-in and how a claim maps to a tenant and scopes: a JSON array
   * (src/config/console-oidc-providers.ts; docs/api.md, Signing in with OpenID Connect). Unset: API keys only.
   */
  CONSOLE_OIDC_PROVIDERS: mapped((v, complain) => {
    const parsed = parseOidcProviders(v);
    return 'errors' in parsed ? complainEach(parsed.errors, complain) : parsed.providers;
  }),
  /**
   * Vantage points a capture may be made from (`options.vantage`): a JSON array of {id, label, region, upstream,
   * expectedExit?, exitProbeUrl?} (src/config/vantages.ts; docs/evidence.md, Vantage points). Unset: none.
   */
  VANTAGES: mapped((v, complain) => {
    const parsed = parseVantages(v);
    return 'errors' in parsed ? complainEach(parsed.errors, complain) : parsed.vantages;
  }),
  /** How often the sequencer signs a checkpoint when the log grew. */
  LOG_CHECKPOINT_INTERVAL_MS: integer('LOG_CHECKPOINT_INTERVAL_MS', 10_000, 100, 24 * 3_600_000),
  /** Witnesses asked to cosign each checkpoint: `<vkey> <URL>` per comma or line (src/config/log-witnesses.ts). */
  LOG_WITNESSES: mapped((v, complain) => {
    const parsed = parseLogWitnesses(v);
    return 'errors' in parsed ? complainEach(parsed.errors, complain) : parsed.witnesses;
  }),
  /** How many of LOG_WITNESSES must cosign a checkpoint for the verify result to call it witnessed; default: all. */
  LOG_WITNESS_QUORUM: checked((v) => /^\d+$/.test(v), 'LOG_WITNESS_QUORUM must be a whole number'),
  /** How long the sequencer waits for the witnesses' cosignatures before it publishes a checkpoint without them. */
  LOG_WITNESS_TIMEOUT_MS: integer('LOG_WITNESS_TIMEOUT_MS', 5_000, 100, 120_000),
  /** ROLES=witness: the witness's key name (default: PUBLIC_BASE_URL's host and path + /witness). */
  WITNESS_NAME: checked((v) => !/\s|\+/.test(v), 'WITNESS_NAME must not contain spaces or +'),
  /** ROLES=witness: its Ed25519 key, base64 32-byte seed; unset → generated once into DATA_DIR/witness-key.seed. */
  WITNESS_SIGNING_KEY: checked(
    (v) => Buffer.from(v, 'base64').length === 32,
    'WITNESS_SIGNING_KEY must be the base64 encoding of a 32-byte Ed25519 seed',
  ),
  /** ROLES=witness: the verifier keys (GET /v1/log/key) of the logs it witnesses, comma-separated. */
  WITNESS_LOG_KEYS: mapped((v) => csv(v)),
  /** Where artifacts are stored: ARTIFACT_STORE, S3_*, RETENTION_DEFAULT_DAYS (src/config/storage-config.ts). */
  ...STORAGE_ENV,
} satisfies Record<string, EnvField<unknown>>;

/** The name of every variable the schema parses. */
export type ConfigVariable = keyof typeof envSchema;
export const CONFIG_VARIABLES = Object.keys(envSchema) as ConfigVariable[];

export type Config = Omit<EnvOutput<typeof envSchema>, 'LOG_WITNESS_QUORUM'> & {
  PUBLIC_BASE_URL: string;
  LOG_ORIGIN: string;
  /** How many of LOG_WITNESSES must cosign (0 when there are none). */
  LOG_WITNESS_QUORUM: number;
  WITNESS_NAME: string;
};

/** The log's origin when LOG_ORIGIN is unset: PUBLIC_BASE_URL's host and path + /v1/log. */
export function defaultLogOrigin(publicBaseUrl: string): string {
  const base = new URL(publicBaseUrl);
  return `${base.host}${base.pathname.replace(/\/+$/, '')}/v1/log`;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parse the environment; throws ConfigError whose message names every bad variable and why. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = parseEnv(envSchema, env);
  if (!result.ok) {
    const lines = result.issues.map(({ name, message }) =>
      message.startsWith(name) ? message : `${name}: ${message}`,
    );
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const cfg = result.data;
  // A worker signs in its own process unless told that signers run elsewhere (SIGNER=remote).
  if (cfg.ROLES.has('worker') && cfg.SIGNER === 'local') cfg.ROLES.add('signer');
  const publicBaseUrl = (cfg.PUBLIC_BASE_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, '');
  const base = new URL(publicBaseUrl);
  // Replayed pages on the verifier's origin could rewrite its verdict: the two must differ.
  const replayOrigin = cfg.REPLAY_ORIGIN ? new URL(cfg.REPLAY_ORIGIN).origin : undefined;
  if (replayOrigin === base.origin)
    throw new ConfigError(
      `invalid configuration:\n  REPLAY_ORIGIN must be another origin than PUBLIC_BASE_URL (${base.origin}): archived pages must not run on the verifier's origin`,
    );
  // The analysts' key must grant only the reports: equal to another credential, it would grant that one's powers too.
  for (const other of ['ADMIN_KEY', 'CAPTURE_API_KEY'] as const)
    if (cfg.ANALYST_KEY !== undefined && cfg.ANALYST_KEY === cfg[other])
      throw new ConfigError(
        `invalid configuration:\n  ANALYST_KEY must differ from ${other}: the analysts' key grants the reports only`,
      );
  // The storage settings go together (S3_BUCKET with ARTIFACT_STORE=s3, a readable credentials file).
  try {
    storageSettings(cfg);
  } catch (err) {
    throw new ConfigError(`invalid configuration:\n  ${(err as Error).message}`);
  }
  if (cfg.REPLAY_PORT !== 0 && cfg.REPLAY_PORT === cfg.PORT)
    throw new ConfigError(`invalid configuration:\n  REPLAY_PORT must differ from PORT (${cfg.PORT})`);
  const witnessCount = cfg.LOG_WITNESSES.length;
  const quorum = cfg.LOG_WITNESS_QUORUM === undefined ? witnessCount : Number(cfg.LOG_WITNESS_QUORUM);
  if (witnessCount > 0 ? quorum < 1 || quorum > witnessCount : cfg.LOG_WITNESS_QUORUM !== undefined)
    throw new ConfigError(
      `invalid configuration:\n  LOG_WITNESS_QUORUM must be between 1 and the ${witnessCount} witnesses of LOG_WITNESSES; got ${cfg.LOG_WITNESS_QUORUM}`,
    );
  if (cfg.ROLES.has('witness') && cfg.WITNESS_LOG_KEYS.length === 0)
    throw new ConfigError(
      'invalid configuration:\n  WITNESS_LOG_KEYS must name the verifier key of at least one log (GET /v1/log/key) for ROLES=witness',
    );
  return {
    ...cfg,
    LOG_WITNESS_QUORUM: quorum,
    WITNESS_NAME: cfg.WITNESS_NAME ?? `${base.host}${base.pathname.replace(/\/+$/, '')}/witness`,
    REPLAY_ORIGIN: replayOrigin,
    PUBLIC_BASE_URL: publicBaseUrl,
    LOG_ORIGIN: cfg.LOG_ORIGIN ?? defaultLogOrigin(publicBaseUrl),
  };
}
