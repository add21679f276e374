import { isObject, type PublishedKey } from './format.js';

/**
 * Trust from documents a deployment publishes: the keys of GET /.well-known/signing-keys
 * ({ keys: [{ keyId, algorithm, publicKey, archivedAt }] }, or a single key as /.well-known/signing-key serves it)
 * and the built-in TSA CAs of GET /.well-known/tsa-certificates ({ certificates: [{ fingerprint, publishedAt, pem }] }).
 * `source` names the file or URL in error messages.
 */
export function keysFromDocument(document: unknown, source: string): PublishedKey[] {
  const record = isObject(document) ? document : {};
  const list = Array.isArray(record['keys']) ? record['keys'] : 'keyId' in record ? [record] : null;
  if (!list) throw new Error(`${source} has no "keys" array`);
  return list.map((entry, index) => {
    const key = isObject(entry) ? entry : {};
    if (typeof key['keyId'] !== 'string' || typeof key['publicKey'] !== 'string')
      throw new Error(`${source}: key ${index} needs string keyId and publicKey`);
    return {
      keyId: key['keyId'],
      publicKey: key['publicKey'],
      ...(typeof key['algorithm'] === 'string' ? { algorithm: key['algorithm'] } : {}),
      ...(typeof key['archivedAt'] === 'string' ? { archivedAt: key['archivedAt'] } : {}),
    };
  });
}

export function tsaCertificatesFromDocument(document: unknown, source: string): string[] {
  const certificates = isObject(document) ? document['certificates'] : undefined;
  if (!Array.isArray(certificates)) throw new Error(`${source} has no "certificates" array`);
  return certificates.map((c, index) => {
    const pem = isObject(c) ? c['pem'] : undefined;
    if (typeof pem !== 'string') throw new Error(`${source}: certificate ${index} has no "pem" string`);
    return pem;
  });
}

/**
 * A trusted-TSA file as given to --tsa-ca: PEM certificates, or the /.well-known/tsa-certificates document saved as
 * served (JSON). Throws naming the file when it is neither.
 */
export function tsaCertificatesFromText(text: string, source: string): string[] {
  if (text.trimStart().startsWith('{')) return tsaCertificatesFromDocument(parseJson(text, source), source);
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`${source} holds neither PEM certificates nor a /.well-known/tsa-certificates document`);
  return [text];
}

export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${source} is not valid JSON`);
  }
}

/** Fetches a JSON document (a deployment's key or TSA document); throws naming the URL. */
export async function fetchJson(url: string, doFetch: typeof globalThis.fetch = globalThis.fetch): Promise<unknown> {
  const response = await doFetch(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  return parseJson(await response.text(), url);
}
