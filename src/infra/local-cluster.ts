import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from '@nats-io/transport-node';
import { provisionNats } from './nats-provision.js';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Role } from '../config/config.js';
import { startEmbeddedPostgres, type EmbeddedPg } from './embedded-postgres.js';
import { freePort } from './free-port.js';
import { type NatsCluster, startNatsCluster } from './nats-cluster.js';
import { natsAuthorizationConfig, type NatsUser } from './nats-permissions.js';
import { projectRoot } from './project-root.js';
import { stopChild } from './stop-child.js';
import { defaultLogOrigin } from '../config/config.js';
import { noteSignerFromSeed, verifierKeyString } from '../transparency/checkpoint.js';
import { cosignerFromSeed } from '../witness/cosigner.js';

const STARTUP_LIMIT_MS = 600_000;
/** Where under the cluster's `dir` its Postgres keeps its data (initialised at the first start when empty). */
export const POSTGRES_DATA_DIR = 'postgres';

/**
 * The scaled deployment on one machine (`make cluster`, the failure tests, the scaling bench): three clustered
 * nats-servers on loopback, one Postgres, and every role in its own OS process with its own DATA_DIR, as on
 * separate hosts — nothing is shared on disk. Each process gets only the secrets its role uses: the admin key
 * goes to the API processes, the signing seed to the signers (docs/scaling.md).
 */
export type RoleName = Role;

export interface RoleProcess {
  name: string;
  role: RoleName;
  port: number;
  url: string;
  dataDir: string;
  child: ChildProcess | null;
  output(): string;
}

export interface LocalCluster {
  nats: NatsCluster;
  /** The operator's NATS user (every role has its own, limited to its subjects). */
  operator: { user: string; pass: string };
  /** A role's NATS user, as its processes connect. */
  natsUserOf(role: RoleName): { user: string; pass: string };
  postgres: EmbeddedPg;
  databaseUrl: string;
  adminKey: string;
  processes: RoleProcess[];
  /** Base URLs of the API processes. */
  apiUrls: string[];
  /** The witnesses' vkeys (in order: witness-1, …) and the log's verifier key they witness. */
  witnessKeys: string[];
  logKey: string;
  process(name: string): RoleProcess;
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  start(name: string): Promise<RoleStart>;
  stop(): Promise<void>;
}

/** What starting a role process cost: wall time from spawn to its first healthy answer, and its CPU until then. */
export interface RoleStart {
  healthyMs: number;
  /** utime + stime of the process when /health first answered 200 (null where /proc cannot be read). */
  cpuMs: number | null;
}

export interface LocalClusterOptions {
  dir: string;
  /** Run the built dist/bundle/main.js even when this module runs from source (benchmarks of start cost). */
  compiled?: boolean;
  /**
   * Node's arguments that run the service's entry, in place of those `compiled` chooses (e.g. a bundle built
   * elsewhere: the tests' own, test/support/service-entry.ts).
   */
  mainArgs?: string[];
  apis?: number;
  workers?: number;
  /** Signer processes (they hold the signing key; the workers ask them); default 2, so losing one is survived. */
  signers?: number;
  /** Transparency-log sequencers (default 2). */
  sequencers?: number;
  /**
   * Witnesses of the log (default 0), each its own process (ROLES=witness, no NATS, no database) with its own key;
   * the sequencers ask them to cosign (LOG_WITNESSES) and the API processes check them in verify results.
   */
  witnesses?: number;
  replicas?: number;
  /** Extra environment for every role process (ALLOW_PRIVATE_TARGETS, CAPTURE_TIMEOUT_MS, …). */
  env?: Record<string, string>;
  /** Fixed API ports (e.g. 8080, 8081 for `make cluster`); default free ports. */
  apiPorts?: number[];
  /**
   * Run once NATS is provisioned and Postgres is up, before any role process starts (a restore into the empty
   * cluster: docs/operators.md, restore); given the cluster's URL and the operator's NATS user.
   */
  beforeRoles?: (nats: { url: string; user: string; pass: string }) => Promise<void>;
  log?: (line: string) => void;
}

/**
 * How to run src/main.ts: as `mainArgs` say when given; else through tsx when this module itself runs from source,
 * else the bundle `make build` made of it (dist/bundle/, ops/bundle-dist.ts), as `make run` and `make cluster` start it.
 */
function mainCommand({ compiled = false, mainArgs }: LocalClusterOptions): string[] {
  if (mainArgs) return mainArgs;
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') && !compiled
    ? ['--import', 'tsx', join(projectRoot, 'src', 'main.ts')]
    : [join(projectRoot, 'dist', 'bundle', 'main.js')];
}

/** Everything a role process is started from: the deployment's users, secrets, addresses and processes. */
interface Deployment {
  opts: LocalClusterOptions;
  log: (line: string) => void;
  replicas: number;
  nats: NatsCluster;
  operator: { user: string; pass: string };
  roleUsers: Map<RoleName, NatsUser & { password: string }>;
  databaseUrl: string;
  adminKey: string;
  signingSeed: string;
  /** The log's checkpoint key, shared by the sequencers only; separate from the bundle key. */
  logSeed: string;
  processes: RoleProcess[];
  outputs: Map<string, string[]>;
  publicBaseUrl: string;
  logKey: string;
  witnessSeeds: Map<string, Buffer>;
  witnessKeys: string[];
  /** `LOG_WITNESSES`: each witness's key and URL, comma-separated. */
  logWitnesses: string;
}

export async function startLocalCluster(opts: LocalClusterOptions): Promise<LocalCluster> {
  const log = opts.log ?? (() => undefined);
  const replicas = opts.replicas ?? 3;
  await mkdir(opts.dir, { recursive: true });
  const { operator, roleUsers } = natsUsers();
  const nats = await startProvisionedNats(opts.dir, operator, roleUsers, replicas);
  log(`nats cluster: ${nats.url}`);
  let postgres: EmbeddedPg | undefined;
  let d: Deployment;
  try {
    postgres = await startEmbeddedPostgres(join(opts.dir, POSTGRES_DATA_DIR));
    const databaseUrl = await postgres.database('capture_ledger');
    log(`postgres: port ${postgres.port}`);
    d = await deploymentOf(opts, { log, replicas, nats, operator, roleUsers, databaseUrl });
  } catch (err) {
    await postgres?.stop().catch(() => undefined);
    await nats.stop().catch(() => undefined);
    throw err;
  }
  const pg = postgres;
  const cluster: LocalCluster = {
    nats,
    operator,
    natsUserOf: (role) => ({ user: roleUsers.get(role)!.user, pass: roleUsers.get(role)!.password }),
    postgres: pg,
    databaseUrl: d.databaseUrl,
    adminKey: d.adminKey,
    processes: d.processes,
    apiUrls: d.processes.filter((p) => p.role === 'api').map((p) => p.url),
    witnessKeys: d.witnessKeys,
    logKey: d.logKey,
    process: (name) => roleProcess(d, name),
    kill: (name, signal) => killRole(d, name, signal),
    start: (name) => startRole(d, name),
    async stop() {
      await Promise.all(d.processes.map((p) => killRole(d, p.name, 'SIGTERM')));
      await nats.stop();
      await pg.stop();
    },
  };
  try {
    await opts.beforeRoles?.({ url: nats.url, ...operator });
    // The projector first (it migrates the schema), then the rest side by side.
    await startRole(d, 'projector-1');
    await Promise.all(d.processes.filter((p) => p.name !== 'projector-1').map((p) => startRole(d, p.name)));
  } catch (err) {
    await cluster.stop().catch(() => undefined);
    throw err;
  }
  return cluster;
}

/** One NATS user per role, limited to its subjects, and one for the operator (DESIGN decision 11). */
function natsUsers() {
  const secret = () => randomBytes(18).toString('base64url');
  const operator = { user: 'operator', pass: secret() };
  const roleUsers = new Map<RoleName, NatsUser & { password: string }>(
    (['api', 'worker', 'signer', 'projector', 'dispatcher', 'scheduler', 'sequencer'] as const).map((role) => [
      role,
      { user: role, password: secret(), role },
    ]),
  );
  return { operator, roleUsers };
}

/**
 * The three nats-servers with every role's user, and the streams and buckets made once, as the operator (no
 * role's user may create or reconfigure them). When provisioning fails the servers are stopped again.
 */
async function startProvisionedNats(
  dir: string,
  operator: { user: string; pass: string },
  roleUsers: Map<RoleName, NatsUser & { password: string }>,
  replicas: number,
): Promise<NatsCluster> {
  const nats = await startNatsCluster({
    dir: join(dir, 'nats'),
    extraConfig: natsAuthorizationConfig([
      { user: operator.user, password: operator.pass, role: 'operator' },
      ...roleUsers.values(),
    ]),
    credentials: operator,
  });
  try {
    const provisioner = await connect({
      servers: nats.url.split(','),
      name: 'provision',
      user: operator.user,
      pass: operator.pass,
    });
    try {
      await provisionNats(provisioner, replicas);
    } finally {
      await provisioner.close();
    }
  } catch (err) {
    await nats.stop().catch(() => undefined);
    throw err;
  }
  return nats;
}

/** The deployment's secrets, its role processes (not started yet) and the witnesses' keys. */
async function deploymentOf(
  opts: LocalClusterOptions,
  started: Pick<Deployment, 'log' | 'replicas' | 'nats' | 'operator' | 'roleUsers' | 'databaseUrl'>,
): Promise<Deployment> {
  const logSeed = opts.env?.['LOG_SIGNING_KEY'] ?? randomBytes(32).toString('base64');
  const { processes, outputs } = await roleProcesses(opts);
  const apiUrls = processes.filter((p) => p.role === 'api').map((p) => p.url);
  // The log's public key, which is all a witness is given of the log; each witness's key, which the log is given.
  const publicBaseUrl = opts.env?.['PUBLIC_BASE_URL'] ?? apiUrls[0]!;
  const logKey = verifierKeyString(
    noteSignerFromSeed(
      opts.env?.['LOG_ORIGIN'] ?? defaultLogOrigin(publicBaseUrl),
      new Uint8Array(Buffer.from(logSeed, 'base64')),
    ),
  );
  const witnessProcesses = processes.filter((p) => p.role === 'witness');
  const witnessSeeds = new Map(witnessProcesses.map((p) => [p.name, randomBytes(32)]));
  const witnessKeys = witnessProcesses.map((p) => cosignerFromSeed(witnessNameOf(p), witnessSeeds.get(p.name)!).vkey);
  return {
    ...started,
    opts,
    adminKey: opts.env?.['ADMIN_KEY'] ?? randomBytes(24).toString('hex'),
    signingSeed: opts.env?.['SIGNING_KEY'] ?? randomBytes(32).toString('base64'),
    logSeed,
    processes,
    outputs,
    publicBaseUrl,
    logKey,
    witnessSeeds,
    witnessKeys,
    logWitnesses: witnessProcesses.map((p, i) => `${witnessKeys[i]} ${p.url}`).join(','),
  };
}

/** Every role process of the layout with its port, URL and data directory, and a buffer for its output. */
async function roleProcesses(opts: LocalClusterOptions) {
  const layout: Array<[RoleName, number]> = [
    ['api', opts.apis ?? 2],
    ['worker', opts.workers ?? 2],
    ['signer', opts.signers ?? 2],
    ['projector', 1],
    ['dispatcher', 1],
    ['scheduler', 1],
    // Two sequencers of the transparency log: OCC on the log's own stream makes them safe side by side.
    ['sequencer', opts.sequencers ?? 2],
    ['witness', opts.witnesses ?? 0],
  ];
  const processes: RoleProcess[] = [];
  const outputs = new Map<string, string[]>();
  for (const [role, count] of layout) {
    for (let i = 1; i <= count; i++) {
      const fixed = role === 'api' ? opts.apiPorts?.[i - 1] : undefined;
      const port = fixed ?? (await freePort());
      const name = `${role}-${i}`;
      const output: string[] = [];
      outputs.set(name, output);
      processes.push({
        name,
        role,
        port,
        url: `http://127.0.0.1:${port}`,
        dataDir: join(opts.dir, 'roles', name),
        child: null,
        output: () => output.join(''),
      });
    }
  }
  return { processes, outputs };
}

const witnessNameOf = (p: RoleProcess) => `${p.name}.cluster.local/witness`;

/** A witness knows nothing of the deployment but the log's public key: no NATS, no database, no secret of it. */
function witnessEnv(d: Deployment, p: RoleProcess): Record<string, string> {
  return {
    ROLES: 'witness',
    HOST: '127.0.0.1',
    PORT: String(p.port),
    DATA_DIR: p.dataDir,
    WITNESS_NAME: witnessNameOf(p),
    WITNESS_SIGNING_KEY: d.witnessSeeds.get(p.name)!.toString('base64'),
    WITNESS_LOG_KEYS: d.logKey,
    LOG_LEVEL: d.opts.env?.['LOG_LEVEL'] ?? 'warn',
  };
}

function roleEnv(d: Deployment, p: RoleProcess): Record<string, string> {
  if (p.role === 'witness') return witnessEnv(d, p);
  const { ADMIN_KEY: _a, SIGNING_KEY: _s, LOG_SIGNING_KEY: _l, ...shared } = d.opts.env ?? {};
  return {
    ...shared,
    ROLES: p.role,
    HOST: '127.0.0.1',
    PORT: String(p.port),
    DATA_DIR: p.dataDir,
    NATS_URL: d.nats.url,
    NATS_USER: d.roleUsers.get(p.role)!.user,
    NATS_PASSWORD: d.roleUsers.get(p.role)!.password,
    NATS_REPLICAS: String(d.replicas),
    // The signers use no database, so they do not get its URL (and password).
    ...(p.role === 'signer' || p.role === 'sequencer' ? {} : { DATABASE_URL: d.databaseUrl }),
    PUBLIC_BASE_URL: d.publicBaseUrl,
    // The sequencers ask the witnesses to cosign; the API processes check their cosignatures when verifying.
    ...(d.logWitnesses && (p.role === 'sequencer' || p.role === 'api') ? { LOG_WITNESSES: d.logWitnesses } : {}),
    LOG_LEVEL: d.opts.env?.['LOG_LEVEL'] ?? 'warn',
    // Secrets by role (DESIGN decision 11): only the API authenticates operators, only signers hold the key.
    ...(p.role === 'api' ? { ADMIN_KEY: d.adminKey } : {}),
    ...(p.role === 'signer' ? { SIGNING_KEY: d.signingSeed } : {}),
    ...(p.role === 'sequencer' ? { LOG_SIGNING_KEY: d.logSeed } : {}),
    // Workers never hold the key: they ask the signers.
    ...(p.role === 'worker' ? { SIGNER: 'remote' } : {}),
  };
}

/** What a role process must not take from this process's environment: the deployment sets it per role. */
const PER_ROLE_ENV = [
  'ADMIN_KEY',
  'SIGNING_KEY',
  'LOG_SIGNING_KEY',
  'WITNESS_SIGNING_KEY',
  'LOG_WITNESSES',
  'CAPTURE_API_KEY',
  'ROLES',
  'DATA_DIR',
  'NATS_URL',
  'NATS_USER',
  'NATS_PASSWORD',
  'DATABASE_URL',
  'PORT',
  'NATS_REPLICAS',
];

function roleProcess(d: Deployment, name: string): RoleProcess {
  const p = d.processes.find((x) => x.name === name);
  if (!p) throw new Error(`no role process named ${name}`);
  return p;
}

/** Spawn a role process and wait until it answers /health. */
async function startRole(d: Deployment, name: string): Promise<RoleStart> {
  const p = roleProcess(d, name);
  await mkdir(p.dataDir, { recursive: true });
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !PER_ROLE_ENV.includes(k)),
  ) as Record<string, string>;
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, mainCommand(d.opts), {
    cwd: projectRoot,
    env: { ...inherited, ...roleEnv(d, p), EXIT_WITH_PARENT: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = d.outputs.get(p.name)!;
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    if (lines.length < 2000) lines.push(text);
    for (const line of text.split('\n')) if (line) d.log(`[${p.name}] ${line}`);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  p.child = child;
  // Eleven processes and three nats-servers start at once on two cores: slow, not failed, on a busy host.
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${p.name} exited with ${child.exitCode}:\n${p.output()}`);
    const ok = await fetch(`${p.url}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { healthyMs: performance.now() - spawnedAt, cpuMs: await processCpuMs(child.pid) };
    if (Date.now() > deadline)
      throw new Error(`${p.name} did not become healthy in ${STARTUP_LIMIT_MS / 1000} s:\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 25)); // fine enough to time a start of well under a second
  }
}

async function killRole(d: Deployment, name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const p = roleProcess(d, name);
  const child = p.child;
  p.child = null;
  await stopChild(child, signal, 30_000);
}

/** utime + stime of a process in ms, from /proc (Linux); null elsewhere or once it has gone. */
async function processCpuMs(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ ticks
}
