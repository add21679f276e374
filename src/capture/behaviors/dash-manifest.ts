/**
 * DASH manifests (MPD, ISO/IEC 23009-1), read only as far as archiving needs: for each adaptation set (video,
 * audio, subtitles) its representations and the URLs of each one's segments — SegmentTemplate (with a
 * SegmentTimeline or a fixed duration), SegmentList, or one file per representation (SegmentBase) — with
 * BaseURL resolved at every level. Pure.
 */
import { XMLParser } from 'fast-xml-parser';

export interface DashRepresentation {
  id: string;
  bandwidth: number;
  /** Initialization segment first, then the media segments in order. */
  segments: string[];
}

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  isArray: (name) => ['Period', 'AdaptationSet', 'Representation', 'S', 'SegmentURL', 'BaseURL'].includes(name),
});

/** Segments of a live manifest without an end are listed up to this many per representation. */
const MAX_PER_REPRESENTATION = 2000;

/** The adaptation sets of every period, each a list of representations; [] when `text` is not an MPD. */
export function parseMpd(text: string, manifestUrl: string): DashRepresentation[][] {
  let doc: Node;
  try {
    doc = parser.parse(text) as Node;
  } catch {
    return [];
  }
  const mpd = doc['MPD'] as Node | undefined;
  if (!mpd) return [];
  const total = isoDuration(String(mpd['@mediaPresentationDuration'] ?? ''));
  const mpdBase = baseOf(mpd, manifestUrl);
  const sets: DashRepresentation[][] = [];
  for (const period of (mpd['Period'] as Node[] | undefined) ?? []) {
    const periodBase = baseOf(period, mpdBase);
    const periodSeconds = isoDuration(String(period['@duration'] ?? '')) ?? total;
    for (const set of (period['AdaptationSet'] as Node[] | undefined) ?? []) {
      const setBase = baseOf(set, periodBase);
      const representations = ((set['Representation'] as Node[] | undefined) ?? []).map((rep) =>
        representation(rep, set, baseOf(rep, setBase), periodSeconds),
      );
      if (representations.length > 0) sets.push(representations);
    }
  }
  return sets;
}

/** Per adaptation set: the representation the player already used (by a requested segment), else the smallest. */
export function chooseRepresentations(sets: DashRepresentation[][], requested: Set<string>): DashRepresentation[] {
  return sets.flatMap((reps) => {
    const used = reps.find((r) => r.segments.some((s) => requested.has(s)));
    const chosen = used ?? [...reps].sort((a, b) => a.bandwidth - b.bandwidth)[0];
    return chosen ? [chosen] : [];
  });
}

export function isManifestUrl(url: string): boolean {
  try {
    return /\.mpd$/i.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

function representation(rep: Node, set: Node, base: string, seconds: number | undefined): DashRepresentation {
  const id = String(rep['@id'] ?? '');
  const bandwidth = Number(rep['@bandwidth'] ?? 0);
  const vars = { id, bandwidth };
  const template = { ...((set['SegmentTemplate'] as Node) ?? {}), ...((rep['SegmentTemplate'] as Node) ?? {}) };
  const list = (rep['SegmentList'] ?? set['SegmentList']) as Node | undefined;
  const segments: string[] = [];
  const add = (relative: string | undefined) => {
    const url = relative ? resolve(relative, base) : undefined;
    if (url && !segments.includes(url)) segments.push(url);
  };
  if (template['@media'] || template['@initialization']) {
    const init = template['@initialization'] as string | undefined;
    if (init) add(fill(init, vars, 0, 0));
    const media = template['@media'] as string | undefined;
    if (media) for (const [number, time] of templateNumbers(template, seconds)) add(fill(media, vars, number, time));
  } else if (list) {
    add((list['Initialization'] as Node | undefined)?.['@sourceURL'] as string | undefined);
    for (const s of (list['SegmentURL'] as Node[] | undefined) ?? []) add(s['@media'] as string | undefined);
  } else {
    add(base); // SegmentBase or a bare BaseURL: the representation is one file
  }
  return { id, bandwidth, segments };
}

/** [number, time] of each media segment of a SegmentTemplate. */
function templateNumbers(template: Node, seconds: number | undefined): Array<[number, number]> {
  const start = Number(template['@startNumber'] ?? 1);
  const timescale = Number(template['@timescale'] ?? 1) || 1;
  const out: Array<[number, number]> = [];
  const timeline = (template['SegmentTimeline'] as Node | undefined)?.['S'] as Node[] | undefined;
  if (timeline) {
    let time = 0;
    for (const s of timeline) {
      if (s['@t'] !== undefined) time = Number(s['@t']);
      const d = Number(s['@d'] ?? 0);
      let repeat = Number(s['@r'] ?? 0);
      if (repeat < 0) repeat = seconds && d > 0 ? Math.ceil((seconds * timescale - time) / d) - 1 : 0;
      for (let i = 0; i <= repeat && out.length < MAX_PER_REPRESENTATION; i++) {
        out.push([start + out.length, time]);
        time += d;
      }
    }
    return out;
  }
  const duration = Number(template['@duration'] ?? 0) / timescale;
  if (!(duration > 0) || !seconds) return out;
  const count = Math.min(MAX_PER_REPRESENTATION, Math.ceil(seconds / duration - 1e-9));
  for (let i = 0; i < count; i++) out.push([start + i, Math.round(i * duration * timescale)]);
  return out;
}

/** $RepresentationID$, $Bandwidth$, $Number$ and $Time$ (each with an optional %0Nd width), $$. */
function fill(template: string, vars: { id: string; bandwidth: number }, number: number, time: number): string {
  return template.replace(/\$(RepresentationID|Bandwidth|Number|Time|)(?:%0(\d+)d)?\$/g, (_, name: string, width) => {
    if (name === '') return '$';
    const value =
      name === 'RepresentationID'
        ? vars.id
        : String(name === 'Bandwidth' ? vars.bandwidth : name === 'Number' ? number : time);
    return width ? value.padStart(Number(width), '0') : value;
  });
}

function baseOf(node: Node, parent: string): string {
  const base = (node['BaseURL'] as unknown[] | undefined)?.[0];
  const text = typeof base === 'object' && base !== null ? (base as Node)['#text'] : base;
  return typeof text === 'string' && text.trim() ? (resolve(text.trim(), parent) ?? parent) : parent;
}

function resolve(relative: string, base: string): string | undefined {
  try {
    return new URL(relative, base).href;
  } catch {
    return undefined;
  }
}

/** Seconds of an ISO 8601 duration such as PT1H2M3.5S; undefined when absent or unreadable. */
function isoDuration(text: string): number | undefined {
  const m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!m || text === 'P' || text === 'PT') return undefined;
  const [, d, h, min, s] = m.map((v) => Number(v ?? 0));
  return d! * 86400 + h! * 3600 + min! * 60 + s!;
}
