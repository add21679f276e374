// Typed errors of outbound requests, recognised by `code` (STYLE: not by message text).

/** The target resolved to (or named) an address the policy refuses. Never retry: the answer will not change. */
export class EgressBlockedError extends Error {
  override readonly name = 'EgressBlockedError';
  readonly code = 'egress_blocked' as const;
  readonly retryable = false;
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`refused to connect to ${host}: ${reason}`);
  }
}

/** The whole request (resolve, connect, TLS, response, body) did not finish within its deadline. */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  readonly code = 'timeout' as const;
  readonly retryable = true;
  constructor(readonly timeoutMs: number) {
    super(`no complete response within ${timeoutMs} ms`);
  }
}

/** DNS failure, refused connection, reset, TLS failure and similar. `errno` is the Node error code when known. */
export class NetworkRequestError extends Error {
  override readonly name = 'NetworkRequestError';
  readonly code = 'network' as const;
  readonly retryable = true;
  constructor(
    message: string,
    readonly errno?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
