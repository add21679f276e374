import { randomBytes } from 'node:crypto';
import type { BrowserState, ProfileStates, ProfileSummary } from '../../src/profiles/browser-state.js';

/** ProfileStates in memory, for tests of the remote browser: what was saved, by whom, each version kept. */
export interface MemoryProfileStates extends ProfileStates {
  saved: Array<{ tenantId: string; actor: string; summary: ProfileSummary; state: BrowserState }>;
  put(tenantId: string, name: string, state: BrowserState): ProfileSummary;
}

const sitesOf = (state: BrowserState): string[] =>
  [...new Set(state.cookies.map((c) => c.domain.replace(/^\./, '')))].sort();

export function memoryProfileStates(): MemoryProfileStates {
  const profiles = new Map<string, { tenantId: string; summary: ProfileSummary; state: BrowserState }>();
  const saved: MemoryProfileStates['saved'] = [];
  const put = (tenantId: string, name: string, state: BrowserState, id = `prf_${randomBytes(8).toString('hex')}`) => {
    const version = (profiles.get(id)?.summary.version ?? 0) + 1;
    const summary = { id, name, version, sites: sitesOf(state) };
    profiles.set(id, { tenantId, summary, state });
    return summary;
  };
  return {
    saved,
    put,
    async load(tenantId, profileId) {
      const p = profiles.get(profileId);
      return p && p.tenantId === tenantId ? structuredClone(p.state) : null;
    },
    async save(input) {
      const existing = input.profileId ? profiles.get(input.profileId) : undefined;
      if (input.profileId && (!existing || existing.tenantId !== input.tenantId)) throw new Error('no such profile');
      const summary = put(input.tenantId, input.name ?? existing!.summary.name, input.state, input.profileId);
      saved.push({ tenantId: input.tenantId, actor: input.actor, summary, state: input.state });
      return summary;
    },
  };
}
