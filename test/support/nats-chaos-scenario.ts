import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { LocalCluster } from '../../src/infra/local-cluster.js';
import { projectRoot } from '../../src/infra/project-root.js';
import type { ClusterClient } from './cluster-client.js';
import type { FixtureSite } from './fixture-site.js';

/**
 * Evidence through repeated NATS node kills (issue 26), on the scaled deployment of src/infra/local-cluster.ts:
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
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every stream has a leader and current replicas again (what a careful rolling restart waits for between nodes). */
async function waitForStreams(cluster: LocalCluster, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const nc = await connect({ servers: cluster.nats.url.split(','), ...cluster.operator, maxReconnectAttempts: -1 });
  try {
    // No API check at creation: just after a node restart the JetStream API may not answer yet; the loop waits.
    const jsm = await jetstreamManager(nc, { timeout: 5000, checkAPI: false });
    for (;;) {
      const healthy = await (async () => {
        // The meta group has a leader (stream and consumer operations need one) …
        await jsm.getAccountInfo();
        // … and every stream has its own and current replicas.
        for (const name of ['LEDGER', 'JOBS', 'OBJ_artifacts', 'KV_webhook-keys']) {
          const info = await jsm.streams.info(name);
          if (!info.cluster?.leader || !(info.cluster.replicas ?? []).every((r) => r.current)) return false;
        }
        return true;
      })().catch(() => false);
      if (healthy) return;
      if (Date.now() > deadline) throw new Error('streams did not recover their replicas in time');
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
      ['--import', 'tsx', join(projectRoot, 'src', 'cli', 'main.ts'), 'storage', 'verify'],
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
  for (let k = 0; k < opts.kills; k++) {
    const node = cluster.nats.nodes[k % cluster.nats.nodes.length]!;
    await cluster.nats.kill(node.name, 'SIGKILL');
    for (let i = 0; i < opts.capturesPerKill; i++) await submit(n++);
    await sleep(opts.downMs);
    await cluster.nats.start(node.name);
    await waitForStreams(cluster);
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
      notVerified.push({ id, detail: `verify ${v.status}: ${JSON.stringify(body.checks ?? body.detail)}` });
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
    seconds: Math.round((Date.now() - started) / 1000),
  };
}
