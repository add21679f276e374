import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { NoteVerifier } from '../transparency/checkpoint.js';
import { decideAddCheckpoint, parseAddCheckpoint, RequestError } from './add-checkpoint.js';
import type { Cosigner } from './cosigner.js';
import type { WitnessState } from './witness-state.js';

/**
 * A witness's HTTP interface (C2SP tlog-witness): `POST /add-checkpoint` answers cosignature lines or the spec's
 * status codes; `GET /health` for probes and `GET /key` (the witness's vkey, text/plain) beside it. No credential:
 * a request is only as good as the log signature on its checkpoint.
 */
export const TLOG_SIZE_CONTENT_TYPE = 'text/x.tlog.size';
const MAX_BODY_BYTES = 64 * 1024;

export interface WitnessServer {
  url: string;
  close(): Promise<void>;
}

export interface WitnessServerOptions {
  cosigner: Cosigner;
  /** Trusted log keys by origin. */
  logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  state: WitnessState;
  port: number;
  host: string;
  log: Logger;
  now?: () => Date;
}

export async function startWitnessServer(opts: WitnessServerOptions): Promise<WitnessServer> {
  const { cosigner, logs, state, log } = opts;
  const now = opts.now ?? (() => new Date());
  /** One add-checkpoint at a time per origin: checking the old size and persisting the new one are atomic (spec). */
  const chains = new Map<string, Promise<unknown>>();
  const serially = <T>(origin: string, work: () => Promise<T>): Promise<T> => {
    const run = (chains.get(origin) ?? Promise.resolve()).then(work, work);
    chains.set(
      origin,
      run.catch(() => undefined),
    );
    return run;
  };

  async function addCheckpoint(body: string, res: ServerResponse): Promise<void> {
    const request = parseAddCheckpoint(body);
    const origin = request.note.slice(0, request.note.indexOf('\n'));
    // Only known origins get a lock (and a map entry): any other is a 404 that touches no state.
    const lockOf = logs.has(origin) ? serially : <T>(_: string, work: () => Promise<T>) => work();
    await lockOf(origin, async () => {
      const answer = decideAddCheckpoint(request, logs, (o) => state.get(o));
      if (answer.status !== 200) {
        if (answer.conflict) {
          log.warn(
            { origin, reason: answer.reason },
            'witness: refused a checkpoint that contradicts the one it cosigned',
          );
          await state.recordConflict({
            origin,
            reason: answer.reason,
            note: request.note,
            oldSize: request.oldSize,
            at: now(),
          });
        }
        if (answer.latestSize !== undefined) return send(res, 409, `${answer.latestSize}\n`, TLOG_SIZE_CONTENT_TYPE);
        return send(res, answer.status, `${answer.reason}\n`);
      }
      const at = now();
      await state.put(answer.checkpoint.origin, answer.record, at);
      send(res, 200, cosigner.cosign(answer.checkpoint.body, Math.floor(at.getTime() / 1000)));
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://witness').pathname;
    if (path === '/add-checkpoint') {
      if (req.method !== 'POST')
        return send(res, 405, 'add-checkpoint takes a POST\n', 'text/plain', { allow: 'POST' });
      const body = await readBody(req);
      if (body === null) return send(res, 413, `the request body is over ${MAX_BODY_BYTES} bytes\n`);
      try {
        return await addCheckpoint(body, res);
      } catch (error) {
        if (error instanceof RequestError) return send(res, 400, `${error.message}\n`);
        throw error;
      }
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n');
    if (path === '/health')
      return send(res, 200, `${JSON.stringify({ status: 'ok', role: 'witness' })}\n`, 'application/json');
    if (path === '/key') return send(res, 200, `${cosigner.vkey}\n`);
    return send(res, 404, 'not found: this witness answers POST /add-checkpoint, GET /key and GET /health\n');
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, 'witness: request failed');
      if (!res.headersSent) send(res, 500, 'the witness could not record the checkpoint\n');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
