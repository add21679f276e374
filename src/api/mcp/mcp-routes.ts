import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Caller } from '../../application/caller.js';
import { DomainError, tenantRateLimited } from '../../domain/errors.js';
import { invalidRequestDetail, type TypedApp } from '../app.js';
import type { Principal } from '../../application/caller.js';
import type { Cors } from '../cors.js';
import { HttpProblem, type ProblemBody, problem, logUnexpected, unexpectedErrorProblem } from '../problem.js';
import { namesNothing } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import type { McpTool } from './mcp-tools.js';

/**
 * The MCP server (docs/mcp.md; docs/architecture.md): `POST /mcp`, Streamable HTTP, stateless — a new
 * SDK `Server` and transport per request, answering JSON (no SSE stream, no session). The tenant key comes as
 * `Authorization: Bearer` and is checked before MCP sees the request; each tool then checks its endpoint's scope
 * and rate limit and calls the application service its REST route calls.
 *
 * The SDK's low-level `Server` is used rather than `McpServer`: tool arguments are validated by the REST
 * schemas themselves, so a bad argument gets the REST 400 detail word for word, and the list query (a zod pipe
 * that coerces and renames) keeps its JSON Schema.
 */

export interface McpRouteDeps {
  /** The tools the features offer (mcp-tools.ts), each calling the service its REST route calls. */
  tools: McpTool[];
  guard: TenantGuard;
  /** CORS_ORIGINS: a request with any other Origin is refused (MCP Streamable HTTP: against DNS rebinding). */
  cors: Cors;
}

const SERVER_INFO = { name: 'capture-ledger', title: 'Capture Ledger', version: '0.6.0' };
const INSTRUCTIONS =
  'Capture public web pages as signed, time-stamped evidence. capture_url returns a capture id at once; call get_capture until its status is complete (or failed), then verify_capture. A refused call is an error result whose first text is the reason and whose second is the error body of the REST API (status, title, detail; limitType and quota on 429; retryAfter in seconds where REST sends Retry-After).';

/** JSON-RPC error code of a request refused before MCP handles it (credential, origin, per-address or tenant limit); `data` is the spec 7.1 body. */
export const REFUSED_AT_DOOR = -32010;

/**
 * Most JSON-RPC messages one POST may carry. MCP 2025-06-18 dropped batches; older protocol versions allow them,
 * and a client batches a response or a call or two, not a hundred. Every message costs a tenant token anyway; the
 * cap bounds what one request makes the process do and answer at once (a tools/list answer is ~15 KB).
 */
export const MAX_BATCH_MESSAGES = 10;

/**
 * tools/call as the SDK's dispatcher parses it: only the method, so a call without a name reaches the Server's own
 * check of its params and is answered InvalidParams (-32602), not a failed parse of the handler's schema (-32603).
 */
const toolsCallMethod = z.looseObject({ method: z.literal('tools/call') });

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade']);

const METHOD_NOT_ALLOWED = problem(
  405,
  'This MCP endpoint is stateless: POST JSON-RPC messages to /mcp. There is no SSE stream (GET) and no session to end (DELETE).',
  'Method Not Allowed',
);

/** An error of a route or service as the spec's error body, with Retry-After carried as `retryAfter` (no headers in a tool result). */
function problemOf(err: unknown): { body: ProblemBody; headers: Record<string, string> } | null {
  if (err instanceof HttpProblem) return { body: err.body(), headers: err.headers };
  if (err instanceof DomainError)
    return {
      body: problem(err.status, err.detail, err.title, err.extras.body ?? {}),
      headers: err.extras.headers ?? {},
    };
  return null;
}

/**
 * A missing, invalid or revoked key, answered 403 where REST answers 401. MCP authorization (2025-06-18) is OAuth, and
 * this server does not use it: an MCP client that can do OAuth (the MCP Inspector, the SDK's transport with an
 * authProvider) reads any 401 as "authorize first" and starts protected-resource-metadata discovery and client
 * registration, so its user would see an OAuth failure instead of the reason. 403 — the credentials given do not
 * grant access (RFC 9110 15.5.4) — with no WWW-Authenticate starts nothing, and the SDK client's error carries the body.
 */
function keyRefused(body: ProblemBody): ProblemBody {
  return problem(403, body.detail, 'Forbidden');
}

function toolError(body: ProblemBody, headers: Record<string, string>): CallToolResult {
  const retryAfter = headers['Retry-After'];
  return {
    isError: true,
    content: [
      { type: 'text', text: body.detail },
      { type: 'text', text: JSON.stringify(retryAfter ? { ...body, retryAfter } : body) },
    ],
  };
}

const jsonSchemaOf = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, target: 'draft-7', unrepresentable: 'any' }) as Tool['inputSchema'];

/** JSON-RPC 2.0's code for a request that is not a valid one (the SDK's ErrorCode.InvalidRequest). */
const INVALID_REQUEST = -32600;

/**
 * The MCP SDK, imported on the first POST /mcp: about a fifth of a second of CPU that an API process serving no agent
 * does not pay at start.
 */
async function mcpSdk() {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Server: server.Server,
    Transport: transport.WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
}

/**
 * What every request's MCP server answers from: the tools by name and their listing, computed once, at the first
 * tools/list (their JSON Schemas, converted from zod, are CPU an API process serving no agent does not pay at start).
 */
interface McpEndpoint {
  deps: McpRouteDeps;
  byName: Map<string, McpTool>;
  listed(): Tool[];
}

export function mcpRoutes(deps: McpRouteDeps) {
  const tools = deps.tools;
  let listing: Tool[] | undefined;
  const endpoint: McpEndpoint = {
    deps,
    byName: new Map(tools.map((t) => [t.name, t])),
    listed: () => (listing ??= tools.map(listedTool)),
  };
  return async (app: TypedApp) => {
    app.post('/mcp', { schema: { hide: true } }, (req, reply) => answerMcpPost(endpoint, req, reply));
    // Stateless: no SSE stream to open and no session to delete (MCP Streamable HTTP allows 405 for both).
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: '/mcp',
        schema: { hide: true },
        handler: async (_req, reply) =>
          reply.code(405).header('Allow', 'POST').type('application/json; charset=utf-8').send(METHOD_NOT_ALLOWED),
      });
    }
  };
}

/** A tool as tools/list shows it. */
function listedTool(t: McpTool): Tool {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchemaOf(t.input, 'input'),
    ...(t.output ? { outputSchema: jsonSchemaOf(t.output, 'output') } : {}),
    annotations: { title: t.title, ...t.annotations },
  };
}

/** POST /mcp: the door (origin, key, batch size, tenant tokens), then one stateless MCP server answering as JSON. */
async function answerMcpPost(endpoint: McpEndpoint, req: FastifyRequest, reply: FastifyReply) {
  const { deps } = endpoint;
  const origin = req.headers.origin;
  if (origin !== undefined && !deps.cors.allows(origin)) {
    return refuse(reply, req, {
      body: problem(403, `Origin ${origin} may not call this MCP endpoint (CORS_ORIGINS).`, 'Forbidden'),
      headers: {},
    });
  }
  let principal: Principal;
  try {
    principal = await deps.guard.authenticate(req);
    await admit(deps.guard, req.body, principal);
  } catch (err) {
    const p = problemOf(err);
    if (!p) throw err;
    return refuse(reply, req, p, p.body.status === 400 ? INVALID_REQUEST : REFUSED_AT_DOOR);
  }
  const sdk = await mcpSdk();
  const server = serverFor(endpoint, sdk, principal, req);
  const transport = new sdk.Transport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      // The body is already parsed; hop-by-hop and length headers describe the Node request, not this one.
      if (v === undefined || HOP_HEADERS.has(k)) continue;
      headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    const response = await transport.handleRequest(
      new Request(`http://mcp.local${req.url}`, { method: 'POST', headers }),
      { parsedBody: req.body },
    );
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    const text = await response.text();
    return text ? reply.send(text) : reply.send();
  } finally {
    await server.close();
  }
}

async function callTool(
  guard: TenantGuard,
  tool: McpTool,
  args: unknown,
  principal: Principal,
  req: FastifyRequest,
): Promise<CallToolResult> {
  const caller: Caller = { principal, correlationId: req.id, log: req.log };
  try {
    // The endpoint's own gate (spec 5.4): its scope, or the per-address limit of a public read. The message already
    // paid its tenant token at the door (admit).
    if (tool.scope) guard.permit(principal, tool.scope);
    else await guard.perIp()(req);
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) {
      const unknown = namesNothing(parsed.error.issues);
      if (unknown !== null) throw new HttpProblem(404, unknown, 'Not Found');
      const issues = parsed.error.issues.map((i) => ({ instancePath: `/${i.path.join('/')}`, message: i.message }));
      throw new HttpProblem(400, invalidRequestDetail(issues, tool.inputContext), 'Bad Request');
    }
    const out = await tool.run(parsed.data, caller);
    if ('content' in out) return { content: out.content as CallToolResult['content'] };
    // As the REST serializer does: the response schema shapes what is answered.
    const value = (tool.output ? tool.output.parse(out.structured) : out.structured) as Record<string, unknown>;
    return { structuredContent: value, content: [{ type: 'text', text: JSON.stringify(value) }] };
  } catch (err) {
    const p = problemOf(err);
    if (p) return toolError(p.body, p.headers);
    // As REST answers it: 503 with Retry-After while NATS elects a leader, 500 otherwise.
    const answer = unexpectedErrorProblem(err, req.id);
    logUnexpected(req.log, err, answer, { tool: tool.name });
    return toolError(answer.body(), answer.headers);
  }
}

function serverFor(
  { deps, byName, listed }: McpEndpoint,
  sdk: Awaited<ReturnType<typeof mcpSdk>>,
  principal: Principal,
  req: FastifyRequest,
): Server {
  const { Server, ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode } = sdk;
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed() }));
  server.setRequestHandler(toolsCallMethod, async (raw) => {
    // The Server checked the params against CallToolRequestSchema before calling this.
    const { params } = CallToolRequestSchema.parse(raw);
    const tool = byName.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool '${params.name}'; tools/list names them.`);
    return callTool(deps.guard, tool, params.arguments, principal, req);
  });
  return server;
}

/** A refusal before MCP: the HTTP status of REST, a JSON-RPC error whose message is the detail and whose data is the error body. */
function refuse(
  reply: FastifyReply,
  req: FastifyRequest,
  p: { body: ProblemBody; headers: Record<string, string> },
  code = REFUSED_AT_DOOR,
) {
  const body = req.body as { id?: unknown } | undefined;
  const id =
    body &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    (typeof body.id === 'string' || typeof body.id === 'number')
      ? body.id
      : null;
  for (const [k, v] of Object.entries(p.headers)) reply.header(k, v);
  const answer = p.body.status === 401 ? keyRefused(p.body) : p.body;
  return reply
    .code(answer.status)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', id, error: { code, message: answer.detail, data: answer } });
}

/**
 * What a POST may carry and what it costs: at most MAX_BATCH_MESSAGES messages, and one tenant token per message,
 * whatever it is — tools/list, ping, a tools/call of any tool, a call whose params the SDK then refuses, a message
 * that is no JSON-RPC at all — taken before MCP reads any of them. A tool then checks only its scope (or the
 * per-address limit of a public read). Throws the refusal.
 */
async function admit(guard: TenantGuard, body: unknown, principal: Principal): Promise<void> {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > MAX_BATCH_MESSAGES) {
    throw new HttpProblem(
      400,
      `A POST to /mcp may carry at most ${MAX_BATCH_MESSAGES} JSON-RPC messages; send them one per request (MCP 2025-06-18 has no batches).`,
      'Bad Request',
    );
  }
  const d = await guard.takeTenantTokens(principal.tenantId, Math.max(1, messages.length));
  if (!d.allowed) throw tenantRateLimited(d.retryAfterSec);
}
