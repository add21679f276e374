/**
 * Records every HTTP exchange of one page over its own CDP session (Network domain), for the WARC records,
 * the main document's raw headers (spec 2.4 `headers`) and the in-flight count the settle phase waits on.
 *
 * CDP reports a request in several events that may interleave: requestWillBeSent (one per redirect hop,
 * same requestId), the *ExtraInfo events with the raw headers actually on the wire (Set-Cookie included),
 * responseReceived, loadingFinished / loadingFailed. Events are kept as they come and paired only when the
 * exchanges are assembled at the end.
 */
import type { CDPSession, Protocol } from 'puppeteer-core';
import type { NetworkExchange } from '../domain/network-exchange.js';
import {
  type HeaderPairs,
  joinHeaderObject,
  pairsFromHeaderObject,
  parseHeadersText,
  httpVersionOf,
  statusTextOf,
} from './http-headers.js';
import { rescueErrorBodies, type ErrorBodyRescue } from './error-body-rescue.js';
import type { InflightSource } from './settle.js';
import { withTimeout } from './step-timeout.js';

export const DEFAULT_MAX_RECORDED_BODY_BYTES = 50 * 1024 * 1024;

interface Hop {
  url: string;
  method: string;
  requestHeaders: Protocol.Network.Headers;
  requestBody?: Buffer | undefined;
  wallTime: number;
  response?: Protocol.Network.Response;
  redirected: boolean;
}

interface RequestRecord {
  /** The CDP session's request id; records are keyed by session and id (ids are only unique per renderer). */
  requestId: string;
  /** The session that reported it: the page's, or an out-of-process frame's. */
  session: CDPSession;
  hops: Hop[];
  requestExtra: Protocol.Network.RequestWillBeSentExtraInfoEvent[];
  responseExtra: Protocol.Network.ResponseReceivedExtraInfoEvent[];
  state: 'loading' | 'finished' | 'failed';
  errorText?: string;
  body?: Buffer;
  bodyFetch?: Promise<void>;
  bodyMissing?: 'over-budget' | 'unavailable';
  /** An error body Blink cancelled, read at the response stage (error-body-rescue.ts). */
  rescuedBody?: Buffer;
  /** Its frame moved to another renderer process (a cross-site frame's document): it finished over there. */
  movedAway?: boolean;
}

export interface MainDocument {
  url: string;
  status: number;
  headers: HeaderPairs;
  /** True when the headers are the raw ones from the wire (ResponseReceivedExtraInfo). */
  rawHeaders: boolean;
}

export interface MainDocumentFailure {
  url: string;
  errorText: string;
}

export interface RecordedNetwork {
  exchanges: NetworkExchange[];
  notes: string[];
}

export interface NetworkRecorder extends InflightSource {
  /** Enables the Network domain; call before navigating. */
  start(): Promise<void>;
  /**
   * Records the traffic of an out-of-process frame too (a cross-site iframe runs in its own renderer with its
   * own CDP session); its requests are counted in flight until they end or the session goes away.
   */
  addSession(frameSession: CDPSession): Promise<void>;
  /** The out-of-process frame went away: what its session had in flight will never end. */
  sessionGone(frameSession: CDPSession): void;
  /** The last main-frame document response (after redirects), if one arrived. */
  mainDocument(): MainDocument | undefined;
  /** Why the last main-frame document request failed, if it did. */
  mainDocumentFailure(): MainDocumentFailure | undefined;
  /** The URLs the main-frame document requests went to (original and redirect targets), in order. */
  mainDocumentUrls(): string[];
  /** Every http(s) URL requested so far (behaviors fetch only what is not among them). */
  requestedUrls(): Set<string>;
  /**
   * URLs with a response that holds the whole resource so far: any but a 206 whose Content-Range is part of
   * it (replay cannot serve a media file, or a stream segment, from a part).
   */
  completeUrls(): Set<string>;
  /** Waits (bounded) for pending body reads, then assembles the exchanges. Call before the page closes. */
  finish(waitForBodiesMs: number): Promise<RecordedNetwork>;
  dispose(): void;
}

export function createNetworkRecorder(
  session: CDPSession,
  options: { mainFrameId: string; maxBodyBytes?: number },
): NetworkRecorder {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_RECORDED_BODY_BYTES;
  const records = new Map<string, RequestRecord>();
  /** Requests in flight (by record key), with the frame that made each. */
  const inflight = new Map<string, string | undefined>();
  const sessionKeys = new Map<CDPSession, string>([[session, '']]);
  const keyOf = (from: CDPSession, requestId: string) => `${sessionKeys.get(from) ?? '?'}|${requestId}`;
  const listeners = new Set<() => void>();
  let mainRequestId: string | undefined;
  let recordedBodyBytes = 0;
  let disposed = false;
  let rescue: ErrorBodyRescue | undefined;

  const recordFor = (from: CDPSession, requestId: string): RequestRecord => {
    const key = keyOf(from, requestId);
    let record = records.get(key);
    if (!record) {
      record = { requestId, session: from, hops: [], requestExtra: [], responseExtra: [], state: 'loading' };
      records.set(key, record);
    }
    return record;
  };
  const changed = () => {
    for (const listener of listeners) listener();
  };

  const onRequest = (from: CDPSession, e: Protocol.Network.RequestWillBeSentEvent) => {
    if (!isHttp(e.request.url)) return;
    const record = recordFor(from, e.requestId);
    const previous = record.hops[record.hops.length - 1];
    if (e.redirectResponse && previous) {
      previous.response = e.redirectResponse;
      previous.redirected = true;
    }
    record.state = 'loading';
    record.hops.push({
      url: e.request.url + (e.request.urlFragment ?? ''),
      method: e.request.method,
      requestHeaders: e.request.headers,
      requestBody: postBody(e.request),
      wallTime: e.wallTime,
      redirected: false,
    });
    // A navigation request's id equals its loader id; only the main frame's count as the main document.
    if (from === session && e.type === 'Document' && e.frameId === options.mainFrameId && e.requestId === e.loaderId) {
      mainRequestId = keyOf(from, e.requestId);
    }
    const key = keyOf(from, e.requestId);
    if (!inflight.has(key)) {
      inflight.set(key, e.frameId);
      changed();
    }
  };
  const onRequestExtra = (from: CDPSession, e: Protocol.Network.RequestWillBeSentExtraInfoEvent) => {
    recordFor(from, e.requestId).requestExtra.push(e);
  };
  const onResponse = (from: CDPSession, e: Protocol.Network.ResponseReceivedEvent) => {
    const hop = records.get(keyOf(from, e.requestId))?.hops.at(-1);
    if (hop) hop.response = e.response;
  };
  const onResponseExtra = (from: CDPSession, e: Protocol.Network.ResponseReceivedExtraInfoEvent) => {
    recordFor(from, e.requestId).responseExtra.push(e);
  };
  const onFinished = (from: CDPSession, e: Protocol.Network.LoadingFinishedEvent) => {
    const key = keyOf(from, e.requestId);
    const record = records.get(key);
    if (record) {
      record.state = 'finished';
      if (record.hops.at(-1)?.response) record.bodyFetch = fetchBody(key, record);
    }
    settleRequest(key);
  };
  const onFailed = (from: CDPSession, e: Protocol.Network.LoadingFailedEvent) => {
    const key = keyOf(from, e.requestId);
    const record = records.get(key);
    if (record) {
      record.state = 'failed';
      record.errorText = e.errorText;
    }
    settleRequest(key);
  };
  const settleRequest = (key: string) => {
    if (inflight.delete(key)) changed();
  };
  // A cross-site frame moves to its own renderer process ('swap'): its document request finishes there, and
  // this session never hears of it again. Nor of the requests of a frame that was removed.
  const onFrameDetached = (from: CDPSession, e: Protocol.Page.FrameDetachedEvent) => {
    const prefix = `${sessionKeys.get(from) ?? '?'}|`;
    let dropped = false;
    for (const [key, frameId] of inflight) {
      if (frameId === e.frameId && key.startsWith(prefix)) {
        dropped = inflight.delete(key) || dropped;
        const record = records.get(key);
        if (record && e.reason === 'swap') record.movedAway = true;
      }
    }
    if (dropped) changed();
  };
  /** A moved frame's document body is asked of the frame's own session (the renderer that finished it). */
  async function fetchMovedBodies(): Promise<void> {
    const frameSessions = [...sessionKeys.keys()].filter((s) => s !== session);
    await Promise.all(
      [...records.entries()].map(async ([key, record]) => {
        if (!record.movedAway || record.body || record.state !== 'loading' || !record.hops.at(-1)?.response) return;
        for (const target of frameSessions) {
          const fetched = await target
            .send('Network.getResponseBody', { requestId: record.requestId })
            .catch(() => undefined);
          if (!fetched) continue;
          record.session = target;
          record.state = 'finished';
          await fetchBody(key, record);
          return;
        }
      }),
    );
  }
  // An out-of-process frame's session ends with the frame: what it had in flight will never end.
  const onSessionGone = (from: CDPSession) => {
    const prefix = `${sessionKeys.get(from) ?? '?'}|`;
    let dropped = false;
    for (const key of inflight.keys()) if (key.startsWith(prefix)) dropped = inflight.delete(key) || dropped;
    if (dropped) changed();
  };

  /** Sub-resource bodies kept so far, in the order they were kept. */
  const keptBodies: RequestRecord[] = [];

  /**
   * Bodies are kept first come, first served within the budget — except the main document: its body is read
   * after its loadingFinished like any other, so on a busy machine sub-resources can be read first; when it
   * fits the budget on its own, the sub-resources kept last give way to it.
   */
  async function fetchBody(key: string, record: RequestRecord): Promise<void> {
    const isMainDocument = key === mainRequestId;
    if (!isMainDocument && recordedBodyBytes >= maxBodyBytes) {
      record.bodyMissing = 'over-budget';
      return;
    }
    try {
      const { body, base64Encoded } = await record.session.send('Network.getResponseBody', {
        requestId: record.requestId,
      });
      const bytes = Buffer.from(body, base64Encoded ? 'base64' : 'utf8');
      if (isMainDocument && bytes.length <= maxBodyBytes) {
        while (recordedBodyBytes + bytes.length > maxBodyBytes) {
          const evicted = keptBodies.pop()!;
          recordedBodyBytes -= evicted.body!.length;
          delete evicted.body;
          evicted.bodyMissing = 'over-budget';
        }
      }
      if (recordedBodyBytes + bytes.length > maxBodyBytes) {
        record.bodyMissing = 'over-budget';
        return;
      }
      recordedBodyBytes += bytes.length;
      record.body = bytes;
      if (!isMainDocument) keptBodies.push(record);
    } catch {
      // Chromium keeps no body for some responses (204, aborted streams, evicted from its buffer).
      record.bodyMissing = 'unavailable';
    }
  }

  /** Kept within the same budget as every other body. */
  const onRescuedBody = (requestId: string, body: Buffer) => {
    if (disposed || recordedBodyBytes + body.length > maxBodyBytes) return;
    recordedBodyBytes += body.length;
    recordFor(session, requestId).rescuedBody = body;
  };

  const handlerSet = {
    'Network.requestWillBeSent': onRequest,
    'Network.requestWillBeSentExtraInfo': onRequestExtra,
    'Network.responseReceived': onResponse,
    'Network.responseReceivedExtraInfo': onResponseExtra,
    'Network.loadingFinished': onFinished,
    'Network.loadingFailed': onFailed,
    'Page.frameDetached': onFrameDetached,
  } as const;
  /** Per session, its listeners (bound to it), to remove them again. */
  const subscriptions = new Map<CDPSession, Array<[string, (event: never) => void]>>();
  const subscribe = (target: CDPSession) => {
    const bound: Array<[string, (event: never) => void]> = Object.entries(handlerSet).map(([event, handler]) => [
      event,
      (e: never) => (handler as (from: CDPSession, e: never) => void)(target, e),
    ]);
    for (const [event, listener] of bound) target.on(event as 'Network.requestWillBeSent', listener as never);
    subscriptions.set(target, bound);
  };
  const enable = async (target: CDPSession) => {
    // Chromium's own body buffer must hold at least what we intend to keep.
    // Sent together: a session handles its messages in order, and each round trip is on a capture's critical path.
    await Promise.all([
      target.send('Network.enable', {
        maxTotalBufferSize: Math.max(maxBodyBytes * 2, 10 * 1024 * 1024),
        maxResourceBufferSize: Math.max(maxBodyBytes, 5 * 1024 * 1024),
        maxPostDataSize: 1024 * 1024,
      }),
      target.send('Page.enable'), // for Page.frameDetached on this session
    ]);
  };

  return {
    async start() {
      subscribe(session);
      [, rescue] = await Promise.all([enable(session), rescueErrorBodies(session, onRescuedBody)]);
    },
    async addSession(frameSession) {
      if (disposed || sessionKeys.has(frameSession)) return;
      sessionKeys.set(frameSession, String(sessionKeys.size));
      subscribe(frameSession);
      await enable(frameSession).catch(() => {}); // a frame gone meanwhile has nothing more to record
    },
    sessionGone(frameSession) {
      if (frameSession !== session) onSessionGone(frameSession);
    },
    inflight: () => inflight.size,
    onInflightChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    mainDocument() {
      const record = mainRequestId ? records.get(mainRequestId) : undefined;
      const hop = record?.hops.at(-1);
      if (!record || !hop?.response) return undefined;
      const extra = responseExtraFor(record, record.hops.length - 1);
      const rawPairs =
        parseHeadersText(extra?.headersText) ?? (extra ? pairsFromHeaderObject(extra.headers) : undefined);
      return {
        url: hop.url,
        status: extra?.statusCode ?? hop.response.status,
        headers: rawPairs ?? pairsFromHeaderObject(hop.response.headers),
        rawHeaders: rawPairs !== undefined,
      };
    },
    mainDocumentFailure() {
      const record = mainRequestId ? records.get(mainRequestId) : undefined;
      if (record?.state !== 'failed') return undefined;
      return { url: record.hops.at(-1)?.url ?? '', errorText: record.errorText ?? '' };
    },
    mainDocumentUrls() {
      const record = mainRequestId ? records.get(mainRequestId) : undefined;
      return record ? record.hops.map((h) => h.url) : [];
    },
    requestedUrls() {
      const urls = new Set<string>();
      for (const record of records.values()) for (const hop of record.hops) urls.add(hop.url);
      return urls;
    },
    completeUrls() {
      const urls = new Set<string>();
      for (const record of records.values()) {
        const hop = record.hops.at(-1);
        if (!hop?.response || record.state === 'failed') continue;
        if (hop.response.status !== 206 || wholeRange(hop.response.headers)) urls.add(hop.url);
      }
      return urls;
    },
    async finish(waitForBodiesMs) {
      const pending = [...records.values()].flatMap((r) => (r.bodyFetch ? [r.bodyFetch] : []));
      pending.push(fetchMovedBodies());
      await withTimeout(Promise.all(pending), waitForBodiesMs, () => new Error('body reads timed out')).catch(() => {});
      return assemble([...records.values()]);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      for (const [target, bound] of subscriptions) {
        for (const [event, listener] of bound) target.off(event as 'Network.requestWillBeSent', listener as never);
      }
      subscriptions.clear();
      listeners.clear();
      void rescue?.stop();
    },
  };
}

function assemble(records: RequestRecord[]): RecordedNetwork {
  const exchanges: NetworkExchange[] = [];
  let unfinished = 0;
  let overBudget = 0;
  let unavailable = 0;
  const noResponse: string[] = [];
  for (const record of records) {
    const last = record.hops.at(-1);
    // Failed before any response (aborted, refused, blocked): there is nothing to archive, so say so.
    if (last && !last.response && record.state !== 'loading')
      noResponse.push(`${last.url} (${record.errorText || 'no response'})`);
    for (const [index, hop] of record.hops.entries()) {
      if (!hop.response) continue;
      let body: Buffer;
      if (hop.redirected) {
        body = Buffer.alloc(0); // Chromium does not keep redirect bodies
      } else if (record.body) {
        body = record.body;
      } else if (record.rescuedBody) {
        body = record.rescuedBody;
      } else if (record.state === 'finished' && record.bodyMissing === 'unavailable' && emptyBodyExpected(hop)) {
        body = Buffer.alloc(0);
      } else {
        // Every response the browser got has a record (whatever its status); one whose body is not here is
        // written with an empty body and WARC-Truncated saying why, never passed off as complete.
        let truncated: NonNullable<NetworkExchange['truncated']>;
        if (record.state === 'loading') {
          unfinished++;
          truncated = 'time';
        } else if (record.bodyMissing === 'over-budget') {
          overBudget++;
          truncated = 'length';
        } else {
          unavailable++;
          truncated = record.state === 'failed' ? 'disconnect' : 'unspecified';
        }
        exchanges.push({ ...toExchange(record, index, hop, Buffer.alloc(0)), truncated });
        continue;
      }
      exchanges.push(toExchange(record, index, hop, body));
    }
  }
  exchanges.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const notes: string[] = [];
  if (overBudget > 0)
    notes.push(
      `${overBudget} response(s) recorded without their body (WARC-Truncated: length): recorded body budget exhausted`,
    );
  if (unfinished > 0)
    notes.push(
      `${unfinished} response(s) recorded without their body (WARC-Truncated: time): still loading at capture time`,
    );
  if (unavailable > 0)
    notes.push(`${unavailable} response(s) recorded without their body: body not available from the browser`);
  if (noResponse.length > 0) {
    const shown = noResponse.slice(0, 5).join(', ');
    notes.push(
      `${noResponse.length} request(s) got no response to record: ${shown}${noResponse.length > 5 ? ', …' : ''}`,
    );
  }
  return { exchanges, notes };
}

/** A 206 whose Content-Range is the whole resource ("bytes 0-999/1000"). */
function wholeRange(headers: Protocol.Network.Headers): boolean {
  const range = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-range')?.[1] ?? '';
  const m = /^bytes 0-(\d+)\/(\d+)$/.exec(range.trim());
  return m !== null && Number(m[1]) + 1 === Number(m[2]);
}

function emptyBodyExpected(hop: Hop): boolean {
  const status = hop.response?.status ?? 0;
  return hop.method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
}

function toExchange(record: RequestRecord, index: number, hop: Hop, body: Buffer): NetworkExchange {
  const response = hop.response!;
  const responseExtra = responseExtraFor(record, index);
  const requestExtra = record.requestExtra.length === record.hops.length ? record.requestExtra[index] : undefined;
  const responseHeaders =
    parseHeadersText(responseExtra?.headersText) ??
    pairsFromHeaderObject(responseExtra ? responseExtra.headers : response.headers);
  const status = responseExtra?.statusCode ?? response.status;
  const exchange: NetworkExchange = {
    url: hop.url,
    method: hop.method,
    requestHeaders: joinHeaderObject(requestExtra?.headers ?? response.requestHeaders ?? hop.requestHeaders),
    status,
    statusText: statusTextOf(status, response.statusText),
    httpVersion: httpVersionOf(response.protocol, responseExtra?.headersText),
    responseHeaders,
    body,
    startedAt: new Date(hop.wallTime * 1000).toISOString(),
  };
  if (hop.requestBody) exchange.requestBody = hop.requestBody;
  if (response.remoteIPAddress) exchange.remoteAddress = response.remoteIPAddress;
  return exchange;
}

/**
 * The raw-headers event for the hop at `index`. Redirect hops and the final response each get one
 * ResponseReceivedExtraInfo, in order, but a cached hop gets none, so pair by order among those with the
 * same status code.
 */
function responseExtraFor(
  record: RequestRecord,
  index: number,
): Protocol.Network.ResponseReceivedExtraInfoEvent | undefined {
  if (record.responseExtra.length === record.hops.length) return record.responseExtra[index];
  const status = record.hops[index]?.response?.status;
  const sameStatusBefore = record.hops.slice(0, index).filter((h) => h.response?.status === status).length;
  return record.responseExtra.filter((e) => e.statusCode === status)[sameStatusBefore];
}

function postBody(request: Protocol.Network.Request): Buffer | undefined {
  if (request.postDataEntries?.length) {
    return Buffer.concat(request.postDataEntries.map((e) => Buffer.from(e.bytes ?? '', 'base64')));
  }
  return request.postData !== undefined ? Buffer.from(request.postData, 'utf8') : undefined;
}

function isHttp(url: string): boolean {
  return url.startsWith('http://') || url.startsWith('https://');
}
