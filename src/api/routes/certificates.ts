import { z } from 'zod';
import type { CaptureCertificates } from '../../application/capture-certificates.js';
import type { TypedApp } from '../app.js';
import { ANSWERS, HttpProblem, problemResponses } from '../problem.js';
import { binary, idParam } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';

/**
 * Largest body POST /v1/verify/certificate reads. A certificate is about 90 KB of PDF/A (embedded font subsets, the
 * text) plus page 1's screenshot preview (at most MAX_PREVIEW_BYTES, 192 KiB) plus its attachment (about 6 KB, at
 * most MAX_ENVELOPE_BYTES = 64 KiB, bounded before it is parsed): 1 MiB is three times the largest a service issues,
 * and bounds what an anonymous upload costs.
 */
export const MAX_CERTIFICATE_BYTES = 1024 * 1024;

const certificateVerificationSchema = z
  .object({
    verified: z.boolean().describe('True only when no check failed.'),
    kind: z.literal('certificate'),
    certificate: z
      .object({
        captureId: z.string(),
        bundleHash: z.string(),
        url: z
          .string()
          .nullable()
          .describe(
            'null unless the signed document states its SHA-256 (the url check) or, for a document that does not, the PDF signature holds.',
          ),
        certificateHash: z.string(),
      })
      .nullable()
      .describe(
        'What the attached envelope says, shown only when the signature by a published key verifies; null otherwise. A field no passing check covers is null, never repeated.',
      ),
    signing: z
      .object({
        keyId: z.string(),
        publicKey: z.string(),
        signature: z.string(),
        signedAt: z.string().nullable().describe('null unless the PDF signature holds (the only check covering it).'),
        timestamp: z
          .object({
            genTime: z.string(),
            tsa: z.string().nullable().describe('null unless the PDF signature holds (the only check covering it).'),
            selfIssued: z.boolean().optional(),
          })
          .nullable()
          .describe('null unless the timestamp check passed.'),
      })
      .nullable(),
    checks: z
      .array(z.object({ name: z.string(), status: z.enum(['pass', 'fail', 'skip']), detail: z.string().optional() }))
      .describe(
        "In order: envelope, certificateHash, signature, timestamp, url (when the signed document states the URL's SHA-256), transparency (only when the certificate carries a transparency-log proof: checked against this log's key), pdfSignature (skipped for a certificate issued without one), then capture (the capture and bundle it names are this service's).",
      ),
  })
  .describe('Verification of a certificate PDF; 200 also when it fails.');

/**
 * The capture certificate (docs/evidence.md, The certificate a reader gets): GET /v1/captures/{id}/certificate — public like the other reads
 * of a complete capture — and POST /v1/verify/certificate, which checks a certificate PDF anyone uploads.
 */
export function certificateRoutes(guard: TenantGuard, certificates: CaptureCertificates) {
  return async (app: TypedApp) => {
    app.addHook('onRequest', guard.perIp());
    certificateRoute(app, certificates);
    certificateUploadPreflightRoute(app);
    verifyCertificateRoute(app, certificates);
  };
}

function certificateRoute(app: TypedApp, certificates: CaptureCertificates) {
  app.get(
    '/v1/captures/:captureId/certificate',
    {
      schema: {
        tags: ['verification'],
        summary: 'The certificate of a capture (PDF)',
        operationId: 'getCaptureCertificate',
        security: [],
        description:
          "A PDF stating what was captured and how, the SHA-256 of every artifact, the bundle signature and timestamp, the verification URL (with a QR code) and a declaration for the custodian to sign. Its own Ed25519 signature and RFC 3161 timestamp are attached to it (certificate-signature.json); made once, the same bytes on every request. Where the deployment runs a transparency log it also carries the bundle's leaf index, the first signed checkpoint holding it and the inclusion proof, and is issued only once such a checkpoint is published (503 with Retry-After until then). A member of a corroborated set (options.corroborate) names the set's verdict, the fields that differ, the vantages and the record's hash, and is issued once every member is complete or failed (503 with Retry-After until then).",
        params: z.object({ captureId: idParam('capture', 'cap_<id>; the access secret (spec 5.4).') }),
        response: {
          200: {
            description: 'The certificate, application/pdf.',
            content: { 'application/pdf': { schema: binary() } },
          },
          ...problemResponses({
            ...ANSWERS.perIp,
            ...ANSWERS.internal,
            404: 'Unknown capture, failed, or without a signed bundle.',
            409: 'The capture is still pending (`captureStatus: pending` in the body); ask again after Retry-After seconds.',
            503: "No signer answered, the bundle is not in a published transparency-log checkpoint yet, or the capture's corroborated set is pending; retry after Retry-After seconds.",
          }),
        },
      },
    },
    async (req, reply) => {
      const { captureId } = req.params;
      const pdf = await certificates.certificatePdf(captureId, req.log);
      return reply
        .type('application/pdf')
        .header('Content-Disposition', `attachment; filename="${captureId}-certificate.pdf"`)
        .send(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
    },
  );
}

/** Preflight of a browser upload: application/pdf is not a CORS-safelisted type, so a page asks first. */
function certificateUploadPreflightRoute(app: TypedApp) {
  app.options('/v1/verify/certificate', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .code(204)
      .header('Access-Control-Allow-Origin', '*')
      .header('Access-Control-Allow-Methods', 'POST, OPTIONS')
      .header('Access-Control-Allow-Headers', 'Content-Type')
      .header('Access-Control-Max-Age', '600')
      .send(),
  );
}

function verifyCertificateRoute(app: TypedApp, certificates: CaptureCertificates) {
  app.addContentTypeParser(
    'application/pdf',
    { parseAs: 'buffer', bodyLimit: MAX_CERTIFICATE_BYTES },
    (_req, body, done) => done(null, body),
  );
  app.post(
    '/v1/verify/certificate',
    {
      bodyLimit: MAX_CERTIFICATE_BYTES,
      // Before the body is parsed, so a wrong type is named as such rather than as JSON.
      onRequest: async (req) => {
        const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/pdf')
          throw new HttpProblem(
            415,
            'Content-Type must be application/pdf: send the certificate PDF as the body.',
            'Unsupported Media Type',
          );
      },
      schema: {
        tags: ['verification'],
        summary: 'Verify a certificate PDF',
        operationId: 'verifyCertificate',
        security: [],
        // The body as the OpenAPI document declares it (src/api/openapi-document.ts declareBinaryBody): bytes, not JSON.
        consumes: ['application/pdf'],
        bodyDescription: 'The certificate PDF, as downloaded from GET /v1/captures/{captureId}/certificate.',
        description:
          "Body: the certificate PDF (Content-Type application/pdf). Checks its attached signature and timestamp with the published keys and TSA certificates, and that the capture and bundle it names are this service's.",
        response: {
          200: certificateVerificationSchema,
          ...problemResponses({
            ...ANSWERS.perIp,
            ...ANSWERS.internal,
            400: 'The body is empty.',
            413: `The body is larger than ${MAX_CERTIFICATE_BYTES / 1024} KiB.`,
            415: 'Content-Type is not application/pdf.',
          }),
        },
      },
    },
    async (req) => {
      const body = req.body as Buffer | undefined;
      if (!body || body.length === 0)
        throw new HttpProblem(400, 'The request body is empty; send the certificate PDF.', 'Bad Request');
      return certificates.verify(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    },
  );
}
