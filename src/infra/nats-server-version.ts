import type { Logger } from 'pino';

/**
 * Known nats-server bugs that lose or corrupt data of a replicated stream, and the first release without each.
 * A process reads the server's version when it connects (src/infra/nats.ts) and warns about each bug its
 * server still has; docs/scaling.md names the minimum for production clusters.
 */
export interface ServerBug {
  /** The upstream issue, e.g. `nats-server #4196`. */
  id: string;
  /** First release without the bug. */
  fixedIn: string;
  /** What it does to this service, in one sentence. */
  effect: string;
}

export const REPLICATED_STREAM_BUGS: readonly ServerBug[] = [
  {
    id: 'nats-server #4196',
    // Fixed by #4212 (2.9.18); #4357 (2.9.21) closed the last replay of a purge as a full one.
    fixedIn: '2.9.21',
    effect:
      'a replicated stream recovering after a restart replays a subject-filtered purge as a full purge up to that purge, so the front of the stream (artifacts, KV entries) can vanish on that node',
  },
  {
    id: 'nats-server #4320',
    fixedIn: '2.10.19',
    effect:
      'concurrent publishes carrying the same expected last subject sequence can both be accepted on a replicated stream (the ledger and rate limits guard with one msgID per write slot, KV compare-and-set does not)',
  },
];

/** The release from which no bug above applies: the minimum for a production cluster (docs/scaling.md). */
export const MIN_CLUSTERED_NATS_VERSION = '2.10.19';

const parse = (v: string): number[] =>
  v
    .replace(/^v/, '')
    .split(/[.-]/)
    .slice(0, 3)
    .map((p) => Number.parseInt(p, 10) || 0);

/** Whether `version` is older than `than` (major.minor.patch; a suffix such as -beta is ignored). */
export function isOlder(version: string, than: string): boolean {
  const a = parse(version);
  const b = parse(than);
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  return false;
}

/** The known bugs a server of `version` still has (replicated streams only). */
export const replicatedStreamBugsOf = (version: string): ServerBug[] =>
  REPLICATED_STREAM_BUGS.filter((bug) => isOlder(version, bug.fixedIn));

/**
 * Log the server's version, and a warning naming each known data-loss bug it has when the streams are
 * replicated. A single node with R1 streams does not replay purges through raft (test/e2e/nats-purge-replay.e2e.spec.ts).
 */
export function reportNatsServerVersion(
  log: Logger,
  info: { version?: string; cluster?: string } | undefined,
  replicas: number,
): void {
  const natsVersion = info?.version ?? 'unknown';
  log.info({ natsVersion, natsCluster: info?.cluster ?? null, replicas }, 'connected to NATS');
  if (replicas <= 1 || natsVersion === 'unknown') return;
  for (const bug of replicatedStreamBugsOf(natsVersion)) {
    log.warn(
      { natsVersion, bug: bug.id, fixedIn: bug.fixedIn, minimum: MIN_CLUSTERED_NATS_VERSION },
      `nats-server ${natsVersion} has ${bug.id}: ${bug.effect}; use nats-server ${MIN_CLUSTERED_NATS_VERSION} or later for a replicated deployment (docs/scaling.md)`,
    );
  }
}
