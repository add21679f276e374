import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { BundleMaker } from '../capture/capture-worker.js';
import { buildSignedBundle } from './bundle-builder.js';
import { existingLocalTsaCaCertPem, startLocalTsa, type LocalTsa } from './local-tsa.js';
import { loadOrCreateSigningKey, signingKeyFromSeed, type SigningKey } from './signing-key.js';
import { createTsaClient, type Timestamper } from './tsa-client.js';

/**
 * How this process makes and checks evidence, from the run contract:
 * SIGNING_KEY (base64 seed | none | unset → generated once into DATA_DIR), TSA_URL (url | none | unset → the
 * built-in local TSA with its CA in DATA_DIR/tsa; that CA stays trusted when TSA_URL is later set), TSA_CA_CERTS
 * (PEM files trusted for timestamp chains).
 */
export interface Evidence {
  signingKey: SigningKey | null;
  timestamper: Timestamper | null;
  tsaCaCertsPem: string[];
  makeBundle: BundleMaker | undefined;
  close(): Promise<void>;
}

export async function startEvidence(config: Config, dataDir: string, log: Logger): Promise<Evidence> {
  const signingKey =
    config.SIGNING_KEY === 'none'
      ? null
      : config.SIGNING_KEY
        ? signingKeyFromSeed(config.SIGNING_KEY)
        : await loadOrCreateSigningKey(dataDir);

  let localTsa: LocalTsa | null = null;
  let timestamper: Timestamper | null = null;
  const tsaCaCertsPem: string[] = [];
  for (const file of config.TSA_CA_CERTS) {
    try {
      tsaCaCertsPem.push(await readFile(file, 'utf8'));
    } catch (err) {
      throw new Error(`TSA_CA_CERTS: cannot read ${file}: ${(err as Error).message}`);
    }
  }
  if (config.TSA_URL) {
    timestamper = config.TSA_URL === 'none' ? null : createTsaClient({ url: config.TSA_URL });
    // The built-in TSA this deployment used before (if any) is still trusted for the bundles it time-stamped.
    const previousLocalCa = await existingLocalTsaCaCertPem(join(dataDir, 'tsa'));
    if (previousLocalCa) tsaCaCertsPem.push(previousLocalCa);
  } else {
    localTsa = await startLocalTsa({ dir: join(dataDir, 'tsa') });
    timestamper = createTsaClient({ url: localTsa.url });
    tsaCaCertsPem.push(localTsa.caCertPem);
  }

  const makeBundle: BundleMaker | undefined = signingKey
    ? async ({ captureId, url, createdAt, completedAt, result }) => {
        const bundle = await buildSignedBundle(
          {
            captureId,
            url,
            title: result.title,
            createdAt,
            completedAt,
            exchanges: result.exchanges,
            screenshot: result.screenshot,
            ...(result.screenshotBefore ? { screenshotBefore: result.screenshotBefore } : {}),
            html: result.html,
            headers: result.headers,
          },
          { signingKey, timestamper: timestamper ?? undefined, onTimestampFailure: 'downgrade' },
        );
        if (bundle.timestampError) {
          // Documented behaviour: the capture is kept with a v0.1.0 bundle (signed, not timestamped).
          log.warn({ captureId, err: bundle.timestampError }, 'TSA unavailable after retries; bundle issued as v0.1.0 without a timestamp');
        }
        return { bytes: bundle.bytes, bundleHash: bundle.bundleHash, size: bundle.size, version: bundle.version, keyId: bundle.keyId };
      }
    : undefined;

  return {
    signingKey,
    timestamper,
    tsaCaCertsPem,
    makeBundle,
    async close() {
      await localTsa?.close();
    },
  };
}
