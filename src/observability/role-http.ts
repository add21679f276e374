import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { problem } from '../domain/problem-body.js';
import { scrape } from './metrics.js';
import { METRICS_REFUSAL, metricsAllowed } from './metrics-access.js';
import type { Readiness } from './readiness.js';

/**
 * A process without the api role still answers GET /health (readiness: its NATS and Postgres connections)
 * and GET /metrics on PORT, so every role of a scaled deployment can be probed and scraped
 * (docs/scaling.md). Anything else is 404 in the spec's error body.
 */
const JSON_TYPE = 'application/json; charset=utf-8';

export interface RoleHttp {
  url: string;
  close(): Promise<void>;
}

export async function startRoleHttp(opts: {
  port: number;
  host: string;
  roles: string[];
  ready: () => Promise<Readiness>;
  metricsToken?: string | undefined;
}): Promise<RoleHttp> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(
        405,
        JSON_TYPE,
        JSON.stringify(problem(405, 'This process answers GET /health and GET /metrics only.')),
      );
    }
    if (path === '/health') {
      void opts
        .ready()
        .then((r) =>
          send(
            r.ok ? 200 : 503,
            JSON_TYPE,
            JSON.stringify({ status: r.ok ? 'ok' : 'degraded', roles: opts.roles, checks: r.checks }),
          ),
        );
      return;
    }
    if (path === '/metrics') {
      if (!metricsAllowed(req.headers.authorization, req.socket.remoteAddress, opts.metricsToken)) {
        return send(401, JSON_TYPE, JSON.stringify(problem(401, METRICS_REFUSAL)));
      }
      void scrape().then((text) => send(200, 'text/plain; version=0.0.4; charset=utf-8', text));
      return;
    }
    send(
      404,
      JSON_TYPE,
      JSON.stringify(
        problem(404, `This process runs ${opts.roles.join(', ')}; the API is served by processes with the api role.`),
      ),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
