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
 * built-in local TSA, in processes that make bundles, with its CA in DATA_DIR/tsa; that CA stays trusted when
 * TSA_URL is later set), TSA_CA_CERTS (PEM files trusted for timestamp chains). Built-in TSA CAs are also
 * published on the log (tsa-certificate-registry.ts), so a bundle from any worker verifies at any API process.
 */
export interface Evidence {
  signingKey: SigningKey | null;
  timestamper: Timestamper | null;
  /** CAs trusted for timestamps from configuration and this DATA_DIR; the published ones come from the log. */
  tsaCaCertsPem: string[];
  /** The built-in TSA's CA when this process runs one: published on the log for every verifier. */
  localTsaCaCertPem: string | null;
  /** The built-in local TSA's CA (current or earlier), whose timestamps verification calls self-issued. */
  localTsaCaCertsPem: string[];
  makeBundle: BundleMaker | undefined;
  close(): Promise<void>;
}

/** `stampsBundles`: this process makes bundles (the worker role), so it runs the built-in TSA when TSA_URL is unset. */
export async function startEvidence(config: Config, dataDir: string, log: Logger, opts: { stampsBundles: boolean }): Promise<Evidence> {
  // Only a process that makes bundles generates a key when none is configured; others learn keys from the log.
  const signingKey =
    config.SIGNING_KEY === 'none'
      ? null
      : config.SIGNING_KEY
        ? signingKeyFromSeed(config.SIGNING_KEY)
        : opts.stampsBundles
          ? await loadOrCreateSigningKey(dataDir)
          : null;

  let localTsa: LocalTsa | null = null;
  let timestamper: Timestamper | null = null;
  const tsaCaCertsPem: string[] = [];
  const localTsaCaCertsPem: string[] = [];
  for (const file of config.TSA_CA_CERTS) {
    try {
      tsaCaCertsPem.push(await readFile(file, 'utf8'));
    } catch (err) {
      throw new Error(`TSA_CA_CERTS: cannot read ${file}: ${(err as Error).message}`);
    }
  }
  if (config.TSA_URL || !opts.stampsBundles) {
    timestamper = config.TSA_URL && config.TSA_URL !== 'none' ? createTsaClient({ url: config.TSA_URL }) : null;
    // The built-in TSA this DATA_DIR ran before (if any) is still trusted for the bundles it time-stamped.
    const previousLocalCa = await existingLocalTsaCaCertPem(join(dataDir, 'tsa'));
    if (previousLocalCa) {
      tsaCaCertsPem.push(previousLocalCa);
      localTsaCaCertsPem.push(previousLocalCa);
    }
  } else {
    localTsa = await startLocalTsa({ dir: join(dataDir, 'tsa') });
    timestamper = createTsaClient({ url: localTsa.url });
    tsaCaCertsPem.push(localTsa.caCertPem);
    localTsaCaCertsPem.push(localTsa.caCertPem);
  }

  const makeBundle: BundleMaker | undefined = signingKey
    ? async ({ captureId, url, createdAt, completedAt, result, captureSettings, provenance }) => {
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
            ...(result.pdf ? { pdf: result.pdf } : {}),
            ...(captureSettings ? { captureSettings } : {}),
            ...(provenance ? { provenance } : {}),
          },
          { signingKey, timestamper: timestamper ?? undefined, onTimestampFailure: 'downgrade' },
        );
        if (bundle.timestampError) {
          // Documented behaviour: the capture is kept with a v0.1.0 bundle (signed, not timestamped).
          log.warn({ captureId, err: bundle.timestampError }, 'TSA unavailable after retries; bundle issued as v0.1.0 without a timestamp');
        }
        return { bytes: bundle.bytes, ...(bundle.provenanceJson ? { provenanceJson: bundle.provenanceJson } : {}), bundleHash: bundle.bundleHash, size: bundle.size, version: bundle.version, keyId: bundle.keyId };
      }
    : undefined;

  return {
    signingKey,
    timestamper,
    tsaCaCertsPem,
    localTsaCaCertPem: localTsa?.caCertPem ?? null,
    localTsaCaCertsPem,
    makeBundle,
    async close() {
      await localTsa?.close();
    },
  };
}
