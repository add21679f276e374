import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { CaptureDiffs } from './capture-diff-service.js';
import type { TypedApp } from '../api/app.js';
import { ANSWERS, problemResponses } from '../api/problem.js';
import { binary, idParam } from '../api/schemas.js';
import { callerOf, type TenantGuard } from '../api/tenant-auth.js';
import { type RouteRegistrar, registerRoutes } from '../api/route-registrar.js';

/**
 * Extension (docs/watch.md): the diff of two complete captures of the caller's tenant, as JSON and as an
 * image. Scope read; both captures are the tenant's, so the capture id alone opens nothing here.
 */

const patterns = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .describe('Repeat the parameter for more than one.');

const diffQuery = z.object({
  base: z.string().optional().describe('The capture to compare with (the older one); required.'),
  ignoreSelectors: patterns.describe(
    'CSS selectors of elements left out of the text and, where both captures recorded their boxes (options.recordBoxes, set on every watched run), out of the pixels (repeat the parameter for more than one). At most one `~`, one :has() and eight combinators (docs/watch.md, Bounds).',
  ),
  ignoreText: patterns.describe(
    'Regular expressions (JavaScript syntax) whose matches are cut from the text before comparing and, where both captures recorded their boxes (options.recordTextBoxes, set on every watched run), left out of the pixels. Backreferences, lookarounds and repeated groups holding a variable repetition or alternatives are refused (docs/watch.md, Bounds).',
  ),
});

const side = z.object({
  captureId: z.string(),
  url: z.string(),
  completedAt: z.string(),
  bundleHash: z.string().nullable(),
});

/** A part of the diff, documented in docs/watch.md field by field; its TypeScript type is in src/watch/. */
const part = (description: string) => z.custom<object | null>().meta({ type: 'object' }).describe(description);

const diffSchema = z
  .looseObject({
    base: side,
    capture: side,
    sameUrl: z.boolean().describe('False when the two captures are of different URLs.'),
    options: z.object({ ignoreSelectors: z.array(z.string()), ignoreText: z.array(z.string()) }),
    changed: z.boolean().describe('Any part changed (volatile headers aside).'),
    summary: part('Counts and ratios of each part: what a watch compares with its thresholds.'),
    text: part('Visible text, block by block; null when a capture has no HTML.'),
    headers: part('Main-document response headers; volatile ones (Date, Age …) apart.'),
    resources: part('From the two WARCs; null when a capture has no bundle.'),
    screenshot: part(
      'Changed-pixel ratio and regions; `ignored`: the ignoreSelectors masked in pixels and those not recorded at capture time (masked, notRecorded), and likewise the ignoreText patterns (maskedText, textNotRecorded). Null without screenshots.',
    ),
    links: z.object({ self: z.string(), image: z.string().nullable() }),
  })
  .describe('What changed between two captures (docs/watch.md).');

const answers = {
  ...ANSWERS.tenantKey,
  ...ANSWERS.internal,
  400: 'base missing or the capture itself, or an ignoreSelectors / ignoreText entry that is malformed or beyond the bounds on patterns and selectors (docs/watch.md); the detail names the field.',
  404: 'Either capture unknown, not complete, or another tenant’s; the detail names the field.',
  422: 'The diff reached a bound (its time limit, its memory, the blocks of text per page or the blocks added and removed, docs/watch.md); `bound` and the detail name it.',
};

export function captureDiffRoutes(guard: TenantGuard, diffs: CaptureDiffs) {
  return async (app: TypedApp) => registerRoutes(app, DIFF_ROUTES, { guard, diffs });
}

/** What the diff routes are registered with. */
interface DiffRouteDeps {
  guard: TenantGuard;
  diffs: CaptureDiffs;
}

const params = z.object({ captureId: idParam('capture', 'cap_<id>: the newer capture.') });

function diffRoute(app: TypedApp, { guard, diffs }: DiffRouteDeps) {
  app.get(
    '/v1/captures/:captureId/diff',
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['captures'],
        summary: 'What changed between two captures',
        operationId: 'getCaptureDiff',
        security: [{ bearer: [] }],
        params,
        querystring: diffQuery,
        response: { 200: diffSchema, ...problemResponses(answers) },
      },
    },
    async (req) => diffs.diff(callerOf(req), req.params.captureId, req.query),
  );
}

/** A file made by POST and read by GET: its path, how it is described and named, and what makes it. */
interface SignedDiffFile {
  path: string;
  what: string;
  made: string;
  operation: string;
  content: Record<string, { schema: ReturnType<typeof binary> }>;
  contentType: string;
  file: (id: string) => string;
  produce: (diffs: CaptureDiffs) => CaptureDiffs['evidence'];
}

const evidenceFile: SignedDiffFile = {
  path: '/v1/captures/:captureId/diff/evidence',
  what: 'The diff as signed, time-stamped evidence (JSON file)',
  made: 'The diff record (both captures and bundle hashes, the options, the SHA-256 of each part) attested by the service key and time-stamped (RFC 3161); `capture-ledger verify` and the verifier package check it offline (docs/watch.md).',
  operation: 'CaptureDiffEvidence',
  content: { 'application/json': { schema: binary() } },
  contentType: 'application/json; charset=utf-8',
  file: (id: string) => `${id}-diff.json`,
  produce: (diffs) => diffs.evidence,
};

const certificateFile: SignedDiffFile = {
  path: '/v1/captures/:captureId/diff/certificate',
  what: 'The certificate of a change between two captures (PDF)',
  made: 'A PDF stating how the page changed between the two captures, signed and time-stamped like a capture certificate (POST /v1/verify/certificate and `capture-ledger verify` check it; docs/watch.md).',
  operation: 'CaptureDiffCertificate',
  content: { 'application/pdf': { schema: binary() } },
  contentType: 'application/pdf',
  file: (id: string) => `${id}-change-certificate.pdf`,
  produce: (diffs) => diffs.certificate,
};

const notSigned =
  'Either capture unknown, not complete, another tenant’s or without a signed bundle, or a deployment that signs nothing; the detail names the field.';

/**
 * The diff's evidence and its certificate are made by a POST (the signer signs, the ledger and the public log
 * record it) and read by a GET, which only serves what was made: a safe method writes nothing, so a page that
 * makes a signed-in browser fetch the URL (an <img>, a link) cannot make the service sign and log.
 */
function signedDiffFileRoutes(app: TypedApp, { guard, diffs }: DiffRouteDeps, r: SignedDiffFile) {
  const produce = r.produce(diffs);
  const send = (reply: FastifyReply, captureId: string, bytes: Uint8Array) =>
    reply
      .type(r.contentType)
      .header('Content-Disposition', `attachment; filename="${r.file(captureId)}"`)
      .send(Buffer.from(bytes));
  app.get(
    r.path,
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['captures'],
        summary: `${r.what}, as made by POST`,
        description: `${r.made} Answers what POST made for this pair and options; 404 until then. Reading signs nothing.`,
        operationId: `get${r.operation}`,
        security: [{ bearer: [] }],
        params,
        querystring: diffQuery,
        response: {
          200: { description: r.contentType, content: r.content },
          ...problemResponses({ ...answers, 404: `${notSigned} Or not made yet (POST makes it).` }),
        },
      },
    },
    async (req, reply) =>
      send(reply, req.params.captureId, await produce(callerOf(req), req.params.captureId, req.query, false)),
  );
  app.post(
    r.path,
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['captures'],
        summary: `Make ${r.what.charAt(0).toLowerCase()}${r.what.slice(1)}`,
        description: `${r.made} Made once per pair and options: signed, time-stamped and recorded in the ledger and the public log; a repeat answers the same bytes. No request body.`,
        operationId: `make${r.operation}`,
        security: [{ bearer: [] }],
        params,
        querystring: diffQuery,
        response: {
          200: { description: r.contentType, content: r.content },
          ...problemResponses({
            ...answers,
            404: notSigned,
            503: 'No signer answered; retry after Retry-After seconds.',
          }),
        },
      },
    },
    async (req, reply) =>
      send(reply, req.params.captureId, await produce(callerOf(req), req.params.captureId, req.query, true)),
  );
}

function diffEvidenceRoutes(app: TypedApp, deps: DiffRouteDeps) {
  signedDiffFileRoutes(app, deps, evidenceFile);
}

function diffCertificateRoutes(app: TypedApp, deps: DiffRouteDeps) {
  signedDiffFileRoutes(app, deps, certificateFile);
}

function diffImageRoute(app: TypedApp, { guard, diffs }: DiffRouteDeps) {
  app.get(
    '/v1/captures/:captureId/diff.png',
    {
      onRequest: guard.require('read'),
      schema: {
        tags: ['captures'],
        summary: 'The changes between two captures over the newer screenshot (PNG)',
        operationId: 'getCaptureDiffImage',
        security: [{ bearer: [] }],
        params,
        querystring: diffQuery,
        response: {
          200: { description: 'image/png', content: { 'image/png': { schema: binary() } } },
          ...problemResponses(answers),
        },
      },
    },
    async (req, reply) => {
      const png = await diffs.image(callerOf(req), req.params.captureId, req.query);
      return reply.type('image/png').header('Cache-Control', 'private, max-age=3600').send(Buffer.from(png));
    },
  );
}

/** In the order they take in the OpenAPI document. */
const DIFF_ROUTES: RouteRegistrar<DiffRouteDeps>[] = [
  diffRoute,
  diffEvidenceRoutes,
  diffCertificateRoutes,
  diffImageRoute,
];
