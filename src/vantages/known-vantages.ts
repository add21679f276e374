import type { CaptureOptions } from '../domain/capture-options.js';
import { refusal } from '../domain/errors.js';
import { type Vantage, type VantageView, viewOfVantage } from '../config/vantages.js';

/**
 * Vantage points as tenants see them: the list GET /v1/vantages answers, and the check that a
 * capture's `options.vantage` names one of them (422 listing the valid ids, like spec 7.2's other refusals of
 * a well-formed request the service cannot carry out).
 */
export function listVantages(vantages: readonly Vantage[]): { vantages: VantageView[] } {
  return { vantages: vantages.map(viewOfVantage) };
}

/** Why `options.vantage` is refused, or undefined when it names a configured vantage (or is absent). */
export function unknownVantageDetail(
  options: CaptureOptions | undefined,
  vantages: readonly Vantage[],
  field = 'options',
): string | undefined {
  const id = options?.vantage;
  if (id === undefined || vantages.some((v) => v.id === id)) return undefined;
  const valid = vantages.map((v) => v.id);
  return valid.length > 0
    ? `${field}.vantage ${JSON.stringify(id)} is not a vantage point of this service; valid: ${valid.join(', ')}.`
    : `${field}.vantage ${JSON.stringify(id)} is not a vantage point of this service; this service has none configured.`;
}

/** Throws the 422 when `options.vantage` names no configured vantage. */
export function requireKnownVantage(options: CaptureOptions | undefined, vantages: readonly Vantage[]): void {
  const detail = unknownVantageDetail(options, vantages);
  if (detail !== undefined) throw refusal(422, detail);
}
