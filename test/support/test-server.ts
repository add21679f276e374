import { request } from 'node:http';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import type { ServiceContext } from '../../src/application/service-context.js';
import type { Clock } from '../../src/domain/clock.js';
import type { ProfileStates } from '../../src/profiles/browser-state.js';
import { startServer, type ServerHandle } from '../../src/server.js';
import { type Infra, startInfra } from './harness.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface TestServer {
  baseUrl: string;
  /** Test servers always run a role with a database, so `ctx` is there. */
  server: ServerHandle & { ctx: ServiceContext };
  infra: Infra;
  databaseUrl: string;
  /** fetch relative to the base URL; JSON bodies are sent as application/json. */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; token?: string; headers?: Record<string, string>; from?: string },
  ): Promise<CallResult>;
  stop(): Promise<void>;
}

/** Silent, or the server's log on stderr at the level CL_TEST_LOG_LEVEL names (e.g. info) to look into a test. */
function testLog(): pino.Logger {
  const level = process.env.CL_TEST_LOG_LEVEL;
  return level ? pino({ level }, pino.destination(2)) : pino({ level: 'silent' });
}

/** A whole service in this process against hermetic nats-server + Postgres. */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: { infra?: Infra; databaseUrl?: string; clock?: Clock; profileStates?: ProfileStates } = {},
): Promise<TestServer> {
  const infra = opts.infra ?? (await startInfra());
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    // The host name tests reach the service by (the console is served on PUBLIC_BASE_URL's host name only); the
    // default replay origin is then localhost, another site.
    PUBLIC_BASE_URL: 'http://127.0.0.1:0',
    ADMIN_KEY,
    DATA_DIR: infra.dir,
    LOG_LEVEL: 'silent',
    ROLES: 'api,projector',
    SIGNING_KEY: 'none',
    TSA_URL: 'none',
    CAPTURE_RETRY_DELAYS: '2,5,10,20,30',
    ...env,
  });
  const databaseUrl = opts.databaseUrl ?? (await infra.freshDatabase());
  const server = await startServer(config, {
    natsUrl: infra.nats.url,
    databaseUrl,
    log: testLog(),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.profileStates ? { profileStates: opts.profileStates } : {}),
  });
  const baseUrl = server.url!.replace('0.0.0.0', '127.0.0.1');
  const { ctx } = server;
  if (!ctx)
    throw new Error(`ROLES=${[...config.ROLES].join(',')} runs no role with a database; a test server needs one`);
  return {
    baseUrl,
    server: Object.assign(server, { ctx }),
    infra,
    databaseUrl,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      return httpCall(baseUrl + path, method, headers, body, o.from);
    },
    async stop() {
      await server.stop();
      if (!opts.infra) await infra.stop();
    },
  };
}

export const assertProblem = (body: any, status: number): void => {
  if (
    body?.type !== 'about:blank' ||
    body.status !== status ||
    typeof body.title !== 'string' ||
    typeof body.detail !== 'string'
  ) {
    throw new Error(`expected a spec 7.1 error body with status ${status}, got ${JSON.stringify(body)}`);
  }
};

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
  raw: Buffer;
}

/** One HTTP request, optionally from another loopback source address (per-IP limits in tests). */
export function httpCall(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  localAddress?: string,
): Promise<CallResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode ?? 0, headers: h, body: parsed, text, raw });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
