import type { WarcResponse } from '../archive/warc-reader.js';

/**
 * The resources part of a diff: the URLs each capture's WARC holds a response for, compared. A URL fetched more
 * than once counts as changed when the set of payload digests differs. Volatile query strings are not guessed
 * at: a URL with a new cache-buster is one removed and one added.
 */
export interface ResourceDiff {
  baseCount: number;
  count: number;
  added: string[];
  removed: string[];
  changed: Array<{ url: string; baseDigests: string[]; digests: string[] }>;
}

function digestsByUrl(records: readonly WarcResponse[]): Map<string, string[]> {
  const by = new Map<string, Set<string>>();
  for (const r of records) {
    let set = by.get(r.url);
    if (!set) by.set(r.url, (set = new Set()));
    set.add(r.payloadDigest);
  }
  return new Map([...by].map(([url, set]) => [url, [...set].sort()]));
}

/**
 * `documents`: the URLs of the two pages themselves (and where they redirected), left out: a change of the main
 * document is what the text and header parts describe.
 */
export function diffResources(
  base: readonly WarcResponse[],
  next: readonly WarcResponse[],
  documents: readonly string[] = [],
): ResourceDiff {
  const own = new Set(documents);
  const before = digestsByUrl(base.filter((r) => !own.has(r.url)));
  const after = digestsByUrl(next.filter((r) => !own.has(r.url)));
  const changed: ResourceDiff['changed'] = [];
  for (const [url, digests] of after) {
    const baseDigests = before.get(url);
    if (baseDigests && baseDigests.join(' ') !== digests.join(' ')) changed.push({ url, baseDigests, digests });
  }
  return {
    baseCount: before.size,
    count: after.size,
    added: [...after.keys()].filter((u) => !before.has(u)).sort(),
    removed: [...before.keys()].filter((u) => !after.has(u)).sort(),
    changed: changed.sort((a, b) => (a.url < b.url ? -1 : 1)),
  };
}
