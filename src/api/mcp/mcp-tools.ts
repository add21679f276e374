import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CaptureAdmission } from '../../application/capture-admission.js';
import type { CaptureReads } from '../../application/capture-reads.js';
import type { CaptureVerification } from '../../application/capture-verification.js';
import type { Caller } from '../../application/caller.js';
import type { Schedules } from '../../application/schedules.js';
import type { Scope } from '../../domain/events.js';
import { captureRecordSchema, captureStatusSchema } from '../capture-schemas.js';
import {
  acceptedSchema,
  batchBody,
  batchSchema,
  captureIdParams,
  listQuery,
  listSchema,
  submitBody,
} from '../routes/captures.js';
import {
  createBody,
  deletedScheduleSchema,
  scheduleIdParams,
  scheduleListSchema,
  scheduleSchema,
} from '../routes/schedules.js';
import { accountUsageSchema } from '../routes/tenancy.js';
import { verificationSchema, verifyParams } from '../routes/verification.js';

/**
 * The MCP tools (docs/mcp.md): each is a REST endpoint's input schema, its scope, and a call of the
 * application service its route calls (DESIGN decision 15), so a tool answers what the endpoint answers.
 */

/** A tool's result: structured (checked against `output`) or content blocks of its own (a PDF). */
export type ToolOutput = { structured: Record<string, unknown> } | { content: Array<Record<string, unknown>> };

export interface McpTool {
  name: string;
  title: string;
  description: string;
  /** The REST endpoint's schema, and where REST reads it from (the 400 names the field the same way). */
  input: z.ZodType;
  inputContext: 'body' | 'querystring' | 'params';
  /** The scope its endpoint needs (spec 5.4); null: the endpoint is public, limited per client address. */
  scope: Exclude<Scope, 'admin'> | null;
  output?: z.ZodType;
  annotations: ToolAnnotations;
  // biome-ignore lint/suspicious/noExplicitAny: each tool's args are its own schema's output, parsed before run
  run(args: any, caller: Caller): Promise<ToolOutput>;
}

export interface McpToolDeps {
  admission: CaptureAdmission;
  reads: CaptureReads;
  verification: CaptureVerification;
  schedules: Schedules;
  usage: (tenantId: string) => Promise<unknown>;
  /**
   * The certificate PDF of a complete capture (GET /v1/captures/{id}/certificate), throwing the refusal that route
   * answers. Absent: no certificate tool is offered.
   */
  certificatePdf?: (captureId: string) => Promise<Uint8Array>;
  publicBaseUrl: string;
}

/** The X-Quota-* headers of a submission (spec 8.2), as a member of the tool's result. */
const quotaSchema = z
  .object({ limit: z.number().int(), used: z.number().int(), remaining: z.number().int() })
  .describe('The monthly capture quota after this submission (the X-Quota-* headers of REST; spec 8.2).');

const noInput = z.object({});

const structured = (value: Record<string, unknown>): ToolOutput => ({ structured: value });

/** Every tool (docs/mcp.md); in the api role each feature offers its own group of them. */
export function mcpTools(deps: McpToolDeps): McpTool[] {
  return [
    ...captureTools(deps),
    ...verificationTools(deps),
    ...usageTools(deps),
    ...scheduleTools(deps),
    ...(deps.certificatePdf ? [certificateTool(deps.certificatePdf, deps.publicBaseUrl)] : []),
  ];
}

/** The captures feature's tools: submit one or a batch, read one, list. */
export function captureTools(deps: Pick<McpToolDeps, 'admission' | 'reads'>): McpTool[] {
  return [
    {
      name: 'capture_url',
      title: 'Capture a web page',
      description:
        'Capture a public http(s) URL as evidence (POST /v1/captures): full-page screenshot, rendered HTML, response headers and a signed, time-stamped WACZ. Returns the capture id at once; call get_capture until status is complete or failed, then verify_capture. `options` as in docs/capturing.md "Capture options". Needs scope capture; counts against the monthly quota.',
      input: submitBody,
      inputContext: 'body',
      scope: 'capture',
      output: acceptedSchema.extend({ quota: quotaSchema }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      async run(args, caller) {
        const { admission, ...accepted } = await deps.admission.submit(caller, args);
        return structured({ ...accepted, quota: admission });
      },
    },
    {
      name: 'capture_batch',
      title: 'Capture several web pages',
      description:
        'Submit up to BATCH_MAX URLs at once (POST /v1/captures/batch): `urls` is a list of {url, options?}. One answer per URL in input order: status 202 with the capture id, or the refusal of that URL (400, 422, 429). A batch over the remaining monthly quota is refused whole. Needs scope capture.',
      input: batchBody,
      inputContext: 'body',
      scope: 'capture',
      output: batchSchema.extend({ quota: quotaSchema }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      async run(args, caller) {
        const { admission, ...outcome } = await deps.admission.submitBatch(caller, args.urls);
        return structured({ ...outcome, quota: admission });
      },
    },
    {
      name: 'get_capture',
      title: 'Get a capture',
      description:
        'Status of a capture (GET /v1/captures/{id}/status: pending, complete or failed with error and retryable) and, once complete, its record (GET /v1/captures/{id}: URLs of the screenshot, HTML, headers and signed WACZ, render metadata, verifyUrl). The capture id is the access secret: no scope needed.',
      input: captureIdParams,
      inputContext: 'params',
      scope: null,
      output: captureStatusSchema.extend({
        record: captureRecordSchema
          .optional()
          .describe('The capture record (spec 2.3), present once status is complete.'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args) {
        const status = await deps.reads.status(args.captureId);
        return structured(
          status.status === 'complete' ? { ...status, record: await deps.reads.record(args.captureId) } : status,
        );
      },
    },
    {
      name: 'list_captures',
      title: 'List captures',
      description:
        "The tenant's captures, newest first (GET /v1/captures): filters status, url (prefix, at least 4 characters), created_after, created_before, schedule_id; sort; limit (default 20, at most 100) and offset. Needs scope read.",
      input: listQuery,
      inputContext: 'querystring',
      scope: 'read',
      output: listSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
      run: async (args, caller) => structured(await deps.reads.list(caller, args)),
    },
  ];
}

/** The verification feature's tool. */
export function verificationTools(deps: Pick<McpToolDeps, 'verification'>): McpTool[] {
  return [
    {
      name: 'verify_capture',
      title: 'Verify a capture',
      description:
        "Verify a complete capture's signed bundle (GET /v1/verify/{id}): artifact hashes, bundle hash, Ed25519 signature against the published keys, RFC 3161 timestamp — exactly the checks of spec 2.6. `verified` is true only when every check passes or skips. Where the deployment runs a transparency log, `transparency` (beside the checks, not among them) says whether the bundle's leaf is in a signed checkpoint, with the proof. Public: no scope needed.",
      input: verifyParams,
      inputContext: 'params',
      scope: null,
      output: verificationSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
      run: async (args) =>
        structured(await deps.verification.verify(await deps.verification.verifiable(args.captureId))),
    },
  ];
}

/** The tenancy feature's tool: the account's usage. */
export function usageTools(deps: Pick<McpToolDeps, 'usage'>): McpTool[] {
  return [
    {
      name: 'get_usage',
      title: 'Account usage',
      description:
        "The tenant's monthly quotas and what this month used of them (GET /v1/account/usage). Needs scope read.",
      input: noInput,
      inputContext: 'body',
      scope: 'read',
      output: accountUsageSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
      run: async (_args, caller) =>
        structured((await deps.usage(caller.principal.tenantId)) as Record<string, unknown>),
    },
  ];
}

/** The schedules feature's tools. */
export function scheduleTools(deps: Pick<McpToolDeps, 'schedules'>): McpTool[] {
  return [
    {
      name: 'create_schedule',
      title: 'Create a schedule',
      description:
        'Capture a URL on a five-field UTC cron schedule, at most once per hour (POST /v1/schedules): url, name, cron, options. Each run counts against the monthly quota. Needs scope capture.',
      input: createBody,
      inputContext: 'body',
      scope: 'capture',
      output: scheduleSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async (args, caller) => structured(await deps.schedules.create(caller, args)),
    },
    {
      name: 'list_schedules',
      title: 'List schedules',
      description: "The tenant's schedules with their next and last run (GET /v1/schedules). Needs scope read.",
      input: noInput,
      inputContext: 'body',
      scope: 'read',
      output: scheduleListSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
      run: async (_args, caller) => structured(await deps.schedules.list(caller)),
    },
    {
      name: 'delete_schedule',
      title: 'Delete a schedule',
      description:
        'Delete a schedule for good (DELETE /v1/schedules/{id}); a capture already running is not affected. Needs scope capture.',
      input: scheduleIdParams,
      inputContext: 'params',
      scope: 'capture',
      output: deletedScheduleSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (args, caller) => structured(await deps.schedules.delete(caller, args.scheduleId)),
    },
  ];
}

/** The certificate of a complete capture as an embedded PDF resource, with its URL (the REST route's). */
export function certificateTool(
  certificatePdf: (captureId: string) => Promise<Uint8Array>,
  publicBaseUrl: string,
): McpTool {
  return {
    name: 'get_certificate',
    title: 'Get the certificate',
    description:
      'The certificate PDF of a complete capture (GET /v1/captures/{id}/certificate): what was captured and how, the artifact hashes, signature and timestamp, and a declaration for the custodian to sign. Returned as an embedded application/pdf resource. The capture id is the access secret: no scope needed.',
    input: captureIdParams,
    inputContext: 'params',
    scope: null,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args) {
      const pdf = await certificatePdf(args.captureId);
      const uri = `${publicBaseUrl}/v1/captures/${args.captureId}/certificate`;
      return {
        content: [
          { type: 'text', text: `Certificate of ${args.captureId} (${pdf.byteLength} bytes, application/pdf): ${uri}` },
          {
            type: 'resource',
            resource: { uri, mimeType: 'application/pdf', blob: Buffer.from(pdf).toString('base64') },
          },
        ],
      };
    },
  };
}
