import { CaptureError, isCaptureError } from '../capture-error.js';
import type { Step } from '../capture-steps.js';
import type { MainDocument } from '../network-recorder.js';
import { loadDocumentBytes, viewerWrappedPdf } from '../pdf-document-body.js';
import type { NetworkExchange } from '../../domain/network-exchange.js';
import type { CaptureGiven } from './capture-given.js';
import type { RenderedDocument } from './rendered-document.js';

const BODY_WAIT_MS = 5000;

/** What the network recorder kept, read once the page is captured. */
export interface NetworkRecord {
  collected?: {
    finalMain: MainDocument | undefined;
    mainDocumentUrls: string[];
    browserVersion: string;
    exchanges: NetworkExchange[];
  };
}

export const networkRecord = (): NetworkRecord => ({});

/** Every network exchange, with the bodies still loading given BODY_WAIT_MS; a PDF the viewer wrapped is loaded as itself. */
export const networkStep: Step<{
  given: CaptureGiven;
  document: Readonly<RenderedDocument>;
  network: NetworkRecord;
}> = {
  name: 'network',
  async run({ given, document, network }) {
    const { recorder, bounds, signal } = given;
    const finalMain = recorder.mainDocument();
    const mainDocumentUrls = recorder.mainDocumentUrls();
    const browserVersion = await bounds.page(given.page.browser().version());
    const finished = await recorder.finish(BODY_WAIT_MS);
    given.notes.push(...finished.notes);
    const wrappedPdf = viewerWrappedPdf(finished.exchanges, document.finalUrl);
    if (wrappedPdf) {
      await bounds.page(loadDocumentBytes(given.session, given.mainFrameId, wrappedPdf.url)).then(
        (bytes) => void (wrappedPdf.body = bytes),
        (error: unknown) => {
          if (signal.aborted || isCaptureError(error)) throw error;
          // Never archive the viewer's wrapper as if it were the document.
          throw new CaptureError('capture_failed', 'The PDF document could not be archived', true, { cause: error });
        },
      );
    }
    network.collected = { finalMain, mainDocumentUrls, browserVersion, exchanges: finished.exchanges };
  },
};
