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
  return new CdpNetworkRecorder(session, options.mainFrameId, options.maxBodyBytes ?? DEFAULT_MAX_RECORDED_BODY_BYTES);
}

type CdpHandler = (from: CDPSession, event: never) => void;

/**
 * The recorder's state and one named method per protocol event (browsertrix-crawler's Recorder): every event
 * of the page's session and of its out-of-process frames' sessions lands in `records`, keyed by session and
 * request id.
 */
class CdpNetworkRecorder implements NetworkRecorder {
  private readonly records = new Map<string, RequestRecord>();
  /** Requests in flight (by record key), with the frame that made each. */
  private readonly inflightRequests = new Map<string, string | undefined>();
  private readonly sessionKeys: Map<CDPSession, string>;
  private readonly listeners = new Set<() => void>();
  /** Per session, its listeners (bound to it), to remove them again. */
  private readonly subscriptions = new Map<CDPSession, Array<[string, (event: never) => void]>>();
  /** Sub-resource bodies kept so far, in the order they were kept. */
  private readonly keptBodies: RequestRecord[] = [];
  private mainRequestId: string | undefined;
  private recordedBodyBytes = 0;
  private disposed = false;
  private rescue: ErrorBodyRescue | undefined;

  private readonly handlers: Record<string, CdpHandler> = {
    'Network.requestWillBeSent': (from, e) => this.onRequest(from, e),
    'Network.requestWillBeSentExtraInfo': (from, e) => this.onRequestExtra(from, e),
    'Network.responseReceived': (from, e) => this.onResponse(from, e),
    'Network.responseReceivedExtraInfo': (from, e) => this.onResponseExtra(from, e),
    'Network.loadingFinished': (from, e) => this.onFinished(from, e),
    'Network.loadingFailed': (from, e) => this.onFailed(from, e),
    'Page.frameDetached': (from, e) => this.onFrameDetached(from, e),
  };

  constructor(
    private readonly session: CDPSession,
    private readonly mainFrameId: string,
    private readonly maxBodyBytes: number,
  ) {
    this.sessionKeys = new Map([[session, '']]);
  }

  async start(): Promise<void> {
    this.subscribe(this.session);
    [, this.rescue] = await Promise.all([
      this.enable(this.session),
      rescueErrorBodies(this.session, (requestId, body) => this.onRescuedBody(requestId, body)),
    ]);
  }

  async addSession(frameSession: CDPSession): Promise<void> {
    if (this.disposed || this.sessionKeys.has(frameSession)) return;
    this.sessionKeys.set(frameSession, String(this.sessionKeys.size));
    this.subscribe(frameSession);
    await this.enable(frameSession).catch(() => {}); // a frame gone meanwhile has nothing more to record
  }

  sessionGone(frameSession: CDPSession): void {
    if (frameSession !== this.session) this.onSessionGone(frameSession);
  }

  inflight(): number {
    return this.inflightRequests.size;
  }

  onInflightChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  mainDocument(): MainDocument | undefined {
    const record = this.mainRecord();
    const hop = record?.hops.at(-1);
    if (!record || !hop?.response) return undefined;
    const extra = responseExtraFor(record, record.hops.length - 1);
    const rawPairs = parseHeadersText(extra?.headersText) ?? (extra ? pairsFromHeaderObject(extra.headers) : undefined);
    return {
      url: hop.url,
      status: extra?.statusCode ?? hop.response.status,
      headers: rawPairs ?? pairsFromHeaderObject(hop.response.headers),
      rawHeaders: rawPairs !== undefined,
    };
  }

  mainDocumentFailure(): MainDocumentFailure | undefined {
    const record = this.mainRecord();
    if (record?.state !== 'failed') return undefined;
    return { url: record.hops.at(-1)?.url ?? '', errorText: record.errorText ?? '' };
  }

  mainDocumentUrls(): string[] {
    const record = this.mainRecord();
    return record ? record.hops.map((h) => h.url) : [];
  }

  requestedUrls(): Set<string> {
    const urls = new Set<string>();
    for (const record of this.records.values()) for (const hop of record.hops) urls.add(hop.url);
    return urls;
  }

  completeUrls(): Set<string> {
    const urls = new Set<string>();
    for (const record of this.records.values()) {
      const hop = record.hops.at(-1);
      if (!hop?.response || record.state === 'failed') continue;
      if (hop.response.status !== 206 || wholeRange(hop.response.headers)) urls.add(hop.url);
    }
    return urls;
  }

  async finish(waitForBodiesMs: number): Promise<RecordedNetwork> {
    const pending = [...this.records.values()].flatMap((r) => (r.bodyFetch ? [r.bodyFetch] : []));
    pending.push(this.fetchMovedBodies());
    await withTimeout(Promise.all(pending), waitForBodiesMs, () => new Error('body reads timed out')).catch(() => {});
    return assemble([...this.records.values()]);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const [target, bound] of this.subscriptions) {
      for (const [event, listener] of bound) target.off(event as 'Network.requestWillBeSent', listener as never);
    }
    this.subscriptions.clear();
    this.listeners.clear();
    void this.rescue?.stop();
  }

  // ---- one method per protocol event ----

  private onRequest(from: CDPSession, e: Protocol.Network.RequestWillBeSentEvent): void {
    if (!isHttp(e.request.url)) return;
    const record = this.recordFor(from, e.requestId);
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
    const key = this.keyOf(from, e.requestId);
    // A navigation request's id equals its loader id; only the main frame's count as the main document.
    if (
      from === this.session &&
      e.type === 'Document' &&
      e.frameId === this.mainFrameId &&
      e.requestId === e.loaderId
    ) {
      this.mainRequestId = key;
    }
    if (!this.inflightRequests.has(key)) {
      this.inflightRequests.set(key, e.frameId);
      this.changed();
    }
  }

  private onRequestExtra(from: CDPSession, e: Protocol.Network.RequestWillBeSentExtraInfoEvent): void {
    this.recordFor(from, e.requestId).requestExtra.push(e);
  }

  private onResponse(from: CDPSession, e: Protocol.Network.ResponseReceivedEvent): void {
    const hop = this.records.get(this.keyOf(from, e.requestId))?.hops.at(-1);
    if (hop) hop.response = e.response;
  }

  private onResponseExtra(from: CDPSession, e: Protocol.Network.ResponseReceivedExtraInfoEvent): void {
    this.recordFor(from, e.requestId).responseExtra.push(e);
  }

  private onFinished(from: CDPSession, e: Protocol.Network.LoadingFinishedEvent): void {
    const key = this.keyOf(from, e.requestId);
    const record = this.records.get(key);
    if (record) {
      record.state = 'finished';
      if (record.hops.at(-1)?.response) record.bodyFetch = this.fetchBody(key, record);
    }
    this.settleRequest(key);
  }

  private onFailed(from: CDPSession, e: Protocol.Network.LoadingFailedEvent): void {
    const key = this.keyOf(from, e.requestId);
    const record = this.records.get(key);
    if (record) {
      record.state = 'failed';
      record.errorText = e.errorText;
    }
    this.settleRequest(key);
  }

  /**
   * A cross-site frame moves to its own renderer process ('swap'): its document request finishes there, and
   * this session never hears of it again. Nor of the requests of a frame that was removed.
   */
  private onFrameDetached(from: CDPSession, e: Protocol.Page.FrameDetachedEvent): void {
    const prefix = `${this.sessionKeys.get(from) ?? '?'}|`;
    let dropped = false;
    for (const [key, frameId] of this.inflightRequests) {
      if (frameId === e.frameId && key.startsWith(prefix)) {
        dropped = this.inflightRequests.delete(key) || dropped;
        const record = this.records.get(key);
        if (record && e.reason === 'swap') record.movedAway = true;
      }
    }
    if (dropped) this.changed();
  }

  /** An out-of-process frame's session ends with the frame: what it had in flight will never end. */
  private onSessionGone(from: CDPSession): void {
    const prefix = `${this.sessionKeys.get(from) ?? '?'}|`;
    let dropped = false;
    for (const key of this.inflightRequests.keys())
      if (key.startsWith(prefix)) dropped = this.inflightRequests.delete(key) || dropped;
    if (dropped) this.changed();
  }

  /** A body error-body-rescue.ts kept; within the same budget as every other body. */
  private onRescuedBody(requestId: string, body: Buffer): void {
    if (this.disposed || this.recordedBodyBytes + body.length > this.maxBodyBytes) return;
    this.recordedBodyBytes += body.length;
    this.recordFor(this.session, requestId).rescuedBody = body;
  }

  // ---- bodies ----

  /**
   * Bodies are kept first come, first served within the budget — except the main document: its body is read
   * after its loadingFinished like any other, so on a busy machine sub-resources can be read first; when it
   * fits the budget on its own, the sub-resources kept last give way to it.
   */
  private async fetchBody(key: string, record: RequestRecord): Promise<void> {
    const isMainDocument = key === this.mainRequestId;
    if (!isMainDocument && this.recordedBodyBytes >= this.maxBodyBytes) {
      record.bodyMissing = 'over-budget';
      return;
    }
    try {
      const { body, base64Encoded } = await record.session.send('Network.getResponseBody', {
        requestId: record.requestId,
      });
      const bytes = Buffer.from(body, base64Encoded ? 'base64' : 'utf8');
      if (isMainDocument && bytes.length <= this.maxBodyBytes) {
        while (this.recordedBodyBytes + bytes.length > this.maxBodyBytes) {
          const evicted = this.keptBodies.pop()!;
          this.recordedBodyBytes -= evicted.body!.length;
          delete evicted.body;
          evicted.bodyMissing = 'over-budget';
        }
      }
      if (this.recordedBodyBytes + bytes.length > this.maxBodyBytes) {
        record.bodyMissing = 'over-budget';
        return;
      }
      this.recordedBodyBytes += bytes.length;
      record.body = bytes;
      if (!isMainDocument) this.keptBodies.push(record);
    } catch {
      // Chromium keeps no body for some responses (204, aborted streams, evicted from its buffer).
      record.bodyMissing = 'unavailable';
    }
  }

  /** A moved frame's document body is asked of the frame's own session (the renderer that finished it). */
  private async fetchMovedBodies(): Promise<void> {
    const frameSessions = [...this.sessionKeys.keys()].filter((s) => s !== this.session);
    await Promise.all(
      [...this.records.entries()].map(async ([key, record]) => {
        if (!record.movedAway || record.body || record.state !== 'loading' || !record.hops.at(-1)?.response) return;
        for (const target of frameSessions) {
          const fetched = await target
            .send('Network.getResponseBody', { requestId: record.requestId })
            .catch(() => undefined);
          if (!fetched) continue;
          record.session = target;
          record.state = 'finished';
          await this.fetchBody(key, record);
          return;
        }
      }),
    );
  }

  // ---- bookkeeping ----

  private keyOf(from: CDPSession, requestId: string): string {
    return `${this.sessionKeys.get(from) ?? '?'}|${requestId}`;
  }

  private recordFor(from: CDPSession, requestId: string): RequestRecord {
    const key = this.keyOf(from, requestId);
    let record = this.records.get(key);
    if (!record) {
      record = { requestId, session: from, hops: [], requestExtra: [], responseExtra: [], state: 'loading' };
      this.records.set(key, record);
    }
    return record;
  }

  private mainRecord(): RequestRecord | undefined {
    return this.mainRequestId ? this.records.get(this.mainRequestId) : undefined;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private settleRequest(key: string): void {
    if (this.inflightRequests.delete(key)) this.changed();
  }

  private subscribe(target: CDPSession): void {
    const bound: Array<[string, (event: never) => void]> = Object.entries(this.handlers).map(([event, handler]) => [
      event,
      (e: never) => handler(target, e),
    ]);
    for (const [event, listener] of bound) target.on(event as 'Network.requestWillBeSent', listener as never);
    this.subscriptions.set(target, bound);
  }

  private async enable(target: CDPSession): Promise<void> {
    // Chromium's own body buffer must hold at least what we intend to keep.
    // Sent together: a session handles its messages in order, and each round trip is on a capture's critical path.
    await Promise.all([
      target.send('Network.enable', {
        maxTotalBufferSize: Math.max(this.maxBodyBytes * 2, 10 * 1024 * 1024),
        maxResourceBufferSize: Math.max(this.maxBodyBytes, 5 * 1024 * 1024),
        maxPostDataSize: 1024 * 1024,
      }),
      target.send('Page.enable'), // for Page.frameDetached on this session
    ]);
  }
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
