import type { Page } from 'puppeteer-core';
import { CaptureError, isCaptureError } from '../capture-error.js';
import type { Step } from '../capture-steps.js';
import { challengeMessage, detectChallenge } from '../challenge-page.js';
import { renderedHtml } from '../rendered-html.js';
import type { CaptureGiven, StepBounds } from './capture-given.js';

/** The document as rendered after scripts ran. */
export interface RenderedDocument {
  html: string;
  /** The main document's HTML without its frames', when rendered-html.ts could read it. */
  mainHtml?: string;
  title: string;
  finalUrl: string;
}

export const renderedDocument = (): RenderedDocument => ({ html: '', title: '', finalUrl: '' });

type Reading = { given: CaptureGiven; document: RenderedDocument };

/** Open shadow roots and frame documents included (rendered-html.ts); page.content() if that fails. */
export const htmlStep: Step<Reading> = {
  name: 'html',
  async run({ given, document }) {
    const { page, bounds, signal } = given;
    const rendered = await bounds.page(renderedHtml(page)).catch((error: unknown) => {
      if (signal.aborted) throw error;
      return undefined;
    });
    document.html = rendered?.html ?? (await readHtml(page, bounds, signal));
    if (rendered) given.notes.push(...rendered.notes);
    // The main document only: a captcha or Turnstile widget in a frame of an ordinary page is not a challenge page.
    document.mainHtml = rendered?.mainHtml;
    document.title = await bounds.page(page.title()).catch(() => '');
    document.finalUrl = page.url();
  },
};

/** A bot-protection answer is reported, not archived as the page (challenge-page.ts). */
export const challengeStep: Step<{ given: CaptureGiven; document: Readonly<RenderedDocument> }> = {
  name: 'challenge',
  run({ given, document }) {
    const answered = given.recorder.mainDocument();
    const protection = detectChallenge({
      status: answered?.status ?? 0,
      headers: answered?.headers ?? [],
      title: document.title,
      html: document.mainHtml ?? document.html,
    });
    if (protection) throw new CaptureError('challenge', challengeMessage(protection, answered?.status ?? 0), true);
  },
};

/** page.content(), tried once more if the page replaced its document (script redirect) meanwhile. */
async function readHtml(page: Page, bounds: StepBounds, signal: AbortSignal): Promise<string> {
  try {
    return await bounds.page(page.content());
  } catch (error) {
    if (signal.aborted || isCaptureError(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 250));
    return bounds.page(page.content());
  }
}
