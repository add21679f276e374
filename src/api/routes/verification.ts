import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { verifyBundle } from '../../archive/bundle-verifier.js';
import { createVerificationCache } from '../verification-cache.js';
import type { Evidence } from '../../archive/evidence-runtime.js';
import type { ArtifactStore } from '../../capture/artifact-store.js';
import { isId } from '../../domain/ids.js';
import type { ApiContext } from '../context.js';
import { findCapture } from '../../../projections/read-models/captures.js';
import { listSigningKeys, listTsaCertificates } from '../../../projections/read-models/evidence-keys.js';
import { HttpProblem } from '../problem.js';
import { iso } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import { REPLAY_BASE, replayAssets } from '../replay-assets.js';
import { verificationPage } from '../verification-page.js';

/** Verification anyone can repeat (spec 4.9) and the published keys (spec 4.10). */
export function verificationRoutes(ctx: ApiContext, guard: TenantGuard, artifacts: ArtifactStore, evidence: Evidence) {
  async function publishedKeys() {
    return (await listSigningKeys(ctx.pool)).map((k) => ({ keyId: k.key_id, algorithm: 'Ed25519' as const, publicKey: k.public_key, archivedAt: iso(k.archived_at)!, current: k.is_current }));
  }

  /** Timestamps are trusted when they chain to a configured CA or to a built-in TSA published on the log. */
  async function trustedTsaCertificates() {
    return listTsaCertificates(ctx.pool);
  }

  const replay = replayAssets();
  const verifications = createVerificationCache();

  return async (app: FastifyInstance) => {
    app.addHook('onRequest', guard.perIp());

    app.get(
      '/.well-known/tsa-certificates',
      { schema: { tags: ['verification'], summary: 'CA certificates of the built-in time-stamping authorities' } },
      async () => ({
        certificates: (await trustedTsaCertificates()).map((c) => ({ fingerprint: c.fingerprint, publishedAt: iso(c.published_at)!, pem: c.ca_cert_pem })),
      }),
    );

    app.get('/.well-known/signing-key', { schema: { tags: ['verification'], summary: 'The current signing key' } }, async () => {
      const current = (await publishedKeys()).find((k) => k.current);
      if (current) return { algorithm: current.algorithm, publicKey: current.publicKey, keyId: current.keyId };
      if (evidence.signingPublicKey) return { algorithm: 'Ed25519', publicKey: evidence.signingPublicKey.publicKeyBase64, keyId: evidence.signingPublicKey.keyId };
      throw new HttpProblem(503, 'No signing key has been published: the signer role publishes its key when it starts, and with SIGNING_KEY=none this deployment signs nothing.', 'Service Unavailable');
    });

    app.get('/.well-known/signing-keys', { schema: { tags: ['verification'], summary: 'Every signing key ever used' } }, async () => ({
      keys: (await publishedKeys()).map(({ current: _c, ...k }) => k),
    }));

    // ReplayWeb.page, served here so the verification page replays the bundle without outside network.
    for (const name of ['ui.js', 'sw.js'] as const) {
      app.get(`${REPLAY_BASE}${name}`, { schema: { hide: true } }, async (_req, reply) =>
        reply
          .type('application/javascript; charset=utf-8')
          .header('Cache-Control', 'public, max-age=3600')
          .send(await replay.get(name)),
      );
    }

    app.get('/v1/verify/:captureId', { schema: { tags: ['verification'], summary: 'Verify a capture bundle' } }, async (req, reply) => {
      const { captureId } = req.params as { captureId: string };
      const accept = String(req.headers.accept ?? '');
      const wantsHtml = /text\/html/i.test(accept) && !/application\/json/i.test(accept.split(',')[0] ?? '');
      const row = isId('cap', captureId) ? await findCapture(ctx.pool, captureId) : undefined;
      if (!row || row.status !== 'complete' || !row.bundle || !row.artifacts?.wacz) {
        throw new HttpProblem(404, `Capture ${captureId} has no signed bundle to verify (unknown, not complete, partial, or made without a signing key).`, 'Not Found');
      }
      if (row.bundle.size > ctx.config.VERIFY_MAX_BYTES) {
        throw new HttpProblem(422, `The bundle is ${row.bundle.size} bytes; this service verifies bundles up to ${ctx.config.VERIFY_MAX_BYTES} bytes. Download it and use the offline verifier.`, 'Unprocessable Entity');
      }
      if (wantsHtml) {
        const nonce = randomBytes(16).toString('base64');
        return reply
          .header(
            'Content-Security-Policy',
            // 'self' scripts, frames and workers: ReplayWeb.page's ui.js, its replay iframe and service worker (all under /replay/).
            `default-src 'none'; script-src 'nonce-${nonce}' 'self'; style-src 'nonce-${nonce}' 'self'; connect-src 'self'; img-src 'self'; font-src 'self'; frame-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
          )
          .header('Referrer-Policy', 'no-referrer')
          .type('text/html; charset=utf-8')
          .send(verificationPage(captureId, nonce, { url: row.url, waczPath: `/v1/captures/${captureId}/artifacts/wacz`, replayBase: REPLAY_BASE }));
      }
      const capture = {
        id: row.capture_id,
        createdAt: iso(row.created_at)!,
        completedAt: iso(row.completed_at)!,
        ...(row.render_quality ? { renderQuality: row.render_quality } : {}),
      };
      const wacz = row.artifacts.wacz;
      // Keyed by what is stored now: a bundle altered or replaced in storage is verified afresh.
      const stored = await artifacts.digest(wacz);
      const result = await verifications.get(`${captureId}:${stored}`, async () => {
        const bytes = await artifacts.get(wacz);
        if (!bytes) return null;
        const published = (await trustedTsaCertificates()).map((c) => c.ca_cert_pem);
        return verifyBundle(Buffer.from(bytes), {
          keys: await publishedKeys(),
          tsaCaCertsPem: [...evidence.tsaCaCertsPem, ...published],
          // Every built-in TSA is self-issued: this process's own and those published on the log.
          selfIssuedTsaCaCertsPem: [...evidence.localTsaCaCertsPem, ...published],
        });
      });
      return {
        verified: result?.verified ?? false,
        capture,
        signing: result?.signing
          ? {
              bundleHash: result.signing.bundleHash,
              signature: result.signing.signature,
              publicKey: result.signing.publicKey,
              keyId: result.signing.keyId,
              signedAt: result.signing.signedAt,
              timestamp: result.signing.timestamp,
            }
          : null,
        checks: result?.checks ?? [
          { name: 'artifactHashes', status: 'fail', detail: 'the bundle is missing from storage' },
          { name: 'bundleHash', status: 'skip', detail: 'artifactHashes failed' },
          { name: 'signature', status: 'skip', detail: 'artifactHashes failed' },
        ],
        ...(row.capture_settings ? { captureSettings: row.capture_settings } : {}),
      };
    });
  };
}
