import { execFile } from 'node:child_process';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { LocalCluster } from '../../src/infra/local-cluster.js';
import { projectRoot } from '../../src/infra/project-root.js';
import type { ClusterClient } from './cluster-client.js';
import type { FixtureSite } from './fixture-site.js';
import { cliArgs } from './service-entry.js';

/**
 * Evidence through repeated NATS node kills, on the scaled deployment of src/infra/local-cluster.ts:
 * captures are submitted while nats-servers are SIGKILLed and started again one at a time (a rolling restart
 * that goes wrong, again and again); afterwards every completed capture's bundle must verify through the API,
 * its screenshot download, and `capture-ledger storage verify` must find every artifact the ledger names whole.
 * The e2e test runs a few kills (test/e2e/nats-chaos.e2e.spec.ts), `make bench` (BENCH=nats-chaos) more.
 */
export interface NatsChaosReport {
  kills: number;
  submitted: number;
  complete: number;
  failed: number;
  unsettled: number;
  /** Completed captures whose bundle did not verify, or whose screenshot did not download. */
  notVerified: Array<{ id: string; detail: string }>;
  storageVerify: { code: number; summary: Record<string, unknown> | null; problems: string[] };
  /** Replicas that stayed behind after a restart and what the restart procedure did about them. */
  interventions: ReplicaIntervention[];
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the restart procedure did beyond waiting, for a replica that stayed behind (docs/scaling.md). */
export interface ReplicaIntervention {
  kill: number;
  stream: string;
  replica: string;
  action: 'leader-stepdown' | 'node-restart';
  afterMs: number;
}

const CHECKED_STREAMS = ['LEDGER', 'JOBS', 'OBJ_artifacts', 'KV_webhook-keys'];
/** How long a replica may stay behind before the procedure steps the stream's leader down, then restarts its node. */
const STEPDOWN_AFTER_MS = 60_000;
const RESTART_AFTER_MS = 120_000;

/**
 * Every stream has a leader and current replicas again: what a careful rolling restart waits for between nodes
 * (docs/scaling.md, "Rolling restarts"). nats-server 2.9.10 can leave a restarted replica behind for good (catch-up
 * stalls fixed after it); the documented procedure then steps the stream's leader down and, if that is not enough,
 * restarts the lagging node. Both are recorded in `interventions`; a replica that stays behind through both
 * fails the run with every stream's state.
 */
async function waitForStreams(
  cluster: LocalCluster,
  kill: number,
  interventions: ReplicaIntervention[],
  timeoutMs = 300_000,
): Promise<void> {
  const started = Date.now();
  const nc = await connect({ servers: cluster.nats.url.split(','), ...cluster.operator, maxReconnectAttempts: -1 });
  const done = new Set<string>();
  let last = 'no answer yet';
  try {
    // No API check at creation: just after a node restart the JetStream API may not answer yet; the loop waits.
    const jsm = await jetstreamManager(nc, { timeout: 5000, checkAPI: false });
    for (;;) {
      const behind = await (async () => {
        // The meta group has a leader (stream and consumer operations need one) …
        await jsm.getAccountInfo();
        // … and every stream has its own and current replicas.
        const lagging: Array<{ stream: string; replica: string | null }> = [];
        const states: string[] = [];
        for (const name of CHECKED_STREAMS) {
          const info = await jsm.streams.info(name);
          const replicas = info.cluster?.replicas ?? [];
          states.push(
            `${name}: leader ${info.cluster?.leader ?? 'none'}, last seq ${info.state.last_seq}; ${replicas
              .map((r) => `${r.name} ${r.current ? 'current' : 'behind'} lag ${r.lag ?? 0} active ${r.active}ns`)
              .join(', ')}`,
          );
          if (!info.cluster?.leader) lagging.push({ stream: name, replica: null });
          for (const r of replicas) if (!r.current) lagging.push({ stream: name, replica: r.name });
        }
        last = states.join('\n');
        return lagging;
      })().catch((err: Error) => {
        last = `JetStream API: ${err.message}`;
        return [{ stream: '', replica: null }];
      });
      if (behind.length === 0) return;
      const elapsed = Date.now() - started;
      if (elapsed > timeoutMs)
        throw new Error(`streams did not recover their replicas in ${timeoutMs} ms after kill ${kill}:\n${last}`);
      for (const { stream, replica } of behind) {
        if (!stream || !replica) continue;
        const step = `${stream}/${replica}`;
        if (elapsed > STEPDOWN_AFTER_MS && !done.has(`stepdown ${step}`)) {
          done.add(`stepdown ${step}`);
          interventions.push({ kill, stream, replica, action: 'leader-stepdown', afterMs: elapsed });
          await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, { timeout: 5000 }).catch(() => null);
        } else if (elapsed > RESTART_AFTER_MS && !done.has(`restart ${replica}`)) {
          const node = cluster.nats.nodes.find((n) => n.name === replica);
          if (!node) continue;
          done.add(`restart ${replica}`);
          interventions.push({ kill, stream, replica, action: 'node-restart', afterMs: elapsed });
          await cluster.nats.kill(node.name, 'SIGTERM');
          await cluster.nats.start(node.name);
        }
      }
      await sleep(500);
    }
  } finally {
    await nc.close().catch(() => undefined);
  }
}

function storageVerify(cluster: LocalCluster): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...cliArgs(), 'storage', 'verify'],
      {
        cwd: projectRoot,
        env: {
          PATH: process.env.PATH ?? '',
          NATS_URL: cluster.nats.url,
          NATS_USER: cluster.operator.user,
          NATS_PASSWORD: cluster.operator.pass,
          DATABASE_URL: cluster.databaseUrl,
        },
        timeout: 600_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The role processes' log lines that name the request id an internal error's answer quotes, to say its cause. */
function loggedFor(cluster: LocalCluster, detail: string | undefined): string {
  const requestId = /\b(req_[0-9a-f]+)\b/.exec(detail ?? '')?.[1];
  if (!requestId) return '';
  const lines = cluster.processes.flatMap((p) =>
    p
      .output()
      .split('\n')
      .filter((line) => line.includes(requestId))
      .map((line) => `${p.name}: ${line.slice(0, 2000)}`),
  );
  return lines.length > 0 ? `\n${lines.join('\n')}` : ` (no process logged ${requestId})`;
}

export async function runNatsChaos(
  cluster: LocalCluster,
  client: ClusterClient,
  site: FixtureSite,
  opts: { tenant: string; kills: number; capturesPerKill: number; downMs: number; settleMs?: number },
): Promise<NatsChaosReport> {
  const started = Date.now();
  const key = await client.createTenantKey(opts.tenant);
  const acked: string[] = [];
  const submit = async (i: number) => {
    const r = await client.submit(key, site.url(`/simple?chaos=${i}`), cluster.apiUrls[i % cluster.apiUrls.length]!);
    if (r.status === 202) acked.push(r.id!);
  };
  let n = 0;
  const interventions: ReplicaIntervention[] = [];
  for (let k = 0; k < opts.kills; k++) {
    const node = cluster.nats.nodes[k % cluster.nats.nodes.length]!;
    await cluster.nats.kill(node.name, 'SIGKILL');
    for (let i = 0; i < opts.capturesPerKill; i++) await submit(n++);
    await sleep(opts.downMs);
    await cluster.nats.start(node.name);
    await waitForStreams(cluster, k, interventions);
  }
  const settled = await client.settle(key, acked, opts.settleMs ?? 900_000);
  const complete = acked.filter((id) => settled.get(id) === 'complete');
  const notVerified: NatsChaosReport['notVerified'] = [];
  // As a client would: a 503 (a stream electing its leader) is asked again after its Retry-After, within a bound.
  const base = cluster.apiUrls[0]!;
  const patiently = async (url: string, init: RequestInit): Promise<Response> => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await fetch(url, init);
      if (r.status !== 503 || Date.now() > deadline) return r;
      await r.arrayBuffer();
      await sleep(Number(r.headers.get('retry-after') ?? 5) * 1000);
    }
  };
  for (const id of complete) {
    const v = await patiently(`${base}/v1/verify/${id}`, { headers: { accept: 'application/json' } });
    const body = (await v.json().catch(() => ({}))) as { verified?: boolean; checks?: unknown; detail?: string };
    if (v.status !== 200 || body.verified !== true)
      notVerified.push({
        id,
        detail: `verify ${v.status}: ${JSON.stringify(body.checks ?? body.detail)}${loggedFor(cluster, body.detail)}`,
      });
    const shot = await patiently(`${base}/v1/captures/${id}/artifacts/screenshot`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await shot.arrayBuffer();
    if (shot.status !== 200) notVerified.push({ id, detail: `screenshot ${shot.status}` });
  }
  const sv = await storageVerify(cluster);
  const lines = sv.stdout.trim().split('\n').filter(Boolean);
  const summaryLine = lines.map((l) => JSON.parse(l) as { summary?: Record<string, unknown> }).find((l) => l.summary);
  return {
    kills: opts.kills,
    submitted: acked.length,
    complete: complete.length,
    failed: acked.filter((id) => settled.get(id) === 'failed').length,
    unsettled: acked.length - settled.size,
    notVerified,
    storageVerify: {
      code: sv.code,
      summary: summaryLine?.summary ?? null,
      problems: lines
        .filter((l) => !l.includes('"summary"'))
        .concat(sv.code !== 0 && !summaryLine ? [sv.stderr.slice(-2000)] : []),
    },
    interventions,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}
