import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Corroborations } from '../../vantages/corroboration-service.js';
import { z } from 'zod';
import type { Evidence } from '../../archive/evidence-runtime.js';
import type { CaptureVerification } from '../../application/capture-verification.js';
import type { TypedApp } from '../app.js';
import { SPEC_CHECK_NAMES } from '../../application/verification-result.js';
import { captureSettingsSchema } from '../capture-schemas.js';
import { ANSWERS, HttpProblem, problemResponses } from '../problem.js';
import { dateTime, idParam, uri } from '../schemas.js';
import { iso } from '../../domain/clock.js';
import type { TenantGuard } from '../tenant-auth.js';
import { replayPagePath } from '../replay-server.js';
import { verificationPage } from '../verification-page.js';
import { type VerifyCommandsDeployment, verifyCommandsHtml } from '../verify-commands.js';
import { VERIFIER_CLI_PATH, VERIFIER_SCRIPT_PATH, VERIFIER_TARBALL_PATH, verifierAssets } from '../verifier-assets.js';
import { type RouteRegistrar, registerRoutes } from '../route-registrar.js';

/** spec 2.7 */
const signingKeySchema = z.object({
  algorithm: z.literal('Ed25519'),
  publicKey: z.string().describe('Base64 of the 32-byte public key.'),
  keyId: z.string().describe('First 8 hex characters of SHA-256 of the raw public key.'),
});

/** spec 2.6 */
export const verificationSchema = z
  .object({
    verified: z.boolean().describe('True only when all checks pass or skip.'),
    capture: z.object({
      id: z.string(),
      url: z.string().describe('Extension: the URL that was captured (as submitted).'),
      createdAt: dateTime(),
      completedAt: dateTime(),
      renderQuality: z.enum(['full', 'partial']).optional(),
    }),
    signing: z
      .object({
        bundleHash: z.string(),
        signature: z.string().describe('Base64.'),
        publicKey: z.string().describe('Base64.'),
        keyId: z.string(),
        signedAt: dateTime(),
        timestamp: z
          .object({
            genTime: dateTime(),
            tsa: uri(),
            selfIssued: z.boolean().optional().describe("From this service's built-in TSA."),
          })
          .nullable()
          .describe('RFC 3161 timestamp (v0.2.0 bundles); null on v0.1.0 bundles.'),
      })
      .nullable()
      .describe('Null when the bundle or its digest document is not found.'),
    checks: z
      .array(
        z.object({
          name: z.enum(SPEC_CHECK_NAMES),
          status: z.enum(['pass', 'fail', 'skip']),
          detail: z.string().optional(),
        }),
      )
      .describe(
        'In order: artifactHashes, bundleHash, signature, and (v0.2.0 bundles only) timestamp: 3 checks for v0.1.0 bundles, up to 4 for v0.2.0 (spec 2.6). Nothing else: the transparency log has its own field.',
      ),
    captureSettings: captureSettingsSchema.optional(),
    transparency: z
      .object({
        status: z
          .enum(['pass', 'fail', 'skip'])
          .describe("'skip' when bundleHash failed or the log has no proof for the bundle yet."),
        detail: z.string(),
        leafIndex: z.number().int().optional(),
        checkpoint: z.string().optional().describe('The signed checkpoint (C2SP signed note) the proof is against.'),
        inclusionProof: z.array(z.string()).optional().describe('Base64 hashes, leaf to root.'),
        logKey: z.string().optional().describe("The log's note verifier key."),
      })
      .optional()
      .describe(
        "Extension (not in spec 2.6; docs/transparency.md): the bundle's leaf in the public transparency log, checked against a signed checkpoint (docs/transparency.md). Present when the deployment runs the log. Not part of `verified`.",
      ),
    witnesses: z
      .object({
        status: z.enum(['pass', 'fail']).describe("'fail': fewer than `quorum` of the log's witnesses cosigned."),
        quorum: z.number().int(),
        witnessed: z
          .array(z.object({ name: z.string(), keyId: z.string(), cosignedAt: dateTime() }))
          .describe('The witnesses whose cosignature on the checkpoint verifies under their published key.'),
        missing: z.array(z.string()).describe('The witnesses that did not cosign it.'),
        treeSize: z.number().int().nullable(),
        detail: z.string(),
      })
      .optional()
      .describe(
        "Extension (not in spec 2.6; docs/transparency.md, Witnesses): whether `transparency.checkpoint` is cosigned by a quorum of the log's witnesses (LOG_WITNESSES, LOG_WITNESS_QUORUM). Present when the deployment has witnesses and a checkpoint covers the bundle. Not part of `verified`.",
      ),
  })
  .describe('Verification result (spec 2.6); 200 also when verification fails.');

/** Exported with verificationSchema: the MCP verify tool is described by the same schemas (src/api/mcp/). */
export const verifyParams = z.object({ captureId: idParam('capture', 'cap_<id>') });

const publicAnswers = { ...ANSWERS.perIp, ...ANSWERS.internal } as const;
const noSigningKey = { 503: 'No signing key is configured on this deployment (spec 4.10).' } as const;

/**
 * Verification anyone can repeat (spec 4.9) and the published keys (spec 4.10). `replayOrigin`: where the verification
 * page frames the archived page from (src/api/replay-server.ts), never this origin. `published`: where the page's
 * command lines fetch the bundle, the verifier and the trust documents from.
 */
export function verificationRoutes(
  guard: TenantGuard,
  verification: CaptureVerification,
  evidence: Evidence,
  replayOrigin: string,
  published: VerifyCommandsDeployment,
  corroborations?: Corroborations,
) {
  const deps: VerificationRouteDeps = {
    verification,
    evidence,
    replayOrigin,
    published,
    corroborations,
    verifier: verifierAssets(),
  };
  return async (app: TypedApp) => {
    app.addHook('onRequest', guard.perIp());
    registerRoutes(app, VERIFICATION_ROUTES, deps);
  };
}

interface VerificationRouteDeps {
  verification: CaptureVerification;
  evidence: Evidence;
  replayOrigin: string;
  published: VerifyCommandsDeployment;
  corroborations: Corroborations | undefined;
  verifier: ReturnType<typeof verifierAssets>;
}

const VERIFICATION_ROUTES: RouteRegistrar<VerificationRouteDeps>[] = [
  tsaCertificatesRoute,
  signingKeyRoute,
  signingKeysRoute,
  verifierDownloadRoutes,
  verifyRoute,
];

function tsaCertificatesRoute(app: TypedApp, { verification }: VerificationRouteDeps) {
  app.get(
    '/.well-known/tsa-certificates',
    {
      schema: {
        tags: ['verification'],
        summary: 'CA certificates of the built-in time-stamping authorities',
        operationId: 'listTsaCertificates',
        security: [],
        response: {
          200: z
            .object({
              certificates: z.array(z.object({ fingerprint: z.string(), publishedAt: dateTime(), pem: z.string() })),
            })
            .describe('CA certificates (PEM) a timestamp of this service may chain to.'),
          ...problemResponses(publicAnswers),
        },
      },
    },
    async () => ({
      certificates: (await verification.trustedTsaCertificates()).map((c) => ({
        fingerprint: c.fingerprint,
        publishedAt: iso(c.published_at)!,
        pem: c.ca_cert_pem,
      })),
    }),
  );
}

function signingKeyRoute(app: TypedApp, { verification, evidence }: VerificationRouteDeps) {
  app.get(
    '/.well-known/signing-key',
    {
      schema: {
        tags: ['verification'],
        summary: 'The current signing key',
        operationId: 'getSigningKey',
        security: [],
        response: {
          200: signingKeySchema.describe('The current key (spec 4.10).'),
          ...problemResponses({ ...publicAnswers, ...noSigningKey }),
        },
      },
    },
    async () => {
      const current = (await verification.publishedKeys()).find((k) => k.current);
      if (current) return { algorithm: current.algorithm, publicKey: current.publicKey, keyId: current.keyId };
      if (evidence.signingPublicKey)
        return {
          algorithm: 'Ed25519' as const,
          publicKey: evidence.signingPublicKey.publicKeyBase64,
          keyId: evidence.signingPublicKey.keyId,
        };
      throw new HttpProblem(
        503,
        'No signing key has been published: the signer role publishes its key when it starts, and with SIGNING_KEY=none this deployment signs nothing.',
        'Service Unavailable',
      );
    },
  );
}

function signingKeysRoute(app: TypedApp, { verification }: VerificationRouteDeps) {
  app.get(
    '/.well-known/signing-keys',
    {
      schema: {
        tags: ['verification'],
        summary: 'Every signing key ever used',
        operationId: 'listSigningKeys',
        security: [],
        response: {
          200: z
            .object({
              keys: z.array(
                z.object({
                  keyId: z.string(),
                  algorithm: z.literal('Ed25519'),
                  publicKey: z.string(),
                  archivedAt: dateTime().describe('When the key was first archived.'),
                }),
              ),
            })
            .describe('All historical keys including the current one (spec 4.10).'),
          ...problemResponses({ ...publicAnswers, 503: 'The service is unavailable (spec 4.10).' }),
        },
      },
    },
    async () => ({
      keys: (await verification.publishedKeys()).map(({ current: _c, ...k }) => k),
    }),
  );
}

/** The verifier as a browser module and as offline downloads, and the icon every browser asks for. */
function verifierDownloadRoutes(app: TypedApp, { verifier }: VerificationRouteDeps) {
  // The verifier package as one browser module: the page checks bundles in the visitor's browser with it.
  app.get(VERIFIER_SCRIPT_PATH, { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('application/javascript; charset=utf-8')
      .header('Cache-Control', 'public, max-age=3600')
      .send(Buffer.from(await verifier.script())),
  );
  // Browsers ask every origin for its icon: the service has none, and says so without a 404 in the console.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_req, reply) =>
    reply.code(204).header('Cache-Control', 'public, max-age=86400').send(),
  );
  // The offline verifier to download: one file for `node`, and an npm tarball for `npx <URL>` (docs/evidence.md, Verifier package).
  app.get(VERIFIER_CLI_PATH, { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('Content-Disposition', 'attachment; filename="capture-ledger-verify.mjs"')
      .header('Cache-Control', 'public, max-age=3600')
      .send(Buffer.from(await verifier.cli())),
  );
  app.get(VERIFIER_TARBALL_PATH, { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('application/gzip')
      .header('Content-Disposition', 'attachment; filename="capture-ledger-verifier.tgz"')
      .header('Cache-Control', 'public, max-age=3600')
      .send(Buffer.from(await verifier.tarball())),
  );
}

function verifyRoute(app: TypedApp, deps: VerificationRouteDeps) {
  const { verification } = deps;
  app.get(
    '/v1/verify/:captureId',
    {
      schema: {
        tags: ['verification'],
        summary: 'Verify a capture bundle',
        operationId: 'verifyCapture',
        security: [],
        params: verifyParams,
        response: {
          200: {
            description:
              'The verification result as JSON (spec 2.6), the default for every client that does not prefer text/html; with Accept: text/html (a browser) the page that fetches it (spec 4.9).',
            content: { 'application/json': { schema: verificationSchema }, 'text/html': { schema: z.string() } },
          },
          ...problemResponses({
            ...publicAnswers,
            404: 'Unknown capture, or one without a signed bundle (not complete, partial, no signing key; spec 4.9). For a capture still pending the detail says so and Retry-After says when to ask again.',
            422: 'The bundle exceeds the maximum verifiable size (spec 4.9).',
            503: 'The service is unavailable (spec 4.9).',
          }),
        },
      },
    },
    async (req, reply) => {
      const { captureId } = req.params;
      const accept = String(req.headers.accept ?? '');
      const wantsHtml = /text\/html/i.test(accept) && !/application\/json/i.test(accept.split(',')[0] ?? '');
      const row = await verification.verifiable(captureId);
      if (wantsHtml) return sendVerificationPage(req, reply, deps, captureId, row.url);
      return verification.verify(row);
    },
  );
}

/** The page that fetches the result and checks the bundle in the browser too (spec 4.9), under its own CSP. */
async function sendVerificationPage(
  req: FastifyRequest,
  reply: FastifyReply,
  { replayOrigin, published, corroborations }: VerificationRouteDeps,
  captureId: string,
  url: string,
) {
  const nonce = randomBytes(16).toString('base64');
  // The page still answers when the set's record cannot be made now (the signer away): without the section.
  const corroboration = await corroborations?.forCapture(captureId).catch((err: unknown) => {
    req.log.warn({ err, captureId }, 'corroboration record unavailable for the verify page');
    return null;
  });
  return reply
    .header(
      'Content-Security-Policy',
      // Scripts: this page's own and the verifier module. The archived page is framed from the replay origin only; no
      // worker runs on this origin.
      `default-src 'none'; script-src 'nonce-${nonce}' 'self'; style-src 'nonce-${nonce}' 'self'; connect-src 'self'; img-src 'self'; font-src 'self'; frame-src ${replayOrigin}; worker-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    )
    .header('Referrer-Policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(
      verificationPage(captureId, nonce, {
        url,
        waczPath: `/v1/captures/${captureId}/artifacts/wacz`,
        replayFrameUrl: `${replayOrigin}${replayPagePath(captureId)}`,
        verifierScript: VERIFIER_SCRIPT_PATH,
        commands: verifyCommandsHtml(published, captureId),
        ...(corroboration
          ? {
              corroboration: {
                id: corroboration.id,
                verdict: corroboration.status === 'complete' ? corroboration.record.verdict : null,
                differing: corroboration.status === 'complete' ? corroboration.record.differing : [],
                members:
                  corroboration.status === 'complete'
                    ? corroboration.record.members.map((m) => m.vantage?.id ?? m.captureId)
                    : corroboration.members.map((m) => m.vantage),
                recordPath: `/v1/captures/${captureId}/corroboration`,
              },
            }
          : {}),
      }),
    );
}
