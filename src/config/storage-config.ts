import { readFileSync } from 'node:fs';
import { checked, type EnvField, type EnvOutput, oneOf, optionalString } from './env-fields.js';

/**
 * Where artifacts and bundles are stored (docs/storage.md): ARTIFACT_STORE=jetstream (default, the
 * NATS object store beside the log) or s3 (S3-compatible object storage, the S3_* settings below).
 */
export interface S3Settings {
  endpoint?: string;
  /** Presigned download links name this endpoint instead (S3 behind another host name for clients). */
  publicEndpoint?: string;
  region: string;
  bucket: string;
  forcePathStyle: boolean;
  /** Unset: the AWS SDK's own chain (AWS_ACCESS_KEY_ID…, ~/.aws, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Where the credentials come from, for messages (never the secret): a variable, a file, or the SDK's chain. */
  credentialSource?: string;
  /** S3_ALLOW_UNLOCKED: a bucket without Object Lock is meant to be so; start even when retention is configured. */
  allowUnlocked?: boolean;
  presignedDownloads: boolean;
  presignSeconds: number;
}

export type StorageSettings = { kind: 'jetstream' } | ({ kind: 's3' } & S3Settings);

const opt = optionalString;
const flag = (name: string) => checked((v) => v === 'true' || v === 'false', `${name} must be true or false`);
const url = (name: string) => checked((v) => URL.canParse(v), `${name} must be an absolute URL`);

/** The variables, beside the rest of the run contract (src/config/config.ts spreads them into its schema). */
export const STORAGE_ENV = {
  ARTIFACT_STORE: oneOf(['jetstream', 's3'], 'ARTIFACT_STORE must be jetstream or s3'),
  S3_ENDPOINT: url('S3_ENDPOINT'),
  S3_PUBLIC_ENDPOINT: url('S3_PUBLIC_ENDPOINT'),
  S3_REGION: opt,
  S3_BUCKET: checked(
    (v) => /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(v),
    'S3_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens',
  ),
  S3_FORCE_PATH_STYLE: flag('S3_FORCE_PATH_STYLE'),
  S3_ACCESS_KEY_ID: opt,
  S3_SECRET_ACCESS_KEY: opt,
  /** A JSON file `{"accessKeyId": …, "secretAccessKey": …}` (a mounted secret), instead of the two variables. */
  S3_CREDENTIALS_FILE: opt,
  S3_PRESIGNED_DOWNLOADS: flag('S3_PRESIGNED_DOWNLOADS'),
  /**
   * true: the bucket has no Object Lock on purpose; the service starts though retention is configured (and stores
   * without retention). Unset: it refuses to start then (docs/storage.md).
   */
  S3_ALLOW_UNLOCKED: flag('S3_ALLOW_UNLOCKED'),
  S3_PRESIGN_SECONDS: checked(
    (v) => /^\d+$/.test(v) && +v >= 1 && +v <= 604_800,
    'S3_PRESIGN_SECONDS must be a whole number of seconds between 1 and 604800',
  ),
  /** Default retention of a tenant's bundles in days, when its own is not set (0: none). */
  RETENTION_DEFAULT_DAYS: checked(
    (v) => /^\d+$/.test(v) && +v <= 36_500,
    'RETENTION_DEFAULT_DAYS must be a whole number of days between 0 and 36500',
  ),
} satisfies Record<string, EnvField<unknown>>;

type StorageEnv = Partial<EnvOutput<typeof STORAGE_ENV>>;

export class StorageConfigError extends Error {
  override name = 'StorageConfigError';
}

/** The storage settings from the parsed variables; StorageConfigError names what is missing or unreadable. */
export function storageSettings(env: StorageEnv): StorageSettings {
  if ((env.ARTIFACT_STORE ?? 'jetstream') === 'jetstream') return { kind: 'jetstream' };
  if (!env.S3_BUCKET) throw new StorageConfigError('S3_BUCKET is required when ARTIFACT_STORE=s3');
  let credentials: S3Settings['credentials'];
  let credentialSource =
    "the AWS SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, an instance or task role)";
  if (env.S3_CREDENTIALS_FILE) {
    let parsed: { accessKeyId?: unknown; secretAccessKey?: unknown };
    try {
      parsed = JSON.parse(readFileSync(env.S3_CREDENTIALS_FILE, 'utf8'));
    } catch (err) {
      throw new StorageConfigError(
        `S3_CREDENTIALS_FILE ${env.S3_CREDENTIALS_FILE} is unreadable: ${(err as Error).message}`,
      );
    }
    if (typeof parsed.accessKeyId !== 'string' || typeof parsed.secretAccessKey !== 'string')
      throw new StorageConfigError('S3_CREDENTIALS_FILE must hold {"accessKeyId": "…", "secretAccessKey": "…"}');
    credentials = { accessKeyId: parsed.accessKeyId, secretAccessKey: parsed.secretAccessKey };
    credentialSource = `S3_CREDENTIALS_FILE ${env.S3_CREDENTIALS_FILE} (access key ${parsed.accessKeyId})`;
  } else if (env.S3_ACCESS_KEY_ID || env.S3_SECRET_ACCESS_KEY) {
    if (!env.S3_ACCESS_KEY_ID || !env.S3_SECRET_ACCESS_KEY)
      throw new StorageConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
    credentials = { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY };
    credentialSource = `S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY (access key ${env.S3_ACCESS_KEY_ID})`;
  }
  return {
    kind: 's3',
    ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
    ...(env.S3_PUBLIC_ENDPOINT ? { publicEndpoint: env.S3_PUBLIC_ENDPOINT } : {}),
    region: env.S3_REGION ?? 'us-east-1',
    bucket: env.S3_BUCKET,
    // An endpoint of one's own (MinIO, Ceph) usually has no per-bucket host names: path style unless told.
    forcePathStyle: env.S3_FORCE_PATH_STYLE ? env.S3_FORCE_PATH_STYLE === 'true' : Boolean(env.S3_ENDPOINT),
    ...(credentials ? { credentials } : {}),
    credentialSource,
    allowUnlocked: env.S3_ALLOW_UNLOCKED === 'true',
    presignedDownloads: env.S3_PRESIGNED_DOWNLOADS === 'true',
    presignSeconds: Number(env.S3_PRESIGN_SECONDS ?? 300),
  };
}

/** The default retention for a tenant's bundles in days (RETENTION_DEFAULT_DAYS; 0 or unset: none). */
export const defaultRetentionDays = (env: Pick<StorageEnv, 'RETENTION_DEFAULT_DAYS'>) =>
  Number(env.RETENTION_DEFAULT_DAYS ?? 0);
