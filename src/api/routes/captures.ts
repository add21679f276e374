import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Admission } from '../../domain/tenant/index.js';
import type { CaptureAdmission } from '../../application/capture-admission.js';
import { Readable } from 'node:stream';
import type { CaptureReads, StreamedDownload } from '../../application/capture-reads.js';
import { DOWNLOADABLE_ARTIFACTS } from '../../domain/artifacts.js';
import { requireJsonBody, type TypedApp } from '../app.js';
import {
  captureRecordSchema,
  captureStatusSchema,
  captureSummarySchema,
  provenanceSchema,
} from '../capture-schemas.js';
import { provenancePage } from '../../archive/provenance-page.js';
import { parseByteRange } from '../byte-range.js';
import { ANSWERS, problemResponses, problemSchema } from '../problem.js';
import type { Cors } from '../cors.js';
import { captureOptionsSchema } from '../capture-options-schema.js';
import type { Corroborations } from '../../vantages/corroboration-service.js';
import { binary, documentedAs, idParam, targetUrl, uri } from '../schemas.js';
import { QUOTA_HEADERS, withHeaders } from '../openapi-headers.js';
import { callerOf, type TenantGuard } from '../tenant-auth.js';
import { type RouteRegistrar, registerRoutes } from '../route-registrar.js';

/** Captures (spec 4.2–4.8): submit, batch, list, status, record, artifacts. */

export interface CaptureRouteDeps {
  guard: TenantGuard;
  /** Admission and reads: the application services the MCP tools call too (DESIGN decision 15). */
  admission: CaptureAdmission;
  reads: CaptureReads;
  cors: Cors;
  /** Corroborated sets: a member's record names its set. */
  corroborations?: Corroborations | undefined;
}

// Request and response schemas are exported: the MCP tools are described by the same ones (src/api/mcp/).
export const submitBody = z.object(
  { url: targetUrl(), options: captureOptionsSchema },
  { error: 'must be a JSON object with a url field' },
);
export const batchBody = z.object(
  {
    urls: z
      .array(documentedAs(z.object({ url: uri(), options: captureOptionsSchema })), {
        error: 'must be a non-empty array of objects with a url field',
      })
      .min(1, 'must be a non-empty array of objects with a url field')
      .describe(
        'Items {url, options?}; options as on POST /v1/captures. Each item is checked on its own (207): a bad option gives that item a 400 naming urls[i].options.<field>.',
      ),
  },
  { error: 'must be a JSON object with a urls array' },
);

export const captureIdParams = z.object({ captureId: idParam('capture', 'cap_<id>; the access secret (spec 5.4).') });

const quotaHeadersNote = 'Headers X-Quota-Limit, X-Quota-Used, X-Quota-Remaining carry the monthly quota (spec 8.2).';

export const acceptedSchema = z
  .object({
    id: z.string(),
    statusUrl: uri().describe('Absolute URL of the status endpoint.'),
    note: z.string(),
    corroboration: z
      .object({
        id: z.string(),
        url: uri().describe('Where the corroboration record is served once every member is done.'),
        members: z.array(z.object({ id: z.string(), vantage: z.string(), statusUrl: uri() })),
      })
      .optional()
      .describe('Extension: with options.corroborate, every member capture; `id` is the first.'),
  })
  .describe(`Accepted (spec 4.3). ${quotaHeadersNote}`);

export const batchSchema = z
  .object({
    items: z
      .array(
        z.union([
          z
            .object({ status: z.literal(202), url: z.string(), id: z.string(), statusUrl: uri() })
            .describe('Accepted item.'),
          z
            .object({ status: z.number().int(), url: z.string(), error: problemSchema })
            .describe('Refused item: 400, 422, 429 or another 4xx/5xx.'),
        ]),
      )
      .describe('Same length and order as the input.'),
    summary: z.object({ total: z.number().int(), accepted: z.number().int(), failed: z.number().int() }),
  })
  .describe(`Multi-status: one answer per URL (spec 4.5). ${quotaHeadersNote}`);

export const listSchema = z
  .object({
    data: z.array(captureSummarySchema).describe('Never null; empty when none.'),
    pagination: z.object({
      total: z.number().int().describe('Matches before paging.'),
      offset: z.number().int(),
      hasMore: z.boolean(),
      limit: z.number().int().describe('Effective page size.'),
    }),
  })
  .describe("The tenant's captures (spec 4.2).");

const artifactParams = captureIdParams.extend({
  // The enum documents the names; any other name is still a 404 from the route (spec 4.8), not a 400.
  name: z
    .string()
    .meta({ enum: DOWNLOADABLE_ARTIFACTS })
    .describe(
      'screenshot, screenshot-before, html, headers or wacz (spec 4.8); any other name is 404. The printed page is at /v1/captures/{captureId}/pdf, the session recording at /v1/captures/{captureId}/session.',
    ),
});

/** Downloads keep their bytes: documented by content type, never serialized (spec 4.8). */
/** With S3_PRESIGNED_DOWNLOADS: the bytes come from storage, the same headers and ranges. */
const REDIRECTED = z
  .undefined()
  .describe(
    'With S3_PRESIGNED_DOWNLOADS=true: Location is a short-lived presigned link into object storage, which answers as 200/206 here would (same bytes, Content-Type, Content-Disposition, ranges).',
  );
const STORAGE_DOWN = { 503: 'Object storage is unavailable; retry after Retry-After seconds.' };

const download = (description: string) => ({
  description,
  content: Object.fromEntries(
    ['image/png', 'text/plain', 'application/json', 'application/wacz+zip'].map((type) => [type, { schema: binary() }]),
  ),
});

/** Answers a stored document as it is: the route's schemas document it and type the handler, nothing more. */
const asStored = () => (data: unknown) => JSON.stringify(data);

/**
 * spec 4.2 list parameters, with a 400 naming the parameter for every violation. A parameter given twice
 * arrives as an array and is refused like any other malformed value; an empty one counts as absent.
 */
const absentIfEmpty = (v: unknown) => (v === '' ? undefined : v);
const single = (what: string) => (iss: { input?: unknown }) =>
  Array.isArray(iss.input) ? 'may be given once' : `must be ${what}, got '${String(iss.input)}'`;
const queryInt = (min: number, def: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : absentIfEmpty(v)),
    z
      .number({ error: single('an integer') })
      .int()
      .min(min, { error: (iss) => `must be at least ${min}, got ${String(iss.input)}` })
      .default(def),
  );
const queryDate = z.preprocess(
  absentIfEmpty,
  z
    .string({ error: single('an ISO 8601 date-time such as 2026-01-31T00:00:00Z') })
    .refine(
      (v) => /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(new Date(v).getTime()),
      {
        error: (iss) => `must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z, got '${String(iss.input)}'`,
      },
    )
    .transform((v) => new Date(v))
    .optional()
    .meta({ format: 'date-time' }),
);

export const listQuery = z
  .object({
    limit: queryInt(1, 20).describe('Page size; default 20, above 100 clamped to 100.'),
    offset: queryInt(0, 0).describe('Zero-based; default 0.'),
    status: z.enum(['pending', 'complete', 'failed'], { error: single('pending, complete or failed') }).optional(),
    url: z
      .string({ error: single('a string') })
      .min(4, 'must be at least 4 characters (it is a prefix match)')
      .refine((v) => !/[%_]/.test(v), "must not contain '%' or '_'")
      .refine((v) => !v.includes('\0'), 'must not contain a NUL character')
      .optional()
      .describe('Prefix match on the captured URL.'),
    created_after: queryDate.describe('Inclusive lower bound.'),
    created_before: queryDate.describe('Exclusive upper bound; after created_after when both are given.'),
    sort: z.enum(['created_at', '-created_at'], { error: single('created_at or -created_at') }).default('-created_at'),
    schedule_id: z
      .preprocess(
        absentIfEmpty,
        z
          .string({ error: single('a string') })
          .regex(/^sch_[A-Za-z0-9_-]{1,96}$/, 'must be a schedule id (sch_…)')
          .optional(),
      )
      .describe('Only captures run by this schedule.'),
  })
  .refine((q) => !(q.created_after && q.created_before && q.created_before <= q.created_after), {
    path: ['created_before'],
    error: 'must be after created_after',
  })
  .transform((q) => ({
    limit: Math.min(100, q.limit),
    offset: q.offset,
    status: q.status,
    url: q.url,
    createdAfter: q.created_after,
    createdBefore: q.created_before,
    sort: q.sort,
    scheduleId: q.schedule_id,
  }));

const setQuotaHeaders = (reply: FastifyReply, a: Admission) =>
  reply
    .header('X-Quota-Limit', String(a.limit))
    .header('X-Quota-Used', String(a.used))
    .header('X-Quota-Remaining', String(a.remaining));

export function captureRoutes(deps: CaptureRouteDeps) {
  return async (app: TypedApp) => {
    registerRoutes(app, CAPTURE_ROUTES, deps);
  };
}

const CAPTURE_ROUTES: RouteRegistrar<CaptureRouteDeps>[] = [
  preflightCaptureRoute,
  submitCaptureRoute,
  submitBatchRoute,
  listCapturesRoute,
  captureStatusRoute,
  captureRecordRoute,
  artifactRoute,
  pdfRoute,
  sessionRoute,
  provenanceRoute,
  downloadPreflightRoutes,
];

function preflightCaptureRoute(app: TypedApp, { cors }: CaptureRouteDeps) {
  app.options(
    '/v1/captures',
    {
      schema: {
        tags: ['captures'],
        summary: 'CORS preflight for POST /v1/captures',
        operationId: 'preflightCapture',
        security: [],
        response: {
          204: z
            .undefined()
            .describe('The origin is on CORS_ORIGINS; the Access-Control-* headers allow the POST (spec 4.4).'),
          ...problemResponses({ ...ANSWERS.internal, 403: 'The origin is not allowed; no CORS headers (spec 4.4).' }),
        },
      },
    },
    async (req, reply) => {
      cors.preflight(req, reply);
      return reply.code(204).send();
    },
  );
}

function submitCaptureRoute(app: TypedApp, { guard, admission, cors }: CaptureRouteDeps) {
  app.post(
    '/v1/captures',
    {
      onRequest: [async (req, reply) => cors.actual(req, reply), guard.require('capture')],
      preValidation: requireJsonBody,
      schema: {
        tags: ['captures'],
        summary: 'Submit a capture',
        operationId: 'submitCapture',
        body: submitBody,
        security: [{ bearer: [] }],
        response: {
          202: withHeaders(acceptedSchema, `Accepted (spec 4.3). ${quotaHeadersNote} Location is the status URL.`, [
            ...QUOTA_HEADERS,
            'Location',
          ]),
          ...problemResponses({
            ...ANSWERS.tenantKey,
            ...ANSWERS.jsonBody,
            ...ANSWERS.internal,
            400: 'Missing or malformed JSON body, missing url, invalid URL scheme, or a bad option; the detail names it (spec 7.2).',
            422: 'The URL resolves to a private address, embeds credentials or is double-encoded (spec 7.2).',
            429: "Rate limited (limitType absent or 'tenant') or the monthly quota is used up (limitType 'quota'; spec 7.3).",
            503: 'The service is at capacity; Retry-After says when to retry (spec 7.2).',
          }),
        },
      },
    },
    async (req, reply) => {
      const { id, statusUrl, note, admission: quota, corroboration } = await admission.submit(callerOf(req), req.body);
      setQuotaHeaders(reply, quota);
      reply.header('Location', statusUrl);
      return reply.code(202).send({ id, statusUrl, note, ...(corroboration ? { corroboration } : {}) });
    },
  );
}

function submitBatchRoute(app: TypedApp, { guard, admission }: CaptureRouteDeps) {
  app.post(
    '/v1/captures/batch',
    {
      onRequest: guard.require('capture'),
      preValidation: requireJsonBody,
      schema: {
        tags: ['captures'],
        summary: 'Submit a batch of captures',
        operationId: 'submitCaptureBatch',
        body: batchBody,
        security: [{ bearer: [] }],
        response: {
          207: withHeaders(batchSchema, `Per-item results (spec 4.4). ${quotaHeadersNote}`, QUOTA_HEADERS),
          ...problemResponses({
            ...ANSWERS.tenantKey,
            ...ANSWERS.jsonBody,
            ...ANSWERS.internal,
            400: 'Invalid batch structure: missing or empty urls, or more URLs than the configured maximum (spec 7.2).',
            429: "Rate limited, or the batch needs more captures than the monthly quota has left (limitType 'quota' with quota.requested; spec 8.2).",
            503: 'The service is at capacity; Retry-After says when to retry (spec 7.2).',
          }),
        },
      },
    },
    async (req, reply) => {
      const { items, summary, admission: quota } = await admission.submitBatch(callerOf(req), req.body.urls);
      setQuotaHeaders(reply, quota);
      return reply.code(207).send({ items, summary });
    },
  );
}

function listCapturesRoute(app: TypedApp, { guard, reads }: CaptureRouteDeps) {
  app.get(
    '/v1/captures',
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['captures'],
        summary: 'List captures',
        operationId: 'listCaptures',
        security: [{ bearer: [] }],
        querystring: listQuery,
        response: {
          200: listSchema,
          ...problemResponses({
            ...ANSWERS.tenantKey,
            400: 'Invalid list parameter; the detail names it (spec 4.2).',
            500: 'Database read failed while listing captures (spec 7.2).',
            503: 'Required configuration missing or the service is at capacity (spec 7.2).',
          }),
        },
      },
    },
    async (req) => {
      return reads.list(callerOf(req), req.query);
    },
  );
}

function captureStatusRoute(app: TypedApp, { guard, reads }: CaptureRouteDeps) {
  app.get(
    '/v1/captures/:captureId/status',
    {
      onRequest: guard.perIp(),
      schema: {
        tags: ['captures'],
        summary: 'Poll a capture',
        operationId: 'getCaptureStatus',
        security: [],
        params: captureIdParams,
        response: {
          200: captureStatusSchema,
          ...problemResponses({ ...ANSWERS.perIp, ...ANSWERS.internal, 404: 'Unknown capture (spec 4.6).' }),
        },
      },
    },
    async (req) => reads.status(req.params.captureId),
  );
}

function captureRecordRoute(app: TypedApp, { guard, reads, corroborations }: CaptureRouteDeps) {
  app.get(
    '/v1/captures/:captureId',
    {
      onRequest: guard.perIp(),
      schema: {
        tags: ['captures'],
        summary: 'Retrieve a completed capture',
        operationId: 'getCapture',
        security: [],
        params: captureIdParams,
        response: {
          200: captureRecordSchema,
          ...problemResponses({
            ...ANSWERS.perIp,
            ...ANSWERS.internal,
            404: 'Unknown capture, or not complete yet (spec 4.7).',
          }),
        },
      },
    },
    async (req) => {
      const record = await reads.record(req.params.captureId);
      const set = await corroborations?.setOf(req.params.captureId);
      return set
        ? { ...record, corroboration: { id: set.id, url: corroborations!.urlOf(req.params.captureId) } }
        : record;
    },
  );
}

function artifactRoute(app: TypedApp, { guard, reads }: CaptureRouteDeps) {
  app.get(
    '/v1/captures/:captureId/artifacts/:name',
    {
      onRequest: guard.perIp(),
      schema: {
        tags: ['captures'],
        summary: 'Download an artifact',
        operationId: 'getCaptureArtifact',
        security: [],
        description:
          'Raw bytes with Content-Disposition: attachment: image/png (screenshots), text/plain (html), application/json (headers), application/wacz+zip. Byte ranges are served (Accept-Ranges: bytes).',
        params: artifactParams,
        response: {
          200: download('The artifact (spec 4.8).'),
          206: download('The requested byte range (Content-Range).'),
          302: REDIRECTED,
          416: z.undefined().describe('The byte range cannot be satisfied (Content-Range: bytes */size); no body.'),
          ...problemResponses({
            ...ANSWERS.perIp,
            ...ANSWERS.internal,
            ...STORAGE_DOWN,
            404: 'Unknown capture, unknown artifact name, or no such artifact (spec 4.8).',
          }),
        },
      },
    },
    async (req, reply) =>
      sendDownload(req.headers.range, reply, await reads.download(req.params.captureId, req.params.name)),
  );
}

/** An extension served at its own path beside spec 4.8's artifact names, never among them, streamed like them. */
function besideDownloadRoute(
  app: TypedApp,
  { guard, reads }: CaptureRouteDeps,
  download: {
    name: 'pdf' | 'session';
    type: string;
    summary: string;
    operationId: string;
    /** What the bytes are, and when a capture has them. */
    description: string;
    /** The 200 answer: what is downloaded. */
    what: string;
    /** The capture option without which there is nothing to download. */
    option: string;
  },
) {
  app.get(
    `/v1/captures/:captureId/${download.name}`,
    {
      onRequest: guard.perIp(),
      schema: {
        tags: ['captures'],
        summary: download.summary,
        operationId: download.operationId,
        security: [],
        description: `${download.description}: ${download.type} with Content-Disposition: attachment; byte ranges as for artifacts. An extension: served beside spec 4.8's artifact names, not among them.`,
        params: captureIdParams,
        response: {
          200: { description: download.what, content: { [download.type]: { schema: binary() } } },
          206: {
            description: 'The requested byte range (Content-Range).',
            content: { [download.type]: { schema: binary() } },
          },
          302: REDIRECTED,
          416: z.undefined().describe('The byte range cannot be satisfied (Content-Range: bytes */size); no body.'),
          ...problemResponses({
            ...ANSWERS.perIp,
            ...ANSWERS.internal,
            ...STORAGE_DOWN,
            404: `Unknown capture, or one captured without \`${download.option}\`.`,
          }),
        },
      },
    },
    async (req, reply) =>
      sendDownload(req.headers.range, reply, await reads.download(req.params.captureId, download.name, 'beside')),
  );
}

function pdfRoute(app: TypedApp, deps: CaptureRouteDeps) {
  besideDownloadRoute(app, deps, {
    name: 'pdf',
    type: 'application/pdf',
    summary: 'Download the printed page (extension)',
    operationId: 'getCapturePdf',
    description: 'The page printed to PDF when the capture asked for `pdf` (docs/capturing.md, Capture options)',
    what: 'The printed page.',
    option: 'pdf',
  });
}

function sessionRoute(app: TypedApp, deps: CaptureRouteDeps) {
  besideDownloadRoute(app, deps, {
    name: 'session',
    type: 'video/webm',
    summary: 'Download the session recording (extension)',
    operationId: 'getCaptureSession',
    description:
      'What the browser showed from the start of navigation to the screenshot, when the capture asked for `recordSession` (docs/capturing.md, Capture options), in VP8; its time 0 is captureSettings.sessionRecording.startedAt',
    what: 'The session recording.',
    option: 'recordSession',
  });
}

function provenanceRoute(app: TypedApp, { guard, reads }: CaptureRouteDeps) {
  app.get(
    '/v1/captures/:captureId/provenance',
    {
      onRequest: guard.perIp(),
      serializerCompiler: asStored,
      schema: {
        tags: ['captures'],
        summary: 'Provenance record of a capture (JSON; HTML with Accept: text/html)',
        operationId: 'getCaptureProvenance',
        security: [],
        description:
          'Requested and final URL with the redirect chain, every connection the egress proxy made (host, connected address, TLS protocol and certificate chain as seen at connect time), browser, viewport, capture settings, times, artifact hashes, signing key; `signature` (bundle hash, signedAt, timestamp) from the bundle. The same record is provenance/provenance.json in the signed WACZ.',
        params: captureIdParams,
        response: {
          200: {
            description: 'The provenance record; a readable page with Accept: text/html.',
            content: { 'application/json': { schema: provenanceSchema }, 'text/html': { schema: z.string() } },
          },
          ...problemResponses({
            ...ANSWERS.perIp,
            ...ANSWERS.internal,
            404: 'Unknown capture, not complete, or completed before records were kept.',
          }),
        },
      },
    },
    async (req, reply) => {
      const { record, signature } = await reads.provenance(req.params.captureId);
      const accept = String(req.headers.accept ?? '');
      if (/text\/html/i.test(accept) && !/application\/json/i.test(accept.split(',')[0] ?? '')) {
        return reply
          .header(
            'Content-Security-Policy',
            "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
          )
          .type('text/html; charset=utf-8')
          .send(provenancePage(record, signature ?? undefined));
      }
      return { ...record, ...(signature ? { signature } : {}) };
    },
  );
}

/** Preflight of a cross-origin artifact read (a Range header that is not CORS-safelisted). */
function downloadPreflightRoutes(app: TypedApp, _deps: CaptureRouteDeps) {
  for (const path of [
    '/v1/captures/:captureId/artifacts/:name',
    '/v1/captures/:captureId/pdf',
    '/v1/captures/:captureId/session',
  ]) {
    app.options(path, { schema: { hide: true } }, async (_req, reply) =>
      reply
        .code(204)
        .header('Access-Control-Allow-Origin', '*')
        .header('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS')
        .header('Access-Control-Allow-Headers', 'Range')
        .header('Access-Control-Max-Age', '600')
        .send(),
    );
  }
}

/**
 * Answers a download (an artifact, or an extension beside them) as raw bytes streamed from storage, honouring
 * one Range (spec 4.8); with S3_PRESIGNED_DOWNLOADS, a redirect to a short-lived link into storage instead, which
 * serves the same bytes, ranges and headers to a client that follows it.
 */
async function sendDownload(rangeHeader: string | undefined, reply: FastifyReply, download: StreamedDownload) {
  const { size, type, fileName } = download;
  // Artifacts are readable by anyone holding the capture id, so any origin may read them too (no
  // credentials): ReplayWeb.page and other WACZ tools open a bundle by URL with Range requests.
  reply
    .header('Access-Control-Allow-Origin', '*')
    .header('Access-Control-Expose-Headers', 'Content-Length, Content-Range, Accept-Ranges, Content-Disposition')
    .header('Accept-Ranges', 'bytes');
  const presigned = await download.presigned();
  if (presigned) return reply.header('Cache-Control', 'no-store').redirect(presigned, 302);
  reply
    .header('Content-Type', type)
    .header('Content-Disposition', `attachment; filename="${fileName}"`)
    .header('Cache-Control', 'private, max-age=3600');
  const range = parseByteRange(rangeHeader, size);
  if (range.kind === 'unsatisfiable') {
    return reply.header('Content-Range', `bytes */${size}`).code(416).send();
  }
  if (range.kind === 'partial') {
    return reply
      .code(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
      .header('Content-Length', String(range.end - range.start + 1))
      .send(Readable.from(await download.open(range)));
  }
  return reply.header('Content-Length', String(size)).send(Readable.from(await download.open()));
}
