import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { Notary } from './notary.js';
import type { LocalTsa } from './local-tsa.js';
import { existingLocalTsaCaCertPem } from './local-tsa-ca-file.js';
import type { SigningKey } from './signing-key.js';
import type { Timestamper } from './tsa-client.js';

/**
 * How this process makes and checks evidence, from the run contract:
 * SIGNING_KEY (base64 seed | none | unset → generated once into DATA_DIR), TSA_URL (url | none | unset → the
 * built-in local TSA, in the signer role, with its CA in DATA_DIR/tsa; that CA stays trusted when
 * TSA_URL is later set), TSA_CA_CERTS (PEM files trusted for timestamp chains). Built-in TSA CAs are also
 * published on the log (tsa-certificate-registry.ts), so a bundle from any worker verifies at any API process.
 */
export interface Evidence {
  /** The signer role's notary (it holds the key and the TSA); null in every other process, or with SIGNING_KEY=none. */
  notary: Notary | null;
  /** The public half of this process's key (signer role only): what /.well-known/signing-key answers until one is published. */
  signingPublicKey: { keyId: string; publicKeyBase64: string } | null;
  /** Registered on the log by the signer role at start; never loaded by the other roles. */
  signingKey: SigningKey | null;
  /** CAs trusted for timestamps from configuration and this DATA_DIR; the published ones come from the log. */
  tsaCaCertsPem: string[];
  /** The built-in TSA's CA when this process runs one: published on the log for every verifier. */
  localTsaCaCertPem: string | null;
  /** The built-in local TSA's CA (current or earlier), whose timestamps verification calls self-issued. */
  localTsaCaCertsPem: string[];
  /** Where this process's built-in TSA listens, if it runs one: one of the service's own addresses, never a target. */
  listeners: { host: string; port: number }[];
  close(): Promise<void>;
}

/**
 * The built-in TSA as bundles, certificates and verification results name it (`tsa`): the URL where this deployment
 * publishes its CA certificates, which is how a verifier checks its tokens. Its own listener is on loopback, for the
 * signer alone: neither reachable by readers nor a name worth publishing.
 */
export const localTsaName = (publicBaseUrl: string): string => `${publicBaseUrl}/.well-known/tsa-certificates`;

/**
 * `signs`: this process has the signer role, so it loads SIGNING_KEY (or generates one into DATA_DIR when unset)
 * and runs the built-in TSA when TSA_URL is unset. Other processes never read the key: they learn public keys
 * and TSA CAs from the log.
 */
export async function startEvidence(config: Config, dataDir: string, opts: { signs: boolean }): Promise<Evidence> {
  // The key, the TSA and the notary's modules (the PKI libraries among them) load only where they are used.
  const keys = !opts.signs || config.SIGNING_KEY === 'none' ? null : await import('./signing-key.js');
  const signingKey = !keys
    ? null
    : config.SIGNING_KEY
      ? keys.signingKeyFromSeed(config.SIGNING_KEY)
      : await keys.loadOrCreateSigningKey(dataDir);

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
  if (config.TSA_URL || !signingKey) {
    timestamper =
      config.TSA_URL && config.TSA_URL !== 'none'
        ? (await import('./tsa-client.js')).createTsaClient({ url: config.TSA_URL })
        : null;
    // The built-in TSA this DATA_DIR ran before (if any) is still trusted for the bundles it time-stamped.
    const previousLocalCa = await existingLocalTsaCaCertPem(join(dataDir, 'tsa'));
    if (previousLocalCa) {
      tsaCaCertsPem.push(previousLocalCa);
      localTsaCaCertsPem.push(previousLocalCa);
    }
  } else {
    localTsa = await (await import('./local-tsa.js')).startLocalTsa({ dir: join(dataDir, 'tsa') });
    // Its loopback URL answers this process only: evidence names it by where its CA is published instead.
    timestamper = (await import('./tsa-client.js')).createTsaClient({
      url: localTsa.url,
      name: localTsaName(config.PUBLIC_BASE_URL),
    });
    tsaCaCertsPem.push(localTsa.caCertPem);
    localTsaCaCertsPem.push(localTsa.caCertPem);
  }

  return {
    notary: signingKey
      ? (await import('./notary.js')).localNotary(signingKey, { timestamper: timestamper ?? undefined })
      : null,
    signingPublicKey: signingKey ? { keyId: signingKey.keyId, publicKeyBase64: signingKey.publicKeyBase64 } : null,
    signingKey,
    tsaCaCertsPem,
    localTsaCaCertPem: localTsa?.caCertPem ?? null,
    localTsaCaCertsPem,
    listeners: localTsa ? [{ host: new URL(localTsa.url).hostname, port: Number(new URL(localTsa.url).port) }] : [],
    async close() {
      await localTsa?.close();
    },
  };
}
