import { Readable } from 'node:stream';
/**
 * The replay origin: a listener of its own on another origin than the API, serving only what
 * ReplayWeb.page needs to replay a capture — its viewer (ui.js, the service worker sw.js), one page per capture
 * that the verification page frames (sandboxed), and the capture's WACZ bytes. Archived pages run here, so their
 * scripts can reach neither the verification page's DOM and address bar nor a service worker scope of the API
 * origin: the browser's same-origin policy keeps them out, as webrecorder's and Perma.cc's separate replay hosts do.
 *
 * It sets no cookies, answers nothing of the API (verification, keys, the verifier module) and serves no script
 * a service worker could be registered from except /replay/sw.js: the viewer's own worker, which ours imports.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { CaptureReads } from '../application/capture-reads.js';
import type { CaptureVerification } from '../application/capture-verification.js';
import type { Config } from '../config/config.js';
import { DomainError } from '../domain/errors.js';
import { parseByteRange } from './byte-range.js';
import { HttpProblem, sendProblem, logUnexpected, unexpectedErrorProblem } from './problem.js';
import { REPLAY_BASE, type ReplayAssets, replayAssets } from './replay-assets.js';
import { replayPage } from './replay-page.js';
import { RWP_WORKER, replayWorkerScript } from './replay-worker.js';
import { HSTS } from './response-headers.js';
import type { TenantGuard } from './tenant-auth.js';

export interface ReplayServer {
  /** The replay origin as browsers reach it, e.g. http://127.0.0.1:8081 (no trailing slash). */
  origin: string;
  /** The port it listens on (this process's own address: never a capture target). */
  port: number;
  close(): Promise<void>;
}

export interface ReplayServerDeps {
  config: Pick<Config, 'HOST' | 'REPLAY_PORT' | 'REPLAY_ORIGIN' | 'PUBLIC_BASE_URL' | 'TRUST_PROXY'>;
  /** Which captures have a bundle to replay (the same rule as verification: complete, signed, within VERIFY_MAX_BYTES). */
  verification: Pick<CaptureVerification, 'verifiable'>;
  reads: Pick<CaptureReads, 'download'>;
  guard: Pick<TenantGuard, 'perIp'>;
  log: Logger;
  /** The viewer's files; default: npm `replaywebpage`'s (tests wrap them, e.g. a worker that installs slowly). */
  assets?: ReplayAssets;
}

/** The page the verification page frames for a capture. */
export const replayPagePath = (captureId: string) => `/captures/${encodeURIComponent(captureId)}`;
const waczPath = (captureId: string) => `/bundles/${encodeURIComponent(captureId)}.wacz`;

/**
 * The default replay origin: PUBLIC_BASE_URL's scheme, another host name for loopback (localhost ↔ 127.0.0.1: another
 * site, so not even cookies are shared), and the listener's port. Behind a proxy REPLAY_ORIGIN names it instead.
 */
export function defaultReplayOrigin(publicBaseUrl: string, port: number): string {
  const base = new URL(publicBaseUrl);
  const host =
    base.hostname === 'localhost'
      ? '127.0.0.1'
      : /^127\./.test(base.hostname) || base.hostname === '[::1]'
        ? 'localhost'
        : base.hostname;
  return `${base.protocol}//${host}:${port}`;
}

/**
 * The site (registrable domain) of a host name, as cookies and SameSite see it, approximated without the public
 * suffix list: an IP address or a one-label name is its own site; any other name, its last two labels. Two hosts
 * under a public suffix of two labels (a.co.uk, b.co.uk) are thus judged one site: the warning errs toward warning.
 */
export function siteOf(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') || /^\d+(\.\d+){3}$/.test(host)) return host;
  return host.split('.').slice(-2).join('.');
}

const isLoopbackHost = (hostname: string) => /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(hostname);

/**
 * Why the replay origin is unsafe for a deployment, or null. Replayed pages run scripts of the captured sites; on the
 * same site as PUBLIC_BASE_URL they can set cookies the console's browser sends (a session of the attacker's: the
 * console would act in the attacker's tenant) and make same-site requests that SameSite=Strict cookies go with. A
 * production deployment (https, or any host that is not loopback) puts the replay origin on another registrable
 * domain; `make run` on loopback uses localhost and 127.0.0.1, two sites, and is not warned.
 */
export function replayOriginWarning(publicBaseUrl: string, replayOrigin: string): string | null {
  const base = new URL(publicBaseUrl);
  const replay = new URL(replayOrigin);
  if (siteOf(base.hostname) !== siteOf(replay.hostname)) return null;
  if (base.protocol !== 'https:' && isLoopbackHost(base.hostname)) return null;
  return `REPLAY_ORIGIN (${replay.origin}) is on the same site as PUBLIC_BASE_URL (${siteOf(base.hostname)}): replayed pages could plant cookies the console sends and make same-site requests to the API. Serve replays from a host name on another registrable domain (for example ledger-replay.example.net beside ledger.example.org) and set REPLAY_ORIGIN (docs/security.md, The replay origin).`;
}

// The replay page's own scripts and the viewer from this origin; the replay iframe and the service worker are this origin's.
const pageCsp = (nonce: string) =>
  `default-src 'none'; script-src 'nonce-${nonce}' 'self'; style-src 'nonce-${nonce}' 'self'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; frame-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'`;
// Scripts and the bundle: nothing of theirs may load anything from elsewhere (the service worker obeys its script's CSP).
const ASSET_CSP = "default-src 'self'; base-uri 'none'; form-action 'none'";

export async function startReplayServer(deps: ReplayServerDeps): Promise<ReplayServer> {
  const { config } = deps;
  const app = createReplayApp(deps);
  addReplayHeaders(app, deps);
  answerProblems(app);
  viewerRoutes(app, deps.assets ?? replayAssets());
  capturePageRoute(app, deps);
  bundleRoute(app, deps);
  const address = await app.listen({ port: config.REPLAY_PORT, host: config.HOST });
  const port = Number(new URL(address).port);
  const origin = config.REPLAY_ORIGIN ?? defaultReplayOrigin(config.PUBLIC_BASE_URL, port);
  const warning = replayOriginWarning(config.PUBLIC_BASE_URL, origin);
  if (warning) deps.log.warn({ replayOrigin: origin, publicBaseUrl: config.PUBLIC_BASE_URL }, warning);
  deps.log.info({ replayOrigin: origin, address }, 'replay origin listening');
  return { origin, port, close: () => app.close() };
}

/** No route of the replay origin has a schema, so none is ever compiled. */
const noSchemaCompiler = () => () => {
  throw new Error('the replay origin compiles no schemas');
};

function createReplayApp({ config, log }: ReplayServerDeps) {
  const trustProxy = config.TRUST_PROXY;
  return Fastify({
    loggerInstance: log.child({ listener: 'replay' }) as FastifyBaseLogger,
    // Given here, Fastify does not load its default compilers (ajv, fast-json-stringify) when it starts.
    schemaController: { compilersFactory: { buildValidator: noSchemaCompiler, buildSerializer: noSchemaCompiler } },
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : trustProxy,
  });
}

type ReplayApp = ReturnType<typeof createReplayApp>;

/** Only /replay/sw.js may be a service worker; per-address limit; no cookies; this origin's CSP, CORP and HSTS. */
function addReplayHeaders(app: ReplayApp, { config, guard }: ReplayServerDeps) {
  const httpsBase = config.PUBLIC_BASE_URL.startsWith('https:') || config.REPLAY_ORIGIN?.startsWith('https:');
  app.addHook('onRequest', async (req) => {
    // A service worker may be registered from /replay/sw.js only (browsers send this header for its script; not for
    // the scripts it imports, such as the viewer's own /replay/rwp-sw.js, which is thus no worker of its own).
    if (req.headers['service-worker'] === 'script' && req.url.split('?')[0] !== `${REPLAY_BASE}sw.js`) {
      throw new HttpProblem(404, 'No service worker script here.', 'Not Found');
    }
  });
  app.addHook('onRequest', guard.perIp());
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    // Only this origin's pages (the viewer, the replay iframe) read its bytes.
    reply.header('Cross-Origin-Resource-Policy', 'same-origin');
    if (!reply.hasHeader('Content-Security-Policy')) reply.header('Content-Security-Policy', ASSET_CSP);
    if (httpsBase) reply.header('Strict-Transport-Security', HSTS);
    reply.removeHeader('Set-Cookie');
    return payload;
  });
}

/** Errors and unknown paths answered with the spec's error body. */
function answerProblems(app: ReplayApp) {
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof HttpProblem) return sendProblem(reply, err);
    if (err instanceof DomainError)
      return sendProblem(
        reply,
        new HttpProblem(err.status, err.detail, err.title, err.extras.body ?? {}, err.extras.headers ?? {}),
      );
    const answer = unexpectedErrorProblem(err, req.id);
    logUnexpected(req.log, err, answer);
    return sendProblem(reply, answer);
  });
  app.setNotFoundHandler((req, reply) =>
    sendProblem(
      reply,
      new HttpProblem(
        404,
        `No route for ${req.method} ${req.url.split('?')[0]}: this origin serves only replays of captures.`,
        'Not Found',
      ),
    ),
  );
}

/**
 * ui.js loads in the replay page and again in the viewer's iframe (under /replay/). The worker registered is ours
 * (/replay/sw.js, src/api/replay-worker.ts), which imports the viewer's own sw.js from /replay/rwp-sw.js.
 */
function viewerRoutes(app: ReplayApp, assets: ReplayAssets) {
  const script = (reply: FastifyReply, bytes: Buffer | string) =>
    reply.type('application/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(bytes);
  for (const [path, name] of [
    ['/ui.js', 'ui.js'],
    [`${REPLAY_BASE}ui.js`, 'ui.js'],
    [`${REPLAY_BASE}${RWP_WORKER}`, 'sw.js'],
  ] as const) {
    app.get(path, async (_req, reply) => script(reply, await assets.get(name)));
  }
  app.get(`${REPLAY_BASE}sw.js`, async (_req, reply) => script(reply, replayWorkerScript));
}

/** The page the verification page frames: the viewer, pointed at this capture's bundle. */
function capturePageRoute(app: ReplayApp, { verification }: ReplayServerDeps) {
  app.get<{ Params: { captureId: string } }>('/captures/:captureId', async (req, reply) => {
    const { captureId } = req.params;
    const row = await verification.verifiable(captureId);
    const nonce = randomBytes(16).toString('base64');
    return reply
      .header('Content-Security-Policy', pageCsp(nonce))
      .header('Cache-Control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(replayPage({ captureId, url: row.url, waczPath: waczPath(captureId) }, nonce));
  });
}

/** The capture's WACZ, which ReplayWeb.page reads by byte range. */
function bundleRoute(app: ReplayApp, { verification, reads }: ReplayServerDeps) {
  app.get<{ Params: { captureId: string } }>('/bundles/:captureId.wacz', async (req, reply) => {
    const { captureId } = req.params;
    await verification.verifiable(captureId);
    const wacz = await reads.download(captureId, 'wacz');
    reply
      .header('Accept-Ranges', 'bytes')
      .type('application/wacz+zip')
      .header('Cache-Control', 'private, max-age=3600');
    const range = parseByteRange(req.headers.range, wacz.size);
    if (range.kind === 'unsatisfiable') return reply.header('Content-Range', `bytes */${wacz.size}`).code(416).send();
    if (range.kind === 'partial') {
      return reply
        .code(206)
        .header('Content-Range', `bytes ${range.start}-${range.end}/${wacz.size}`)
        .header('Content-Length', String(range.end - range.start + 1))
        .send(Readable.from(await wacz.open(range)));
    }
    return reply.header('Content-Length', String(wacz.size)).send(Readable.from(await wacz.open()));
  });
}
