import type { CDPSession, Protocol } from 'puppeteer-core';

/**
 * A script evaluated in every new document of a page's target that reports back through a CDP binding, per
 * execution context: the mechanism under the timer watch (pending-timers.ts, in the page's own world) and
 * autoconsent's preloaded content script (consent-handler.ts, in an isolated world). Install before navigating.
 */
export interface DocumentReports {
  /** Stops listening, and removes the script and the binding from documents loaded from now on. */
  dispose(): Promise<void>;
}

export interface DocumentReportOptions {
  bindingName: string;
  source: string;
  /** The isolated world the script and binding live in; the page's main world when absent. */
  worldName?: string;
  /** A call of the binding in one execution context. */
  onReport(contextId: number, payload: string): void;
  /** An execution context is gone; null: all of the target's are (a navigation cleared them). */
  onContextGone(contextId: number | null): void;
}

export async function reportFromEveryDocument(
  session: CDPSession,
  options: DocumentReportOptions,
): Promise<DocumentReports> {
  const { bindingName, worldName } = options;
  const onBinding = (event: Protocol.Runtime.BindingCalledEvent) => {
    if (event.name === bindingName) options.onReport(event.executionContextId, event.payload);
  };
  const onDestroyed = (event: Protocol.Runtime.ExecutionContextDestroyedEvent) =>
    options.onContextGone(event.executionContextId);
  const onCleared = () => options.onContextGone(null);
  session.on('Runtime.bindingCalled', onBinding);
  session.on('Runtime.executionContextDestroyed', onDestroyed);
  session.on('Runtime.executionContextsCleared', onCleared);
  // Sent together (the session keeps their order): one after another, three round trips delay every capture.
  const [, , { identifier }] = await Promise.all([
    session.send('Runtime.enable'),
    session.send(
      'Runtime.addBinding',
      worldName ? { name: bindingName, executionContextName: worldName } : { name: bindingName },
    ),
    session.send(
      'Page.addScriptToEvaluateOnNewDocument',
      worldName ? { source: options.source, worldName } : { source: options.source },
    ),
  ]);
  let disposed = false;
  return {
    async dispose() {
      if (disposed) return;
      disposed = true;
      session.off('Runtime.bindingCalled', onBinding);
      session.off('Runtime.executionContextDestroyed', onDestroyed);
      session.off('Runtime.executionContextsCleared', onCleared);
      await Promise.all([
        session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier }).catch(() => {}),
        session.send('Runtime.removeBinding', { name: bindingName }).catch(() => {}),
      ]);
    },
  };
}
