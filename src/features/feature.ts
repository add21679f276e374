import type { ApiPlugin } from '../api/app.js';
import type { McpTool } from '../api/mcp/mcp-tools.js';
import type { Cors } from '../api/cors.js';
import type { OperatorGuard } from '../api/operator-auth.js';
import type { TenantGuard } from '../api/tenant-auth.js';
import type { DatabaseRuntime } from '../roles/database-runtime.js';
import type { ProcessRuntime } from '../roles/process-runtime.js';

/**
 * What the api role runs of one area of the product (DESIGN decision 21): its routes, the MCP tools that call the
 * same services, and the stop of whatever it runs beside them (a consumer, a listener). A feature is made by a
 * factory from the shared pieces below and its application services; the role only lists features.
 */
export interface Feature {
  /** Fastify plugins (routes + schemas + hooks), each registered in its own scope, in order. */
  routes: ApiPlugin[];
  /** Tools of the MCP server (docs/mcp.md), each calling the service its REST route calls. */
  mcpTools?: McpTool[];
  /** Ends what the feature runs besides its routes; called after the HTTP server has closed. */
  stop?(): Promise<void>;
}

/** The pieces every feature of the api role is built from. */
export interface ApiRuntime {
  runtime: ProcessRuntime;
  data: DatabaseRuntime;
  /** Who calls with a tenant key or console session: scopes and rate limits (spec 5.4, 8). */
  guard: TenantGuard;
  /** Who calls with the admin key or an operator session. */
  operator: OperatorGuard;
  /** CORS_ORIGINS. */
  cors: Cors;
  /** Until when what is made of a capture is locked like its evidence (docs/storage.md, Retention); null: not locked. */
  evidenceRetainUntil(captureId: string): Promise<Date | null>;
}

/**
 * The features a role runs, in the order they were started (their routes register in that order). When a start
 * fails, `stop` ends those already started, so a start tried again (NATS not answering yet) finds nothing left over.
 */
export function featureList() {
  const started: Feature[] = [];
  return {
    async start<F extends Feature>(feature: F | Promise<F>): Promise<F> {
      const made = await feature;
      started.push(made);
      return made;
    },
    routes: (): ApiPlugin[] => started.flatMap((f) => f.routes),
    mcpTools: (): McpTool[] => started.flatMap((f) => f.mcpTools ?? []),
    async stop(): Promise<void> {
      for (const f of [...started].reverse()) await f.stop?.();
    },
  };
}
