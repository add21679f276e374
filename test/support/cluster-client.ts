import { execFile } from 'node:child_process';
import { projectRoot } from '../../src/infra/project-root.js';
import type { LocalCluster } from '../../src/infra/local-cluster.js';
import { cliArgs } from './service-entry.js';

/** Small black-box helpers for tests and benches against a local cluster (src/infra/local-cluster.ts). */
const json = { 'content-type': 'application/json' };

export interface ClusterClient {
  admin(method: string, path: string, body?: unknown, base?: string): Promise<Response>;
  createTenantKey(tenantId: string, quota?: number): Promise<string>;
  /** POST /v1/captures; status 0 (with the error) when no answer came within `timeoutMs` (60 s unless given). */
  submit(
    key: string,
    url: string,
    base: string,
    timeoutMs?: number,
  ): Promise<{ status: number; id?: string; error?: string }>;
  status(key: string, id: string): Promise<string | null>;
  /** Wait until every id is complete or failed; returns the statuses. */
  settle(key: string, ids: string[], timeoutMs: number): Promise<Map<string, string>>;
  audit(tenantId: string): Promise<{ code: number; stdout: string; stderr: string }>;
}

export function clusterClient(cluster: LocalCluster): ClusterClient {
  const api = () => cluster.processes.find((p) => p.role === 'api' && p.child)?.url ?? cluster.apiUrls[0]!;
  // The operator key endpoints allow 5 requests per 60 s from one address (spec): a test file that makes more
  // tenants than that waits as Retry-After says, rather than fail on how fast the machine ran it.
  const admin = async (method: string, path: string, body?: unknown, base = api()): Promise<Response> => {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const r = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${cluster.adminKey}`, ...json },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const wait = Number(r.headers.get('retry-after') ?? NaN);
      if (r.status !== 429 || !Number.isFinite(wait) || Date.now() + wait * 1000 > deadline) return r;
      await r.arrayBuffer();
      await new Promise((res) => setTimeout(res, wait * 1000 + 100));
    }
  };

  async function status(key: string, id: string): Promise<string | null> {
    for (const base of cluster.apiUrls) {
      const r = await fetch(`${base}/v1/captures/${id}/status`, { headers: { authorization: `Bearer ${key}` } }).catch(
        () => null,
      );
      if (r?.status === 200) return ((await r.json()) as { status: string }).status;
      await r?.arrayBuffer();
    }
    return null;
  }

  return {
    admin,
    async createTenantKey(tenantId, quota) {
      const r = await admin('POST', '/v1/admin/keys', { tenantId, scopes: ['capture', 'read'], name: 'cluster test' });
      if (r.status !== 201) throw new Error(`key create answered ${r.status}: ${await r.text()}`);
      const { key } = (await r.json()) as { key: string };
      if (quota !== undefined) {
        const c = await admin('PUT', `/v1/admin/tenants/${tenantId}/config`, { quotas: { capturesPerMonth: quota } });
        if (c.status !== 200) throw new Error(`config answered ${c.status}: ${await c.text()}`);
      }
      return key;
    },
    async submit(key, url, base, timeoutMs = 60_000) {
      try {
        const r = await fetch(`${base}/v1/captures`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, ...json },
          body: JSON.stringify({ url }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = (await r.json().catch(() => ({}))) as { id?: string; detail?: string };
        return {
          status: r.status,
          ...(body.id ? { id: body.id } : {}),
          ...(body.detail ? { error: body.detail } : {}),
        };
      } catch (err) {
        return { status: 0, error: String(err) };
      }
    },
    status,
    async settle(key, ids, timeoutMs) {
      const done = new Map<string, string>();
      const deadline = Date.now() + timeoutMs;
      while (done.size < ids.length && Date.now() < deadline) {
        for (const id of ids) {
          if (done.has(id)) continue;
          const s = await status(key, id);
          if (s === 'complete' || s === 'failed') done.set(id, s);
        }
        if (done.size < ids.length) await new Promise((r) => setTimeout(r, 1000));
      }
      return done;
    },
    audit(tenantId) {
      return new Promise((resolve) => {
        execFile(
          process.execPath,
          [...cliArgs(), 'audit', '--tenant', tenantId],
          {
            cwd: projectRoot,
            env: {
              PATH: process.env.PATH ?? '',
              NATS_URL: cluster.nats.url,
              NATS_USER: cluster.operator.user,
              NATS_PASSWORD: cluster.operator.pass,
              DATABASE_URL: cluster.databaseUrl,
            },
            timeout: 300_000,
          },
          (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    },
  };
}
