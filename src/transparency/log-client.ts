import { decodeEntryBundle, type TileRef, tilePath } from './tiles.js';

/**
 * A reader of a deployment's public log over HTTP (`<base>` = `https://host/v1/log`): what the offline verifier
 * and the monitor use. It trusts nothing it reads; callers check signatures and proofs.
 */
export interface LogClient {
  base: string;
  key(): Promise<string>;
  checkpoint(): Promise<string>;
  inclusionByCapture(captureId: string, treeSize: number): Promise<{ leafIndex: number; hashes: string[] } | null>;
  consistency(first: number, second: number): Promise<string[]>;
  tile(ref: TileRef): Promise<Uint8Array>;
  entries(index: number, width: number): Promise<Uint8Array[]>;
}

export class LogFetchError extends Error {
  override name = 'LogFetchError';
}

export function createLogClient(base: string, doFetch: typeof globalThis.fetch = globalThis.fetch): LogClient {
  const root = base.replace(/\/+$/, '');
  async function get(path: string, accept: string): Promise<Response> {
    let r: Response;
    try {
      r = await doFetch(`${root}/${path}`, { headers: { accept } });
    } catch (err) {
      throw new LogFetchError(`${root}/${path}: ${(err as Error).message}`);
    }
    return r;
  }
  async function ok(path: string, accept: string): Promise<Response> {
    const r = await get(path, accept);
    if (!r.ok) throw new LogFetchError(`${root}/${path} answered HTTP ${r.status}: ${(await r.text()).slice(0, 300)}`);
    return r;
  }
  return {
    base: root,
    key: async () => (await (await ok('key', 'text/plain')).text()).trim(),
    checkpoint: async () => (await ok('checkpoint', 'text/plain')).text(),
    async inclusionByCapture(captureId, treeSize) {
      const r = await get(
        `proof/inclusion?captureId=${encodeURIComponent(captureId)}&treeSize=${treeSize}`,
        'application/json',
      );
      if (r.status === 404) return null;
      if (!r.ok)
        throw new LogFetchError(`${root}/proof/inclusion answered HTTP ${r.status}: ${(await r.text()).slice(0, 300)}`);
      const body = (await r.json()) as { leafIndex: number; hashes: string[] };
      return { leafIndex: body.leafIndex, hashes: body.hashes };
    },
    async consistency(first, second) {
      const body = (await (
        await ok(`proof/consistency?first=${first}&second=${second}`, 'application/json')
      ).json()) as { hashes: string[] };
      return body.hashes;
    },
    tile: async (ref) => new Uint8Array(await (await ok(tilePath(ref), 'application/octet-stream')).arrayBuffer()),
    entries: async (index, width) =>
      decodeEntryBundle(
        new Uint8Array(
          await (await ok(tilePath({ level: 'entries', index, width }), 'application/octet-stream')).arrayBuffer(),
        ),
      ),
  };
}
