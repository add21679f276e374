/**
 * Errors raised by the archive module. Callers recognise them by `code`, never by message text.
 */
export type ArchiveErrorCode = 'SIGNING_KEY_INVALID' | 'TSA_UNAVAILABLE' | 'TSA_BAD_RESPONSE' | 'BUNDLE_INPUT_INVALID';

export class ArchiveError extends Error {
  override readonly name: string = 'ArchiveError';
  readonly code: ArchiveErrorCode;

  constructor(code: ArchiveErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The signing seed (SIGNING_KEY or the DATA_DIR seed file) cannot be used. */
export class SigningKeyError extends ArchiveError {
  override readonly name = 'SigningKeyError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('SIGNING_KEY_INVALID', message, options);
  }
}

/** The TSA could not be reached (network error, timeout, 5xx, 429) after all attempts. */
export class TsaUnavailableError extends ArchiveError {
  override readonly name = 'TsaUnavailableError';
  readonly attempts: number;
  constructor(message: string, attempts: number, options?: { cause?: unknown }) {
    super('TSA_UNAVAILABLE', message, options);
    this.attempts = attempts;
  }
}

/** The TSA answered, but not with a usable, matching, granted time-stamp token. Not retried. */
export class TsaResponseError extends ArchiveError {
  override readonly name = 'TsaResponseError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('TSA_BAD_RESPONSE', message, options);
  }
}

/** Refused by the notary itself (not a transport failure): the request cannot succeed as it is. */
export class NotaryRefusal extends Error {
  override readonly name = 'NotaryRefusal';
  constructor(
    readonly code: 'key-changed' | 'no-key' | 'bad-request',
    message: string,
  ) {
    super(message);
  }
}
