import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { verifyBundle } from '../../archive/bundle-verifier.js';
import type { Evidence } from '../../archive/evidence-runtime.js';
import type { ArtifactStore } from '../../capture/artifact-store.js';
import { isId } from '../../domain/ids.js';
import type { ApiContext } from '../context.js';
import type { CaptureRow } from '../capture-views.js';
import { HttpProblem } from '../problem.js';
import { iso } from '../schemas.js';
import type { TenantGuard } from '../tenant-auth.js';
import { verificationPage } from '../verification-page.js';

/** Verification anyone can repeat (spec 4.9) and the published keys (spec 4.10). */
export function verificationRoutes(ctx: ApiContext, guard: TenantGuard, artifacts: ArtifactStore, evidence: Evidence) {
  async function publishedKeys() {
    const r = await ctx.pool.query<{ key_id: string; public_key: string; archived_at: Date; is_current: boolean }>(
      'SELECT key_id, public_key, archived_at, is_current FROM signing_keys ORDER BY archived_at, key_id',
    );
    return r.rows.map((k) => ({ keyId: k.key_id, algorithm: 'Ed25519' as const, publicKey: k.public_key, archivedAt: iso(k.archived_at)!, current: k.is_current }));
  }

  return async (app: FastifyInstance) => {
    app.addHook('onRequest', guard.perIp());

    app.get('/.well-known/signing-key', { schema: { tags: ['verification'], summary: 'The current signing key' } }, async () => {
      const current = (await publishedKeys()).find((k) => k.current);
      if (current) return { algorithm: current.algorithm, publicKey: current.publicKey, keyId: current.keyId };
      if (evidence.signingKey) return { algorithm: 'Ed25519', publicKey: evidence.signingKey.publicKeyBase64, keyId: evidence.signingKey.keyId };
      throw new HttpProblem(503, 'No signing key is configured on this deployment (SIGNING_KEY=none).', 'Service Unavailable');
    });

    app.get('/.well-known/signing-keys', { schema: { tags: ['verification'], summary: 'Every signing key ever used' } }, async () => ({
      keys: (await publishedKeys()).map(({ current: _c, ...k }) => k),
    }));

    app.get('/v1/verify/:captureId', { schema: { tags: ['verification'], summary: 'Verify a capture bundle' } }, async (req, reply) => {
      const { captureId } = req.params as { captureId: string };
      const accept = String(req.headers.accept ?? '');
      const wantsHtml = /text\/html/i.test(accept) && !/application\/json/i.test(accept.split(',')[0] ?? '');
      const row = isId('cap', captureId)
        ? (await ctx.pool.query<CaptureRow>('SELECT * FROM captures WHERE capture_id = $1', [captureId])).rows[0]
        : undefined;
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
            `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
          )
          .header('Referrer-Policy', 'no-referrer')
          .type('text/html; charset=utf-8')
          .send(verificationPage(captureId, nonce));
      }
      const bytes = await artifacts.get(row.artifacts.wacz);
      const capture = {
        id: row.capture_id,
        createdAt: iso(row.created_at)!,
        completedAt: iso(row.completed_at)!,
        ...(row.render_quality ? { renderQuality: row.render_quality } : {}),
      };
      const result = bytes
        ? await verifyBundle(Buffer.from(bytes), { keys: await publishedKeys(), tsaCaCertsPem: evidence.tsaCaCertsPem })
        : null;
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
