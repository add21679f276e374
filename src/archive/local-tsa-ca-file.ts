import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The built-in TSA's identity file (local-tsa-identity.ts creates it): read here without the PKI libraries, so a
 * process that only trusts an earlier built-in TSA's CA (every role but the signer) does not load them.
 */
export const IDENTITY_FILE = 'tsa-identity.json';

export interface StoredIdentity {
  caCertPem: string;
  tsaCertPem: string;
  tsaKeyPem: string;
}

/**
 * The CA certificate (PEM) of a built-in TSA created earlier in `dir`, or null when there is none. Bundles it
 * time-stamped stay verifiable after TSA_URL is changed to `none` or to another TSA.
 */
export async function existingLocalTsaCaCertPem(dir: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(join(dir, IDENTITY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let caCertPem: unknown;
  try {
    caCertPem = (JSON.parse(text) as Partial<StoredIdentity>).caCertPem;
  } catch {
    return null; // unreadable: nothing to trust (startLocalTsa reports it if the built-in TSA is used again)
  }
  return typeof caCertPem === 'string' && caCertPem.includes('BEGIN CERTIFICATE') ? caCertPem : null;
}
