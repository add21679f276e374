/**
 * Capture options (docs/capturing.md, Capture options): the optional `options` object of POST /v1/captures, of each batch item
 * and of a schedule. Absent means exactly the behaviour the spec describes (1280×800 at scale 1, full page,
 * no selector wait, no delay, no PDF, no session recording). Pure: validated here, resolved to `CaptureSettings` with defaults,
 * recorded in the record's captureSettings and in the signed bundle.
 */
import { compile } from 'css-select';
import { isId } from './ids.js';
import { patternHazard, selectorHazard } from './pattern-bounds.js';

export interface CaptureOptions {
  viewport?: { width: number; height: number };
  deviceScaleFactor?: number;
  fullPage?: boolean;
  waitForSelector?: string;
  delayMs?: number;
  pdf?: boolean;
  /** Behaviors run after load: by name, in any order; [] runs none. */
  behaviors?: BehaviorName[];
  /** Seconds the behaviors may take together. */
  behaviorTimeout?: number;
  /** Keep a video of what the browser showed from navigation to the screenshot. */
  recordSession?: boolean;
  /** A configured vantage point's id; the admission checks it exists. Not a rendering setting. */
  vantage?: string;
  /** Capture from this many distinct vantage points and compare what they saw; admission only. */
  corroborate?: 2 | 3;
  /**
   * Extension: a browser profile's id (docs/profiles.md) loaded into the capture's fresh context before
   * navigation; the admission checks it is the tenant's. Not a rendering setting.
   */
  profile?: string;
  /**
   * Extension: CSS selectors whose elements' boxes on the screenshot are measured right before it is
   * taken and kept in captureSettings.elementBoxes, so a diff can leave those elements out of the pixel comparison.
   */
  recordBoxes?: string[];
  /**
   * Extension: regular expressions (JavaScript sources, flags `gu`) whose matches in the page's visible
   * text have their boxes on the screenshot measured like recordBoxes' elements (captureSettings.elementBoxes.textBoxes).
   */
  recordTextBoxes?: string[];
}

/**
 * The behaviors a capture can run after load (src/capture/behaviors/): what a person does on the page so that
 * its content loads — scroll, open "show more", play the media — and fetching what replay at another size needs.
 */
export const BEHAVIOR_NAMES = ['auto-scroll', 'auto-fetch', 'auto-play', 'expand', 'feed-timeline'] as const;
export type BehaviorName = (typeof BEHAVIOR_NAMES)[number];
/** What a capture runs when the tenant does not say; site-specific ones run where they match. */
export const DEFAULT_BEHAVIORS: readonly BehaviorName[] = [
  'auto-scroll',
  'auto-fetch',
  'auto-play',
  'expand',
  'feed-timeline',
];

/** What a capture actually used: every option with its default filled in. */
export interface CaptureSettings {
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  fullPage: boolean;
  waitForSelector: string | null;
  delayMs: number;
  pdf: boolean;
  behaviors: BehaviorName[];
  behaviorTimeoutMs: number;
  recordSession: boolean;
  recordBoxes: string[];
  recordTextBoxes: string[];
}

export const CAPTURE_OPTION_LIMITS = {
  width: { min: 320, max: 3840 },
  height: { min: 240, max: 2160 },
  deviceScaleFactor: { min: 1, max: 3 },
  delayMs: { min: 0, max: 10_000 },
  waitForSelectorLength: 1024,
  /** Seconds (about 20 s by default, at most 90 s). */
  behaviorTimeout: { min: 1, max: 90, default: 20 },
  vantageIdLength: 40,
  /** As many selectors as a diff's ignoreSelectors, as long (src/watch/diff-options.ts). */
  recordBoxes: { max: 20, length: 200 },
  /** As many patterns as a diff's ignoreText, as long. */
  recordTextBoxes: { max: 20, length: 200 },
} as const;

export const DEFAULT_CAPTURE_SETTINGS: CaptureSettings = {
  viewport: { width: 1280, height: 800 },
  deviceScaleFactor: 1,
  fullPage: true,
  waitForSelector: null,
  delayMs: 0,
  pdf: false,
  behaviors: [...DEFAULT_BEHAVIORS],
  behaviorTimeoutMs: CAPTURE_OPTION_LIMITS.behaviorTimeout.default * 1000,
  recordSession: false,
  recordBoxes: [],
  recordTextBoxes: [],
};

export type OptionsCheck = { ok: true; options: CaptureOptions | undefined } | { ok: false; detail: string };

const KNOWN = new Set([
  'viewport',
  'deviceScaleFactor',
  'fullPage',
  'waitForSelector',
  'delayMs',
  'pdf',
  'behaviors',
  'behaviorTimeout',
  'recordSession',
  'vantage',
  'corroborate',
  'profile',
  'recordBoxes',
  'recordTextBoxes',
]);

/**
 * Checks a client's `options` value; `field` is how the error names it (`options`, `urls[2].options`).
 * Unknown keys are refused, so a misspelt option never silently means the default.
 */
export function parseCaptureOptions(raw: unknown, field = 'options'): OptionsCheck {
  if (raw === undefined || raw === null) return { ok: true, options: undefined };
  if (typeof raw !== 'object' || Array.isArray(raw)) return fail(`${field} must be an object.`);
  const input = raw as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0)
    return fail(`${field}.${unknown[0]} is not a capture option (known: ${[...KNOWN].join(', ')}).`);
  const out: CaptureOptions = {};
  const L = CAPTURE_OPTION_LIMITS;

  if (input['viewport'] !== undefined) {
    const v = input['viewport'];
    if (!v || typeof v !== 'object' || Array.isArray(v))
      return fail(`${field}.viewport must be an object {width, height}.`);
    const { width, height, ...rest } = v as Record<string, unknown>;
    if (Object.keys(rest).length > 0)
      return fail(`${field}.viewport.${Object.keys(rest)[0]} is not allowed; give width and height.`);
    if (!isIntIn(width, L.width.min, L.width.max))
      return fail(`${field}.viewport.width must be an integer from ${L.width.min} to ${L.width.max} (CSS pixels).`);
    if (!isIntIn(height, L.height.min, L.height.max))
      return fail(`${field}.viewport.height must be an integer from ${L.height.min} to ${L.height.max} (CSS pixels).`);
    out.viewport = { width: width as number, height: height as number };
  }
  if (input['deviceScaleFactor'] !== undefined) {
    const d = input['deviceScaleFactor'];
    if (typeof d !== 'number' || !Number.isFinite(d) || d < L.deviceScaleFactor.min || d > L.deviceScaleFactor.max) {
      return fail(
        `${field}.deviceScaleFactor must be a number from ${L.deviceScaleFactor.min} to ${L.deviceScaleFactor.max}.`,
      );
    }
    out.deviceScaleFactor = d;
  }
  if (input['fullPage'] !== undefined) {
    if (typeof input['fullPage'] !== 'boolean') return fail(`${field}.fullPage must be true or false.`);
    out.fullPage = input['fullPage'];
  }
  if (input['waitForSelector'] !== undefined) {
    const s = input['waitForSelector'];
    if (typeof s !== 'string' || s.trim() === '' || s.length > L.waitForSelectorLength) {
      return fail(
        `${field}.waitForSelector must be a non-empty CSS selector of at most ${L.waitForSelectorLength} characters.`,
      );
    }
    out.waitForSelector = s;
  }
  if (input['delayMs'] !== undefined) {
    if (!isIntIn(input['delayMs'], L.delayMs.min, L.delayMs.max))
      return fail(`${field}.delayMs must be an integer from ${L.delayMs.min} to ${L.delayMs.max}.`);
    out.delayMs = input['delayMs'] as number;
  }
  if (input['pdf'] !== undefined) {
    if (typeof input['pdf'] !== 'boolean') return fail(`${field}.pdf must be true or false.`);
    out.pdf = input['pdf'];
  }
  if (input['behaviors'] !== undefined) {
    const b = input['behaviors'];
    const known = (name: unknown): name is BehaviorName => BEHAVIOR_NAMES.includes(name as BehaviorName);
    if (!Array.isArray(b) || b.length > BEHAVIOR_NAMES.length * 2)
      return fail(`${field}.behaviors must be an array of behavior names (${BEHAVIOR_NAMES.join(', ')}).`);
    const at = b.findIndex((name) => !known(name));
    if (at >= 0) return fail(`${field}.behaviors[${at}] is not a behavior (known: ${BEHAVIOR_NAMES.join(', ')}).`);
    out.behaviors = [...new Set(b as BehaviorName[])];
  }
  if (input['behaviorTimeout'] !== undefined) {
    const t = input['behaviorTimeout'];
    if (!isIntIn(t, L.behaviorTimeout.min, L.behaviorTimeout.max))
      return fail(
        `${field}.behaviorTimeout must be an integer from ${L.behaviorTimeout.min} to ${L.behaviorTimeout.max} (seconds).`,
      );
    out.behaviorTimeout = t as number;
  }
  if (input['recordSession'] !== undefined) {
    if (typeof input['recordSession'] !== 'boolean') return fail(`${field}.recordSession must be true or false.`);
    out.recordSession = input['recordSession'];
  }
  if (input['vantage'] !== undefined) {
    const v = input['vantage'];
    if (typeof v !== 'string' || v === '' || v.length > L.vantageIdLength)
      return fail(`${field}.vantage must be the id of a vantage point (GET /v1/vantages lists them).`);
    out.vantage = v;
  }
  if (input['corroborate'] !== undefined) {
    if (input['corroborate'] !== 2 && input['corroborate'] !== 3)
      return fail(`${field}.corroborate must be 2 or 3 (the number of vantage points to capture from).`);
    out.corroborate = input['corroborate'];
  }
  if (input['profile'] !== undefined) {
    const v = input['profile'];
    if (typeof v !== 'string' || !isId('prf', v))
      return fail(`${field}.profile must be the id of one of your browser profiles (GET /v1/profiles lists them).`);
    out.profile = v;
  }
  if (input['recordBoxes'] !== undefined) {
    const checked = checkRecordBoxes(input['recordBoxes'], `${field}.recordBoxes`);
    if (typeof checked === 'string') return fail(checked);
    out.recordBoxes = checked;
  }
  if (input['recordTextBoxes'] !== undefined) {
    const checked = checkRecordTextBoxes(input['recordTextBoxes'], `${field}.recordTextBoxes`);
    if (typeof checked === 'string') return fail(checked);
    out.recordTextBoxes = checked;
  }
  return { ok: true, options: Object.keys(out).length > 0 ? out : undefined };
}

export function resolveCaptureSettings(options: CaptureOptions | undefined): CaptureSettings {
  const d = DEFAULT_CAPTURE_SETTINGS;
  return {
    viewport: options?.viewport ? { ...options.viewport } : { ...d.viewport },
    deviceScaleFactor: options?.deviceScaleFactor ?? d.deviceScaleFactor,
    fullPage: options?.fullPage ?? d.fullPage,
    waitForSelector: options?.waitForSelector ?? d.waitForSelector,
    delayMs: options?.delayMs ?? d.delayMs,
    pdf: options?.pdf ?? d.pdf,
    behaviors: options?.behaviors ? [...options.behaviors] : [...d.behaviors],
    behaviorTimeoutMs: options?.behaviorTimeout !== undefined ? options.behaviorTimeout * 1000 : d.behaviorTimeoutMs,
    recordSession: options?.recordSession ?? d.recordSession,
    recordBoxes: options?.recordBoxes ? [...options.recordBoxes] : [...d.recordBoxes],
    recordTextBoxes: options?.recordTextBoxes ? [...options.recordTextBoxes] : [...d.recordTextBoxes],
  };
}

/**
 * `recordBoxes`: at most 20 selectors of at most 200 characters that the diff's parser (css-select) accepts, trimmed
 * and without repeats — the strings a diff's ignoreSelectors are matched against. A string: the 400's detail.
 */
export function checkRecordBoxes(value: unknown, field: string): string[] | string {
  const L = CAPTURE_OPTION_LIMITS.recordBoxes;
  if (!Array.isArray(value) || value.length > L.max)
    return `${field} must be an array of at most ${L.max} CSS selectors.`;
  const out: string[] = [];
  for (const [i, v] of value.entries()) {
    if (typeof v !== 'string' || v.trim() === '' || v.length > L.length)
      return `${field}[${i}] must be a non-empty CSS selector of at most ${L.length} characters.`;
    const problem = selectorProblem(v);
    if (problem) return `${field}[${i}]: '${v}' is not a valid CSS selector: ${problem}`;
    if (!out.includes(v.trim())) out.push(v.trim());
  }
  return out;
}

/**
 * `recordTextBoxes`: at most 20 regular expressions of at most 200 characters that compile with flags `gu` (as a
 * diff's ignoreText must), without repeats — not trimmed: whitespace is part of a pattern. A string: the 400's detail.
 */
export function checkRecordTextBoxes(value: unknown, field: string): string[] | string {
  const L = CAPTURE_OPTION_LIMITS.recordTextBoxes;
  if (!Array.isArray(value) || value.length > L.max)
    return `${field} must be an array of at most ${L.max} regular expressions.`;
  const out: string[] = [];
  for (const [i, v] of value.entries()) {
    if (typeof v !== 'string' || v.trim() === '' || v.length > L.length)
      return `${field}[${i}] must be a non-empty regular expression of at most ${L.length} characters.`;
    const problem = patternProblem(v);
    if (problem) return `${field}[${i}]: '${v}' is not a valid regular expression: ${problem}`;
    if (!out.includes(v)) out.push(v);
  }
  return out;
}

/**
 * Why a pattern does not compile as a JavaScript RegExp with flags `gu` (what ignoreText uses), or could backtrack
 * without bound (pattern-bounds.ts); null when it does compile and cannot.
 */
export function patternProblem(pattern: string): string | null {
  try {
    new RegExp(pattern, 'gu');
  } catch (err) {
    return err instanceof Error ? err.message.replace(/^Invalid regular expression: /, '') : String(err);
  }
  return patternHazard(pattern);
}

/**
 * Why css-select (what the diff matches elements with) refuses a selector, or why it is too complex to run over a
 * large page (pattern-bounds.ts); null when it compiles within the bounds.
 */
export function selectorProblem(selector: string): string | null {
  try {
    compile(selector);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return selectorHazard(selector);
}

const fail = (detail: string): OptionsCheck => ({ ok: false, detail });
const isIntIn = (v: unknown, min: number, max: number): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
