import type { ArtifactRefs } from './events.js';

/**
 * The one table of a capture's artifacts: where each is stored, under which key of the capture's
 * `artifacts` refs, the media type it is stored and served with, its download name (spec 2.4) and its
 * name inside the WARC (the `urn:capture-ledger:` resource records of the bundle).
 */
export interface ArtifactKind {
  /** Key in the event's and the read model's `artifacts` refs. */
  refKey: keyof ArtifactRefs;
  /** Media type of the stored bytes (and of the WARC resource record). */
  mediaType: string;
  /**
   * Served with this type and `<captureId>-<downloadName>`; null: not downloadable. `beside`: an extension served
   * at GET /v1/captures/{id}/{name}, since spec 4.8 enumerates the names under /artifacts/ (DESIGN decision 16).
   */
  download: { type: string; name: string; beside?: true } | null;
  /** Name of its resource record in the WARC; null: not recorded as a resource. */
  warcName: string | null;
}

export const ARTIFACTS = {
  screenshot: {
    refKey: 'screenshot',
    mediaType: 'image/png',
    download: { type: 'image/png', name: 'screenshot.png' },
    warcName: 'screenshot.png',
  },
  'screenshot-before': {
    refKey: 'screenshotBefore',
    mediaType: 'image/png',
    download: { type: 'image/png', name: 'screenshot-before.png' },
    warcName: 'screenshot-before.png',
  },
  // Served as text so a browser never renders the captured page on the service's origin.
  html: {
    refKey: 'html',
    mediaType: 'text/html; charset=utf-8',
    download: { type: 'text/plain; charset=utf-8', name: 'page.html.txt' },
    warcName: 'page.html',
  },
  headers: {
    refKey: 'headers',
    mediaType: 'application/json',
    download: { type: 'application/json; charset=utf-8', name: 'headers.json' },
    warcName: 'headers.json',
  },
  pdf: {
    refKey: 'pdf',
    mediaType: 'application/pdf',
    download: { type: 'application/pdf', name: 'page.pdf', beside: true },
    warcName: null,
  },
  // The session recording: an extension beside spec 4.8's names, like the pdf.
  session: {
    refKey: 'session',
    mediaType: 'video/webm',
    download: { type: 'video/webm', name: 'session.webm', beside: true },
    warcName: null,
  },
  provenance: { refKey: 'provenance', mediaType: 'application/json', download: null, warcName: null },
  wacz: {
    refKey: 'wacz',
    mediaType: 'application/wacz+zip',
    download: { type: 'application/wacz+zip', name: 'capture.wacz' },
    warcName: null,
  },
} as const satisfies Record<string, ArtifactKind>;

export type ArtifactName = keyof typeof ARTIFACTS;

const downloadOf = (name: ArtifactName): ArtifactKind['download'] => ARTIFACTS[name].download;

/** The artifacts GET /v1/captures/{id}/artifacts/{name} serves — exactly spec 4.8's names —, in the order an error message lists them. */
export const DOWNLOADABLE_ARTIFACTS = (Object.keys(ARTIFACTS) as ArtifactName[]).filter(
  (name) => downloadOf(name) !== null && !downloadOf(name)!.beside,
);

/** The extensions served beside them, each at GET /v1/captures/{id}/{name}. */
export const ARTIFACTS_BESIDE = (Object.keys(ARTIFACTS) as ArtifactName[]).filter(
  (name) => downloadOf(name)?.beside === true,
);

export const isArtifactName = (name: string): name is ArtifactName => Object.hasOwn(ARTIFACTS, name);

/**
 * Object-store name of one artifact of one attempt at a capture: every attempt writes under names of its own
 * (artifacts are write-once, src/storage/artifact-store.ts), and the completion event names the objects that
 * hold the evidence. Objects written before attempts were named are `<captureId>/<artifact>`.
 */
export const artifactObjectName = (captureId: string, attemptKey: string, artifact: ArtifactName): string =>
  `${captureId}/${attemptKey}/${artifact}`;
