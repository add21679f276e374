import { z } from 'zod';
import {
  BEHAVIOR_NAMES,
  CAPTURE_OPTION_LIMITS as L,
  patternProblem,
  selectorProblem,
} from '../domain/capture-options.js';

/**
 * The `options` object of POST /v1/captures and POST /v1/schedules (docs/capturing.md, Capture options) as the OpenAPI document shows
 * it. The same rules as parseCaptureOptions (which batch items, validated one by one, use); a violation is a
 * 400 naming the field, e.g. `body.options.viewport.width`.
 */
export const captureOptionsSchema = z
  .strictObject({
    viewport: z
      .strictObject({
        width: z.number().int().min(L.width.min).max(L.width.max).describe('CSS pixels'),
        height: z.number().int().min(L.height.min).max(L.height.max).describe('CSS pixels'),
      })
      .optional()
      .describe('Browser window size; default 1280×800.'),
    deviceScaleFactor: z
      .number()
      .min(L.deviceScaleFactor.min)
      .max(L.deviceScaleFactor.max)
      .optional()
      .describe('Default 1.'),
    fullPage: z.boolean().optional().describe('Default true; false: the screenshot shows the viewport only.'),
    waitForSelector: z
      .string()
      .min(1)
      .max(L.waitForSelectorLength)
      .optional()
      .describe(
        'CSS selector waited for after load (within what is left of CAPTURE_TIMEOUT_MS), before the settle phase; not found → renderQuality partial, reason in captureSettings.',
      ),
    delayMs: z
      .number()
      .int()
      .min(L.delayMs.min)
      .max(L.delayMs.max)
      .optional()
      .describe('Extra wait after the settle phase; default 0.'),
    pdf: z.boolean().optional().describe('Also print the page to PDF: artifact `pdf`, hashed into the bundle.'),
    behaviors: z
      .array(z.enum(BEHAVIOR_NAMES))
      .max(BEHAVIOR_NAMES.length * 2)
      .optional()
      .describe(
        'Behaviors run after load (docs/capturing.md, Behaviors); default all of them (feed-timeline only where it matches); [] runs none. What each did is in captureSettings.behaviors.',
      ),
    behaviorTimeout: z
      .number()
      .int()
      .min(L.behaviorTimeout.min)
      .max(L.behaviorTimeout.max)
      .optional()
      .describe(
        `Seconds the behaviors may take together; default ${L.behaviorTimeout.default}. A page that never ends is captured when it runs out, with a note.`,
      ),
    recordSession: z
      .boolean()
      .optional()
      .describe(
        'Also keep a WebM video of what the browser showed from navigation to the screenshot, on the capture clock: artifact `session`, hashed into the bundle and named on the certificate. Default false.',
      ),
    vantage: z
      .string()
      .min(1)
      .max(L.vantageIdLength)
      .optional()
      .describe(
        'Extension: capture from this vantage point (GET /v1/vantages); unknown → 422 listing the valid ids. Named with the exit address observed in the provenance record.',
      ),
    corroborate: z
      .union([z.literal(2), z.literal(3)])
      .optional()
      .describe(
        'Extension: capture the URL from this many distinct vantage points (`vantage` first, when given) and compare them: GET /v1/captures/{id}/corroboration. Each member is a capture and counts against the quota.',
      ),
    profile: z
      .string()
      .regex(/^prf_[0-9a-f]{32}$/)
      .optional()
      .describe(
        "Extension (docs/profiles.md): one of your browser profiles' id; its cookies and localStorage are loaded into the capture's fresh browser before navigation. Unknown or another tenant's → 422 naming the field. The record says the page was captured signed in (captureSettings.signedIn: profile id, name, version, sites), never a value.",
      ),
    recordBoxes: z
      .array(
        z
          .string()
          .min(1)
          .max(L.recordBoxes.length)
          .superRefine((selector, ctx) => {
            const problem = selectorProblem(selector);
            if (problem)
              ctx.addIssue({ code: 'custom', message: `'${selector}' is not a valid CSS selector: ${problem}` });
          }),
      )
      .max(L.recordBoxes.max)
      .optional()
      .describe(
        "Extension (docs/watch.md): CSS selectors whose elements' boxes on the screenshot (screenshot pixels, from its top-left) are measured right before it is taken and recorded in captureSettings.elementBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreSelectors to every run.",
      ),
    recordTextBoxes: z
      .array(
        z
          .string()
          .min(1)
          .max(L.recordTextBoxes.length)
          .superRefine((pattern, ctx) => {
            const problem = patternProblem(pattern);
            if (problem)
              ctx.addIssue({ code: 'custom', message: `'${pattern}' is not a valid regular expression: ${problem}` });
          }),
      )
      .max(L.recordTextBoxes.max)
      .optional()
      .describe(
        "Extension (docs/watch.md): regular expressions (JavaScript, flags gu) whose matches in the page's visible text have their boxes on the screenshot measured right before it is taken and recorded in captureSettings.elementBoxes.textBoxes, so a diff can leave them out of the pixel comparison. A watched schedule adds its watch.ignoreText to every run.",
      ),
  })
  .optional()
  .describe('Capture options (absent: the defaults). Recorded in captureSettings and in the signed bundle.');
