import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalCluster, startLocalCluster } from '../src/infra/local-cluster.js';
import { clusterClient } from '../test/support/cluster-client.js';
import { type FixtureSite, startFixtureSite } from '../test/support/fixture-site.js';
import { envCount, percentile, round, sleep } from './support/bench-kit.js';
import { type ClusterCpu, clusterCpu, cpuBetween, roleOf } from './support/cluster-cpu.js';
import { type RoleKill, killRolesOnSchedule } from './support/role-kills.js';
import type { BenchLine } from './registry.js';

/**
 * The scaled layout's capacity on this host (`make cluster`: 3 nats-servers, Postgres, 2 api, 2 worker, 2 signer,
 * projector, dispatcher, scheduler, 2 sequencer, from dist/bundle/), as a client sees it, in four phases:
 *
 * 1. idle: each process's CPU over BENCH_CAPACITY_IDLE_S (default 60) with nothing asked of it;
 * 2. saturated: the client keeps BENCH_CAPACITY_BACKLOG (default 16) captures of a small local page outstanding
 *    for BENCH_CAPACITY_S (default 240); captures/s is the completions of the last three quarters over their
 *    time, and each process's CPU in that window is where the load's CPU goes;
 * 3. saturated with kills: the same, while BENCH_KILLS (default 100) role processes are SIGKILLed one at a time,
 *    one every BENCH_KILL_EVERY_S (default 12), each started again at once (bench/support/role-kills.ts, seed
 *    BENCH_KILL_SEED, default 5); captures/s over the kills, then every capture must settle;
 * 4. offered: captures submitted at phase 3's rate (or BENCH_OFFER_RATE) for as long as the same kill schedule
 *    runs, then a drain of at most BENCH_DRAIN_S (default 420): every acknowledged capture must be complete.
 *
 * Progress is read from the tenant's list totals (`GET /v1/captures?status=…&limit=1`) every 2 s; at the end of a
 * phase every capture the API acknowledged is looked up in the tenant's list. BENCH_CAPACITY_PHASES (default
 * `idle,saturated,kills,offered`) runs some of them.
 */
export async function clusterCapacityBench(): Promise<BenchLine[]> {
  const phases = (process.env.BENCH_CAPACITY_PHASES ?? 'idle,saturated,kills,offered').split(',');
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-capacity-'));
  const site = await startFixtureSite();
  const cluster = await startLocalCluster({
    dir,
    compiled: true,
    env: {
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      RATE_LIMIT_IP_PER_MIN: '10000000',
      RATE_LIMIT_TENANT_PER_MIN: '10000000',
      CAPTURE_BACKLOG_MAX: '10000000',
    },
  });
  // Before any browser starts, so that each worker's group holds all of its Chromium.
  const meters = await clusterCpu(cluster, dir);
  const lines: BenchLine[] = [];
  // A long run: each phase's figures are written to stderr as it ends, the whole set to stdout at the end.
  const report = (phaseLines: BenchLine[]) => {
    for (const line of phaseLines) process.stderr.write(`${JSON.stringify(line)}\n`);
    lines.push(...phaseLines);
  };
  const kills = envCount('BENCH_KILLS', 100);
  const everyMs = envCount('BENCH_KILL_EVERY_S', 12) * 1000;
  const seed = envCount('BENCH_KILL_SEED', 5);
  const drainMs = envCount('BENCH_DRAIN_S', 420) * 1000;
  try {
    if (phases.includes('idle')) report(await idlePhase(cluster, meters));
    let rate: number | null = null;
    if (phases.includes('saturated')) {
      const saturated = await saturatedPhase(cluster, meters, site, 'capacity-steady', null, drainMs);
      report(saturated.lines);
    }
    if (phases.includes('kills')) {
      const killed = await saturatedPhase(cluster, meters, site, 'capacity-kills', { kills, everyMs, seed }, drainMs);
      report(killed.lines);
      rate = killed.rate;
    }
    const offer = process.env.BENCH_OFFER_RATE ? Number(process.env.BENCH_OFFER_RATE) : rate;
    if (phases.includes('offered')) {
      if (!offer || !(offer > 0)) throw new Error('the offered phase needs the kills phase or BENCH_OFFER_RATE');
      report([await offeredPhase(cluster, site, round(offer, 2), { kills, everyMs, seed }, drainMs)]);
    }
  } finally {
    await cluster.stop();
    await meters.close();
    await site.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  return lines;
}

/** One line per process and one per role: CPU ms a minute and % of one core over `seconds`. */
function cpuLines(
  phase: string,
  cluster: LocalCluster,
  meters: ClusterCpu,
  spent: Map<string, number>,
  seconds: number,
): BenchLine[] {
  const natsNames = cluster.nats.nodes.map((n) => n.name);
  const byRole = new Map<string, number>();
  let total = 0;
  for (const [name, ms] of spent) {
    const role = roleOf(name, natsNames);
    byRole.set(role, (byRole.get(role) ?? 0) + ms);
    total += ms;
  }
  const lines: BenchLine[] = [...spent].map(([name, ms]) => ({
    phase,
    process: name,
    cpuMsPerMinute: round((ms * 60) / seconds, 0),
    corePercent: round((100 * ms) / (seconds * 1000), 2),
  }));
  for (const [role, ms] of [...byRole].sort((a, b) => b[1] - a[1]))
    lines.push({ phase, role, corePercent: round((100 * ms) / (seconds * 1000), 2), share: round(ms / total, 3) });
  lines.push({
    phase,
    role: 'all',
    corePercent: round((100 * total) / (seconds * 1000), 1),
    seconds: round(seconds, 0),
    cpuMeter: meters.method,
  });
  return lines;
}

async function idlePhase(cluster: LocalCluster, meters: ClusterCpu): Promise<BenchLine[]> {
  const seconds = envCount('BENCH_CAPACITY_IDLE_S', 60);
  await sleep(20_000);
  const before = await meters.read();
  await sleep(seconds * 1000);
  return cpuLines('idle', cluster, meters, cpuBetween(before, await meters.read()), seconds);
}

/** A tenant of the bench: submissions through whichever API process is up, and its list totals. */
interface BenchTenant {
  acknowledged: string[];
  /** Submissions that got no acknowledgement (an API process killed under them, a 5xx) before one that did. */
  retried: number;
  submit(url: string): Promise<void>;
  totals(): Promise<{ pending: number; complete: number; failed: number } | null>;
  /** Every acknowledged capture's status from the tenant's list (`missing`: acknowledged, not listed). */
  outcome(): Promise<{ complete: number; failed: number; pending: number; missing: number }>;
}

async function benchTenant(cluster: LocalCluster, tenantId: string): Promise<BenchTenant> {
  const client = clusterClient(cluster);
  const key = await client.createTenantKey(tenantId, 100_000_000);
  const live = () => {
    const up = cluster.processes.filter((p) => p.role === 'api' && p.child).map((p) => p.url);
    return up.length ? up : cluster.apiUrls;
  };
  let turn = 0;
  const list = async (query: string) => {
    for (const base of live()) {
      const r = await fetch(`${base}/v1/captures?${query}`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(30_000),
      }).catch(() => null);
      if (r?.status === 200)
        return (await r.json()) as { data: Array<{ id: string; status: string }>; pagination: { total: number } };
      await r?.arrayBuffer();
    }
    return null;
  };
  const tenant: BenchTenant = {
    acknowledged: [],
    retried: 0,
    async submit(url) {
      for (;;) {
        const bases = live();
        const r = await client.submit(key, url, bases[turn++ % bases.length]!, 30_000);
        if (r.status === 202 && r.id) {
          tenant.acknowledged.push(r.id);
          return;
        }
        if (r.status !== 0 && r.status < 500) throw new Error(`submit answered ${r.status}: ${r.error}`);
        tenant.retried++;
        await sleep(250);
      }
    },
    async totals() {
      const counts = await Promise.all(
        ['pending', 'complete', 'failed'].map(async (s) => (await list(`status=${s}&limit=1`))?.pagination.total),
      );
      if (counts.some((c) => c === undefined)) return null;
      const [pending, complete, failed] = counts as number[];
      return { pending: pending!, complete: complete!, failed: failed! };
    },
    async outcome() {
      const status = new Map<string, string>();
      for (let offset = 0; ; offset += 100) {
        const page = await list(`limit=100&offset=${offset}&sort=created_at`);
        if (!page) throw new Error('the list of captures did not answer');
        for (const c of page.data) status.set(c.id, c.status);
        if (page.data.length < 100) break;
      }
      const out = { complete: 0, failed: 0, pending: 0, missing: 0 };
      for (const id of tenant.acknowledged) {
        const s = status.get(id);
        if (s === 'complete' || s === 'failed' || s === 'pending') out[s]++;
        else out.missing++;
      }
      return out;
    },
  };
  return tenant;
}

/** Settled captures (complete + failed) as the list totals say, read every 2 s from `started` on. */
function watchTotals(tenant: BenchTenant, started: number) {
  const timeline: Array<{ atMs: number; settled: number }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = await tenant.totals();
      if (t) timeline.push({ atMs: Date.now() - started, settled: t.complete + t.failed });
      await sleep(2000);
    }
  })();
  return {
    settled: () => timeline.at(-1)?.settled ?? 0,
    /** Settled captures at the first reading at or after `atMs` from `started`. */
    settledAt: (atMs: number) => timeline.find((p) => p.atMs >= atMs)?.settled ?? timeline.at(-1)?.settled ?? 0,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** Waits until every acknowledged capture has settled by the list totals, or `limitMs`; the time it took. */
async function drain(tenant: BenchTenant, limitMs: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    const t = await tenant.totals();
    if (t && t.pending === 0 && t.complete + t.failed >= tenant.acknowledged.length) return Date.now() - started;
    await sleep(2000);
  }
  return null;
}

function killLine(kills: RoleKill[]) {
  const healthy = kills.map((k) => k.healthyMs).filter((h): h is number => h !== null);
  const byRole: Record<string, number> = {};
  for (const k of kills) byRole[roleOf(k.name, [])] = (byRole[roleOf(k.name, [])] ?? 0) + 1;
  return {
    kills: kills.length,
    killedRoles: byRole,
    notRestarted: kills.filter((k) => k.healthyMs === null).length,
    healthyAfterP50Ms: round(percentile(healthy, 50), 0),
    healthyAfterMaxMs: round(Math.max(...healthy), 0),
  };
}

/**
 * The client keeps `backlog` captures outstanding (acknowledged and not yet settled by the list totals); with
 * `kills`, the kill schedule runs meanwhile and the phase lasts as long as it does. Then every capture must settle
 * within `drainMs`.
 */
async function saturatedPhase(
  cluster: LocalCluster,
  meters: ClusterCpu,
  site: FixtureSite,
  phase: string,
  kills: { kills: number; everyMs: number; seed: number } | null,
  drainMs: number,
): Promise<{ rate: number; lines: BenchLine[] }> {
  const tenant = await benchTenant(cluster, phase);
  const backlog = envCount('BENCH_CAPACITY_BACKLOG', 16);
  const started = Date.now();
  const totals = watchTotals(tenant, started);
  const load0 = loadavg()[0]!;
  let filling = true;
  const filler = (async () => {
    let n = 0;
    while (filling) {
      const outstanding = tenant.acknowledged.length - totals.settled();
      const submits: Promise<void>[] = [];
      for (let i = outstanding; i < backlog; i++) submits.push(tenant.submit(site.url(`/simple?${phase}=${n++}`)));
      await Promise.all(submits);
      await sleep(1000);
    }
  })();
  let windowFromMs: number;
  let windowToMs: number;
  let cpu: Map<string, number> | null = null;
  let killed: RoleKill[] = [];
  if (kills) {
    killed = await killRolesOnSchedule(cluster, kills);
    windowFromMs = 0;
    windowToMs = Date.now() - started;
  } else {
    const seconds = envCount('BENCH_CAPACITY_S', 240);
    // The first quarter warms the browsers and fills the queue; the rest is measured.
    await sleep((seconds * 1000) / 4);
    windowFromMs = Date.now() - started;
    const before = await meters.read();
    await sleep((seconds * 3000) / 4);
    cpu = cpuBetween(before, await meters.read());
    windowToMs = Date.now() - started;
  }
  filling = false;
  await filler;
  const settledInWindow = totals.settledAt(windowToMs) - totals.settledAt(windowFromMs);
  const windowS = (windowToMs - windowFromMs) / 1000;
  await totals.stop();
  const drainedMs = await drain(tenant, drainMs);
  const outcome = await tenant.outcome();
  const rate = settledInWindow / windowS;
  const lines: BenchLine[] = [
    {
      phase,
      capturesPerSecond: round(rate, 3),
      windowSeconds: round(windowS, 0),
      backlog,
      acknowledged: tenant.acknowledged.length,
      retriedSubmissions: tenant.retried,
      ...outcome,
      drainSeconds: drainedMs === null ? null : round(drainedMs / 1000, 0),
      loadAverage: `${round(load0, 1)}–${round(loadavg()[0]!, 1)}`,
      ...(kills ? killLine(killed) : {}),
    },
  ];
  if (cpu) lines.push(...cpuLines(`${phase}-load`, cluster, meters, cpu, windowS));
  return { rate, lines };
}

/** Captures submitted at `rate` a second while the kill schedule runs, then a drain of at most `drainMs`. */
async function offeredPhase(
  cluster: LocalCluster,
  site: FixtureSite,
  rate: number,
  kills: { kills: number; everyMs: number; seed: number },
  drainMs: number,
): Promise<BenchLine> {
  const tenant = await benchTenant(cluster, 'capacity-offered');
  const load0 = loadavg()[0]!;
  const started = Date.now();
  let offering = true;
  let late = 0;
  const inFlight = new Set<Promise<void>>();
  const offerer = (async () => {
    for (let n = 0; offering; n++) {
      const due = started + (n * 1000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      else if (Date.now() - due > 1000) late++;
      if (!offering) break;
      const p = tenant.submit(site.url(`/simple?offered=${n}`)).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  })();
  const killed = await killRolesOnSchedule(cluster, kills);
  offering = false;
  await offerer;
  await Promise.all(inFlight);
  const offeredS = (Date.now() - started) / 1000;
  const drainedMs = await drain(tenant, drainMs);
  const outcome = await tenant.outcome();
  return {
    phase: 'offered-kills',
    offeredPerSecond: rate,
    offeredSeconds: round(offeredS, 0),
    lateSubmissions: late,
    acknowledged: tenant.acknowledged.length,
    retriedSubmissions: tenant.retried,
    ...outcome,
    everyAcknowledgedComplete: outcome.complete === tenant.acknowledged.length,
    drainSeconds: drainedMs === null ? null : round(drainedMs / 1000, 0),
    drainLimitSeconds: drainMs / 1000,
    loadAverage: `${round(load0, 1)}–${round(loadavg()[0]!, 1)}`,
    ...killLine(killed),
  };
}
