import type { ProvenanceVantage } from '../archive/provenance-record.js';
import { type VantageRoute, VantageUnavailableError } from './vantage-egress.js';
import { CaptureError } from '../capture/capture-error.js';

/**
 * The vantage point a capture asked for, checked before the browser starts: configured on this worker,
 * answering, and exiting where it should. Any of those failing is `vantage_unavailable` — the capture is never
 * made from the worker's own network instead.
 */
export async function enterVantage(
  id: string | undefined,
  routes: ((id: string) => VantageRoute | undefined) | undefined,
): Promise<{ route: VantageRoute; provenance: ProvenanceVantage } | undefined> {
  if (id === undefined) return undefined;
  const route = routes?.(id);
  if (!route)
    throw new CaptureError('vantage_unavailable', `The vantage point ${id} is not configured on this worker`, true);
  try {
    const exit = await route.observeExit();
    const { label, region } = route.vantage;
    return { route, provenance: { id, label, region, exit } };
  } catch (err) {
    if (err instanceof VantageUnavailableError)
      throw new CaptureError('vantage_unavailable', err.message, true, { cause: err });
    throw err;
  }
}
