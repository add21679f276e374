import { PNG } from 'pngjs';
import type { SignedBundle } from '../../src/archive/bundle.js';
import { localNotary } from '../../src/archive/notary.js';
import { signingKeyFromSeed } from '../../src/archive/signing-key.js';
import { openArtifactStore } from '../../src/storage/jetstream-artifact-store.js';
import { artifactObjectName } from '../../src/domain/artifacts.js';
import { type CertificateDeps, type CertificateLog, createCertificates } from '../../src/evidence/certificate.js';
import { deploymentTrust } from '../../src/evidence/trust-anchors.js';
import type { ServerHandle } from '../../src/server.js';

/**
 * Captures and certificates for the evidence and transparency-log tests, through the real server's stores
 * and tenant actors: no browser needed where the test is about what happens to a signed bundle.
 */

const byOperator = (correlationId: string) => ({ correlationId, causedBy: { kind: 'admin' as const } });

/** A 64 x 48 grey PNG: the screenshot a logged capture stores when the test names none. */
function greyScreenshot(): Buffer {
  const png = new PNG({ width: 64, height: 48 });
  png.data.fill(0x80);
  return PNG.sync.write(png);
}

/**
 * Stores `bundle` as the capture's WACZ (and `screenshot`, the certificate shows it; `html`, when given, for a diff)
 * and has the tenant actor submit and complete the capture with it.
 */
export async function completeWithBundle(
  server: ServerHandle,
  tenant: string,
  captureId: string,
  bundle: SignedBundle,
  correlationId = 'logged-capture',
  screenshot: Uint8Array = greyScreenshot(),
  url = 'https://example.com/',
  html?: string,
): Promise<void> {
  const store = await openArtifactStore(server.nats.nc);
  const page = html === undefined ? 'h' : artifactObjectName(captureId, 'logged', 'html');
  if (html !== undefined) await store.put(page, new TextEncoder().encode(html));
  const wacz = artifactObjectName(captureId, 'logged', 'wacz');
  await store.put(wacz, bundle.bytes);
  const shot = artifactObjectName(captureId, 'logged', 'screenshot');
  await store.put(shot, screenshot);
  const tenants = server.ctx!.tenants;
  await tenants.execute(
    tenant,
    { type: 'SubmitCaptures', data: { captures: [{ captureId, url }], source: 'single' } },
    byOperator(correlationId),
  );
  await tenants.execute(
    tenant,
    {
      type: 'CompleteCapture',
      data: {
        captureId,
        completedAt: new Date().toISOString(),
        renderQuality: 'full',
        render: { waitUntilReached: 'load', timedOut: false, durationMs: 1 },
        artifacts: { screenshot: shot, html: page, wacz },
        bundle: bundle.ref,
        storedBytes: bundle.ref.size,
        attempts: 1,
      },
    } as never,
    byOperator(correlationId),
  );
}

/**
 * A certificate maker over the server's own stores and a signer with `seed`, but with a certificate store of
 * its own: what it makes is made afresh, never the copy the route stored.
 */
export async function freshCertificates(
  server: ServerHandle,
  seed: string,
  transparency?: CertificateLog,
  issuedAt?: Date,
  corroborations?: CertificateDeps['corroborations'],
) {
  const made = new Map<string, Uint8Array>();
  const ctx = server.ctx!;
  return createCertificates({
    pool: ctx.pool,
    artifacts: await openArtifactStore(server.nats.nc),
    store: {
      get: async (k: string) => (made.has(k) ? ({ operation: 'PUT', value: made.get(k)! } as never) : null),
      create: async (k: string, v: Uint8Array | string) => {
        made.set(k, v as Uint8Array);
        return 1;
      },
    },
    notary: localNotary(signingKeyFromSeed(seed)),
    trust: deploymentTrust(ctx.pool, server.evidence),
    publicBaseUrl: ctx.config.PUBLIC_BASE_URL,
    allowPrivateTargets: ctx.config.ALLOW_PRIVATE_TARGETS,
    ...(transparency ? { transparency } : {}),
    ...(issuedAt ? { now: () => issuedAt } : {}),
    ...(corroborations ? { corroborations } : {}),
  });
}

/** When a certificate was issued: the XMP CreateDate (certificate-pdf.ts writes the issue time there and in /Info). */
export function certificateIssuedAt(pdf: Uint8Array): Date {
  const m = /<xmp:CreateDate>([0-9T:-]+Z)<\/xmp:CreateDate>/.exec(Buffer.from(pdf).toString('latin1'));
  if (!m?.[1]) throw new Error('the certificate states no xmp:CreateDate');
  return new Date(m[1]);
}
