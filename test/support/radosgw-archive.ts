import type { ArchiveLocation } from '../../src/ledger-archive/archive-bucket.js';
import type { Radosgw } from './radosgw.js';

/** An archive location (`s3://archive/<prefix>`) on a test radosgw, as ARCHIVE_URL and the S3_* settings make it. */
export const radosgwArchive = (gw: Radosgw, prefix: string): ArchiveLocation => ({
  settings: {
    endpoint: gw.endpoint,
    region: gw.region,
    bucket: 'archive',
    forcePathStyle: true,
    credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
    presignedDownloads: false,
    presignSeconds: 300,
  },
  bucket: 'archive',
  prefix: `${prefix}/`,
  url: `s3://archive/${prefix}`,
});
