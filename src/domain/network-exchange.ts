/**
 * One HTTP exchange as the browser saw it while rendering a page. The capture engine records these;
 * the WACZ writer turns each into a WARC request + response record pair.
 */
export interface NetworkExchange {
  /** Absolute URL requested. */
  url: string;
  method: string;
  /** Request headers as sent (name → value; multi-valued headers joined with ", "). */
  requestHeaders: Record<string, string>;
  requestBody?: Buffer;
  status: number;
  statusText: string;
  /** e.g. 'HTTP/1.1'; 'HTTP/1.1' when unknown. */
  httpVersion: string;
  /** Response headers in received order; repeated names (Set-Cookie) stay separate pairs. */
  responseHeaders: Array<[string, string]>;
  /** Response body bytes (decoded of transfer/content encoding, as the page consumed it). */
  body: Buffer;
  /** IP address the browser connected to, when known. */
  remoteAddress?: string;
  /** ISO 8601 UTC time the request was sent. */
  startedAt: string;
  /**
   * Set when `body` is not the whole body the browser received (WARC 1.1 WARC-Truncated): `length` over the
   * recorded-body budget, `time` still loading at capture time, `disconnect` the transfer failed, `unspecified`
   * the browser kept no body.
   */
  truncated?: 'length' | 'time' | 'disconnect' | 'unspecified';
}
