import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { startBusyLoops } from '../test/support/busy-host.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { ADMIN_KEY, httpCall, startTestServer, type TestServer } from '../test/support/test-server.js';
import type { BenchLine } from './registry.js';
import { envCount, percentile, round, sleep } from './support/bench-kit.js';

/**
 * Overload is slowness, not failure (DESIGN decision 13; docs/architecture.md, Capture under load). A page
 * that takes 1 s to load (/delay?ms=1000) is captured through the whole pipeline (signed, time-stamped),
 * measured as a client sees it: from POST to `status: complete`.
 *
 *  1. unloaded: BENCH_OVERLOAD_CAPTURES (20) submitted at once — the baseline of the same run;
 *  2. busy host: the same while BENCH_OVERLOAD_LOOPS busy loops (default 7 per core), each in its own
 *     session, leave the service a fraction of the CPUs (measured: the CPU time the machine spent outside
 *     the loops, per second);
 *  3. sustained: submissions at 3× the rate the unloaded run sustained, for BENCH_OVERLOAD_SECONDS (120),
 *     then drained.
 * Each reports the completion rate of acknowledged captures, failures by reason, latency p50/p99 and the
 * concurrency the worker's adaptive limit settled on.
 */
export async function overloadBench(): Promise<BenchLine[]> {
  const captures = envCount('BENCH_OVERLOAD_CAPTURES', 20);
  const loops = envCount('BENCH_OVERLOAD_LOOPS', 7 * availableParallelism());
  const sustainSec = envCount('BENCH_OVERLOAD_SECONDS', 120);
  const site = await startFixtureSite();
  const page = site.url('/delay?ms=1000');
  const server = await startTestServer({
    ROLES: 'api,projector,worker',
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    SIGNING_KEY: randomBytes(32).toString('base64'),
    TSA_URL: '',
    RATE_LIMIT_IP_PER_MIN: '10000000',
    RATE_LIMIT_TENANT_PER_MIN: '10000000',
    CAPTURE_RETRY_DELAYS: '30,120,300,600,600',
  });
  const lines: BenchLine[] = [];
  try {
    const client = await tenantClient(server);
    await client.runBurst(page, 2); // warm-up: browser launch, first bundle

    const unloaded = await client.runBurst(page, captures);
    lines.push({ figure: 'burst, unloaded host', page: '/delay?ms=1000', ...unloaded.summary });

    const busy = startBusyLoops(loops);
    const cpu = cpuMeter(busy.pids);
    let loaded: Awaited<ReturnType<typeof client.runBurst>>;
    let serviceCores: number;
    try {
      loaded = await client.runBurst(page, captures);
      serviceCores = cpu.otherCoresPerSecond(); // while the loops still run: their /proc entries go with them
    } finally {
      await busy.stop();
    }
    lines.push({
      figure: 'burst, busy host',
      page: '/delay?ms=1000',
      busyLoops: loops,
      serviceCores: round(serviceCores, 2),
      ...loaded.summary,
      latencyP50VsUnloaded: round(loaded.summary.latencyP50Ms / unloaded.summary.latencyP50Ms, 2),
      latencyP99VsUnloaded: round(loaded.summary.latencyP99Ms / unloaded.summary.latencyP99Ms, 2),
    });

    const sustainable = unloaded.summary.capturesPerSec;
    const sustained = await client.runSustained(page, 3 * sustainable, sustainSec);
    lines.push({
      figure: 'sustained at 3x the unloaded rate, then drained',
      page: '/delay?ms=1000',
      sustainablePerSec: round(sustainable, 2),
      ...sustained.summary,
    });
    return lines;
  } finally {
    await server.stop();
    await site.close();
  }
}

interface Outcome {
  status: 'complete' | 'failed';
  failureReason?: string;
  latencyMs: number;
}

async function tenantClient(server: TestServer) {
  const tenantId = `bench-overload-${randomBytes(3).toString('hex')}`;
  const call = (method: string, path: string, body: unknown, token: string) =>
    httpCall(
      server.baseUrl + path,
      method,
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      JSON.stringify(body),
    );
  await call(
    'PUT',
    `/v1/admin/tenants/${tenantId}/config`,
    { quotas: { capturesPerMonth: 100_000_000, storageBytes: 1_000_000_000_000 } },
    ADMIN_KEY,
  );
  const { key } = (await call('POST', '/v1/admin/keys', { tenantId, scopes: ['capture'], name: 'bench' }, ADMIN_KEY))
    .body;
  const limits: number[] = [];
  const sampleLimit = async () => {
    const metrics = await httpCall(`${server.baseUrl}/metrics`, 'GET', {});
    const match = /^capture_ledger_worker_concurrency_limit (\d+)/m.exec(metrics.text);
    if (match) limits.push(Number(match[1]));
  };

  /** Submits `url`; answers the capture id, or the status of a refusal (503 at capacity). */
  async function submit(url: string): Promise<{ id?: string; status: number }> {
    const r = await call('POST', '/v1/captures', { url }, key);
    return r.status === 202 ? { id: r.body.id, status: 202 } : { status: r.status };
  }

  /** Waits for every id's outcome (a generous hour: only a hang should reach it), sampling the limit. */
  async function outcomes(submitted: Map<string, number>): Promise<Map<string, Outcome>> {
    const done = new Map<string, Outcome>();
    const deadline = Date.now() + 3600_000;
    while (done.size < submitted.size && Date.now() < deadline) {
      for (const [id, at] of submitted) {
        if (done.has(id)) continue;
        const r = await httpCall(`${server.baseUrl}/v1/captures/${id}/status`, 'GET', {}, undefined, '127.0.0.9');
        if (r.body?.status === 'complete' || r.body?.status === 'failed') {
          done.set(id, {
            status: r.body.status,
            failureReason: r.body.failureReason,
            latencyMs: performance.now() - at,
          });
        }
      }
      await sampleLimit();
      await sleep(250);
    }
    return done;
  }

  function summarize(submitted: Map<string, number>, done: Map<string, Outcome>, elapsedMs: number, refused = 0) {
    const list = [...done.values()];
    const latencies = list.filter((o) => o.status === 'complete').map((o) => o.latencyMs);
    const failuresByReason: Record<string, number> = {};
    for (const o of list)
      if (o.status === 'failed')
        failuresByReason[o.failureReason ?? 'unknown'] = (failuresByReason[o.failureReason ?? 'unknown'] ?? 0) + 1;
    const complete = latencies.length;
    return {
      acknowledged: submitted.size,
      refused503: refused,
      complete,
      failed: list.length - complete,
      stillPending: submitted.size - list.length,
      completionRate: round(complete / Math.max(1, submitted.size), 3),
      failuresByReason,
      latencyP50Ms: round(percentile(latencies, 50)),
      latencyP99Ms: round(percentile(latencies, 99)),
      capturesPerSec: complete / (elapsedMs / 1000),
      adaptiveLimitLast: limits.at(-1) ?? null,
      adaptiveLimitMedian: limits.length ? percentile(limits, 50) : null,
      adaptiveLimitMin: limits.length ? Math.min(...limits) : null,
    };
  }

  return {
    async runBurst(url: string, count: number) {
      limits.length = 0;
      const started = performance.now();
      const submitted = new Map<string, number>();
      for (let i = 0; i < count; i++) {
        const at = performance.now();
        const r = await submit(url);
        if (r.id) submitted.set(r.id, at);
      }
      const done = await outcomes(submitted);
      return { summary: summarize(submitted, done, performance.now() - started) };
    },
    async runSustained(url: string, perSec: number, seconds: number) {
      limits.length = 0;
      const started = performance.now();
      const submitted = new Map<string, number>();
      let refused = 0;
      const intervalMs = 1000 / Math.max(0.01, perSec);
      for (let next = started; performance.now() - started < seconds * 1000; next += intervalMs) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        const at = performance.now();
        const r = await submit(url);
        if (r.id) submitted.set(r.id, at);
        else refused++;
      }
      const done = await outcomes(submitted);
      return {
        summary: {
          offeredPerSec: round(perSec, 2),
          ...summarize(submitted, done, performance.now() - started, refused),
        },
      };
    },
  };
}

/** CPU the machine spent outside the given (busy-loop) processes, in cores, from /proc/stat and /proc/<pid>/stat. */
function cpuMeter(loopPids: number[]) {
  const ticks = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3]! + (fields[4] ?? 0);
    const total = fields.reduce((a, b) => a + b, 0);
    const loops = loopPids.reduce((sum, pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return sum + Number(after[11]) + Number(after[12]); // utime + stime
      } catch {
        return sum;
      }
    }, 0);
    return { busy: total - idle, loops, at: performance.now() };
  };
  const start = ticks();
  const hz = 100; // USER_HZ on Linux
  return {
    otherCoresPerSecond() {
      const now = ticks();
      const seconds = (now.at - start.at) / 1000;
      return (now.busy - start.busy - (now.loops - start.loops)) / hz / seconds;
    },
  };
}
