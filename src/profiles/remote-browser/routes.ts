import { createHash } from 'node:crypto';
import websocket from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requireJsonBody, type TypedApp } from '../../api/app.js';
import { ANSWERS, HttpProblem, problemResponses } from '../../api/problem.js';
import { dateTime } from '../../api/schemas.js';
import { type RouteRegistrar, registerRoutes } from '../../api/route-registrar.js';
import type { TenantGuard } from '../../api/tenant-auth.js';
import type { Principal } from '../../application/caller.js';
import { browsableUrl } from './address-bar.js';
import { type OpenedSession, RemoteBrowserError, type RemoteBrowsers, type SessionOwner } from './remote-browsers.js';
import { MAX_MESSAGE_BYTES, parseViewerMessage, type ServiceMessage } from './viewer-messages.js';

/**
 * The remote browser's endpoints (docs/profiles-remote-browser.md): open one, stream it over a WebSocket, save what
 * it holds as a profile, or close it. Credential: a tenant key or console session with scope `capture` — a profile
 * is used by captures and made to be used by them. Unsafe methods with the console's cookie carry its CSRF token as
 * every console request does; the stream, a GET a browser cannot add headers to, is checked by its Origin instead.
 */

const PATH = '/v1/profiles/browser-sessions';
/** Bytes of frames a socket may hold unsent before the screencast waits for it (a few frames). */
const FRAME_BUFFER_BYTES = 512 * 1024;

const sessionParams = z.object({
  sessionId: z.string().max(100).describe('rbs_<id>, as the opening answered it.'),
});

const openBody = z
  .object({
    profileId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('Refresh: start from this profile’s latest contents; Save then makes its next version.'),
    url: z.string().max(4096).optional().describe('An http(s) address to open first; the blank page otherwise.'),
  })
  .strict();

const openedSchema = z
  .object({
    id: z.string().describe('rbs_<id>: unguessable, and reachable only with the credential that opened it.'),
    profileId: z.string().nullable().describe('The profile being refreshed, or null for a new one.'),
    viewport: z.object({ width: z.number().int(), height: z.number().int() }).describe('The page’s size, CSS px.'),
    expiresAt: dateTime().describe('When the hard limit closes it (REMOTE_BROWSER_MAX_MS).'),
    idleTimeoutMs: z.number().int().describe('It closes after this long without input (REMOTE_BROWSER_IDLE_MS).'),
    streamUrl: z.string().describe('The WebSocket path of its stream.'),
  })
  .describe('A remote browser, open.');

const saveBody = z
  .object({ name: z.string().trim().min(1).max(100).optional().describe('Required for a new profile.') })
  .strict();

const profileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.number().int(),
    sites: z.array(z.string()).describe('Registrable domains the profile holds state for.'),
  })
  .describe('The profile saved (never its cookie or storage values); the remote browser is closed.');

const closedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).describe('Closed without saving.');

const notFound = { 404: 'No such remote browser for this credential (another tenant’s or person’s, or ended).' };

/** The answer to each refusal of the remote browsers. */
function httpProblemOf(error: unknown): unknown {
  if (!(error instanceof RemoteBrowserError)) return error;
  switch (error.code) {
    case 'not_found':
      return new HttpProblem(404, error.message);
    case 'unknown_profile':
      return new HttpProblem(422, error.message);
    case 'invalid':
      return new HttpProblem(400, error.message);
    case 'tenant_limit':
      return new HttpProblem(409, error.message, 'Conflict');
    case 'busy':
      return new HttpProblem(503, error.message, 'Service Unavailable', {}, { 'Retry-After': '30' });
  }
}

const openedBody = (opened: OpenedSession) => ({
  id: opened.id,
  profileId: opened.profileId,
  viewport: opened.viewport,
  expiresAt: opened.expiresAt.toISOString(),
  idleTimeoutMs: opened.idleMs,
  streamUrl: `${PATH}/${opened.id}/stream`,
});

const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** Who the ledger says saved a profile: the key's hash, or the person of an OpenID Connect session. */
const actorOf = (p: Principal) =>
  p.keyHash ? `key:${p.keyHash}` : p.oidc ? `oidc:${p.oidc.provider}:${p.oidc.subject}` : 'legacy-key';

interface RouteDeps {
  guard: TenantGuard;
  browsers: RemoteBrowsers;
  /** PUBLIC_BASE_URL's origin. */
  publicOrigin: string;
}

/** The session a request stands for: its console session when it came with the cookie, else its key. */
async function ownerOf(guard: TenantGuard, req: FastifyRequest): Promise<SessionOwner> {
  const principal = req.principal!;
  const base = { tenantId: principal.tenantId, actor: actorOf(principal) };
  if (req.headers.authorization === undefined) {
    const console = await guard.consoleSession(req);
    if (console) return { ...base, holder: `console:${digest(console.id)}` };
  }
  return { ...base, holder: principal.keyHash ? `key:${principal.keyHash}` : 'legacy-key' };
}

/** Runs work, answering a refusal of the remote browsers as its HTTP problem. */
async function answer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw httpProblemOf(error);
  }
}

export function remoteBrowserRoutes(deps: { guard: TenantGuard; browsers: RemoteBrowsers; publicBaseUrl: string }) {
  const routeDeps: RouteDeps = {
    guard: deps.guard,
    browsers: deps.browsers,
    publicOrigin: new URL(deps.publicBaseUrl).origin,
  };
  return async (app: TypedApp) => {
    await app.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES } });
    registerRoutes(app, REMOTE_BROWSER_ROUTES, routeDeps);
  };
}

const REMOTE_BROWSER_ROUTES: RouteRegistrar<RouteDeps>[] = [openRoute, streamRoute, saveRoute, closeRoute];

function openRoute(app: TypedApp, { guard, browsers }: RouteDeps) {
  app.post(
    PATH,
    {
      onRequest: guard.require('capture'),
      preValidation: requireJsonBody,
      schema: {
        tags: ['profiles'],
        summary: 'Open a remote browser (to make or refresh a profile)',
        operationId: 'openBrowserSession',
        security: [{ bearer: [] }],
        body: openBody,
        response: {
          201: openedSchema,
          ...problemResponses({
            ...ANSWERS.tenantKey,
            ...ANSWERS.jsonBody,
            ...ANSWERS.internal,
            409: 'This tenant has REMOTE_BROWSER_PER_TENANT remote browsers open already.',
            422: 'profileId names no profile of this tenant.',
            503: 'Every remote browser of the service is in use (REMOTE_BROWSER_MAX), or the browser could not start; Retry-After says when to try again.',
          }),
        },
      },
    },
    async (req, reply) => {
      const { profileId, url } = req.body;
      let startUrl: string | undefined;
      if (url !== undefined) {
        const verdict = browsableUrl(url);
        if (!verdict.ok) throw new HttpProblem(400, `Invalid request: body.url: ${verdict.reason}`);
        startUrl = verdict.url;
      }
      const owner = await ownerOf(guard, req);
      const opened = await answer(() =>
        browsers.open(owner, { ...(profileId ? { profileId } : {}), ...(startUrl ? { startUrl } : {}) }).catch((e) => {
          if (e instanceof RemoteBrowserError) throw e;
          req.log.error({ err: e }, 'remote browser did not start');
          throw new RemoteBrowserError('busy', 'The remote browser could not be started; try again in a moment.');
        }),
      );
      return reply.code(201).send(openedBody(opened));
    },
  );
}

/** Before the stream opens: the console's own pages only, and a session of this caller. */
async function checkStreamRequest(deps: RouteDeps, req: FastifyRequest): Promise<void> {
  // A browser sends the page's Origin with every WebSocket: another site's page must not open the stream.
  // As for the console's other cookie requests: PUBLIC_BASE_URL's origin, or the one the request was sent to.
  const origin = req.headers.origin;
  const ownOrigin = `${req.protocol}://${req.host}`;
  if (
    req.headers.authorization === undefined &&
    origin !== undefined &&
    origin !== deps.publicOrigin &&
    origin !== ownOrigin
  )
    throw new HttpProblem(403, 'The stream opens only from the console’s own pages.', 'Forbidden');
  const { sessionId } = req.params as { sessionId: string };
  if (!deps.browsers.has(await ownerOf(deps.guard, req), sessionId))
    throw httpProblemOf(new RemoteBrowserError('not_found', notFound[404]));
}

type StreamSocket = Parameters<NonNullable<Parameters<TypedApp['route']>[0]['wsHandler']>>[0];

/** Joins a viewer's WebSocket to its remote browser: frames and messages out, input in. */
async function streamToViewer(deps: RouteDeps, socket: StreamSocket, req: FastifyRequest): Promise<void> {
  const { sessionId } = req.params as { sessionId: string };
  const send = (m: ServiceMessage) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(m));
  };
  let connection: Awaited<ReturnType<RemoteBrowsers['connect']>> | null = null;
  let viewport = { width: 0, height: 0 };
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary || !connection) return;
    const message = parseViewerMessage(data.toString('utf8'), viewport);
    if (message) connection.message(message);
  });
  socket.on('close', () => connection?.leave());
  try {
    connection = await deps.browsers.connect(await ownerOf(deps.guard, req), sessionId, {
      frame(jpeg, taken) {
        if (socket.readyState !== socket.OPEN) return taken();
        // The next frame is asked for at once while the socket keeps up, else once this one is written.
        const keepingUp = socket.bufferedAmount < FRAME_BUFFER_BYTES;
        socket.send(jpeg, { binary: true }, () => {
          if (!keepingUp) taken();
        });
        if (keepingUp) taken();
      },
      send(m) {
        if (m.t === 'viewport') viewport = { width: m.width, height: m.height };
        send(m);
      },
      end(reason) {
        send({ t: 'ended', reason });
        socket.close(1000, 'ended');
      },
    });
    if (socket.readyState !== socket.OPEN) connection.leave();
  } catch (error) {
    send({ t: 'ended', reason: error instanceof Error ? error.message : 'The remote browser is gone.' });
    socket.close(1011, 'gone');
  }
}

function streamRoute(app: TypedApp, deps: RouteDeps) {
  const { guard, browsers } = deps;
  app.route({
    method: 'GET',
    url: `${PATH}/:sessionId/stream`,
    // wsHandler alone (not `websocket: true`, which hides the route from the OpenAPI document): a documented operation.
    onRequest: guard.require('capture'),
    preHandler: (req) => checkStreamRequest(deps, req),
    schema: {
      tags: ['profiles'],
      summary: 'Stream a remote browser (WebSocket)',
      description:
        'A WebSocket (RFC 6455). The service sends each screencast frame as a binary message (JPEG) and JSON text messages {t: viewport|location|refused|ended}; the viewer sends JSON text messages: mouse, wheel, key, text (paste), navigate, back, reload (docs/profiles-remote-browser.md). A second stream of the same session replaces the first.',
      operationId: 'streamBrowserSession',
      security: [{ bearer: [] }],
      params: sessionParams,
      response: {
        101: z.undefined().describe('Switching to the WebSocket protocol (with Upgrade: websocket).'),
        200: openedSchema.describe('Without Upgrade: websocket, the session as it was opened.'),
        ...problemResponses({
          ...ANSWERS.tenantKey,
          ...ANSWERS.internal,
          ...notFound,
          403: 'The API key lacks the scope (spec 5.3), or a console page of another origin asked.',
        }),
      },
    },
    handler: async (req) => {
      const { sessionId } = req.params as { sessionId: string };
      return openedBody(await answer(async () => browsers.describe(await ownerOf(guard, req), sessionId)));
    },
    wsHandler: (socket, req) => streamToViewer(deps, socket, req),
  });
}

function saveRoute(app: TypedApp, { guard, browsers }: RouteDeps) {
  app.post(
    `${PATH}/:sessionId/save`,
    {
      onRequest: guard.require('capture'),
      preValidation: requireJsonBody,
      schema: {
        tags: ['profiles'],
        summary: 'Save a remote browser as a profile, and close it',
        operationId: 'saveBrowserSession',
        security: [{ bearer: [] }],
        params: sessionParams,
        body: saveBody,
        response: {
          200: profileSchema,
          ...problemResponses({
            ...ANSWERS.tenantKey,
            ...ANSWERS.jsonBody,
            ...ANSWERS.internal,
            ...notFound,
            400: 'A new profile without a name, or an invalid field; the detail names it.',
          }),
        },
      },
    },
    async (req) => {
      const owner = await ownerOf(guard, req);
      const name = req.body.name;
      return answer(() => browsers.save(owner, req.params.sessionId, name ? { name } : {}));
    },
  );
}

function closeRoute(app: TypedApp, { guard, browsers }: RouteDeps) {
  app.delete(
    `${PATH}/:sessionId`,
    {
      onRequest: guard.require('capture'),
      schema: {
        tags: ['profiles'],
        summary: 'Close a remote browser without saving',
        operationId: 'closeBrowserSession',
        security: [{ bearer: [] }],
        params: sessionParams,
        response: {
          200: closedSchema,
          ...problemResponses({ ...ANSWERS.tenantKey, ...ANSWERS.internal, ...notFound }),
        },
      },
    },
    async (req) => {
      const owner = await ownerOf(guard, req);
      await answer(() => browsers.end(owner, req.params.sessionId));
      return { id: req.params.sessionId, deleted: true as const };
    },
  );
}
