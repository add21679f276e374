/**
 * Where the S3 adapter keeps things in its bucket (docs/storage.md): `blobs/sha256/<hex>` the bytes,
 * content-addressed; `names/<name>` a write-once record naming the blob (and its version) behind a name;
 * `staging/<uuid>` a streamed body until its digest is known.
 */
export interface NameRecord {
  digest: string;
  size: number;
  blob: string;
  version?: string;
}

export const blobKey = (digest: string) =>
  `blobs/sha256/${Buffer.from(digest.replace(/^SHA-256=/, '').replace(/=+$/, ''), 'base64url').toString('hex')}`;
export const nameKey = (name: string) => `names/${name}`;
/** The version a record names, as a request parameter. */
export const versionOf = (r: NameRecord) => (r.version ? { VersionId: r.version } : {});
