import { S3ServiceException } from '@aws-sdk/client-s3';
import { StorageUnavailableError } from './artifact-store.js';

/** How the S3 adapter tells the storage's answers apart (src/storage/s3-artifact-store.ts). */

const RETRY_AFTER_S = 5;

export function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

export const isNotFound = (err: unknown) =>
  statusOf(err) === 404 || (err instanceof S3ServiceException && /NoSuchKey|NotFound|NoSuchVersion/.test(err.name));

/** Object Lock's refusal of a delete or a shorter retention. */
export const isLockRefusal = (err: unknown) => statusOf(err) === 403;

/** Down, restarting, overloaded or unreachable: the storage's outage, not a fault of the object. */
export function isStorageUnavailable(err: unknown): boolean {
  if (err instanceof StorageUnavailableError) return true;
  const status = statusOf(err);
  if (status !== undefined) return status >= 500 || status === 429 || status === 408;
  const code = (err as { code?: string })?.code ?? '';
  const name = (err as { name?: string })?.name ?? '';
  return (
    /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOTFOUND)$/.test(code) ||
    /TimeoutError|RequestTimeout|AbortError/.test(name) ||
    (err instanceof Error && /socket hang up|ECONNREFUSED|ECONNRESET/.test(err.message))
  );
}

/** An outage as StorageUnavailableError (the API answers 503 with Retry-After); any other error as it is. */
export function unavailable(err: unknown, what: string): unknown {
  if (!isStorageUnavailable(err)) return err;
  const why = err instanceof Error ? err.message || err.name : String(err);
  return new StorageUnavailableError(`Object storage is unavailable (${what}: ${why})`, RETRY_AFTER_S);
}

/** The S3 error code of an answer (`InvalidAccessKeyId`, `AccessDenied`, …), when the answer carried one. */
export function s3ErrorCode(err: unknown): string | undefined {
  const e = err as { Code?: string; name?: string };
  if (typeof e?.Code === 'string' && e.Code) return e.Code;
  const name = e?.name;
  // A HEAD answer has no body: the SDK then names the error after nothing (Unknown, UnknownError, NotFound…).
  return name && !/^(Unknown|UnknownError|Error|S3ServiceException)$/.test(name) ? name : undefined;
}

/** The bucket cannot be used as configured (credentials, permissions, Object Lock): the service does not start. */
export class S3StartError extends Error {
  override name = 'S3StartError';
}
