import { parseWitnessVkey, type WitnessPublicKey } from '../witness/witness-key.js';

/**
 * LOG_WITNESSES: the witnesses the log asks to cosign each checkpoint (docs/transparency.md, "Witnesses"), one per
 * comma or newline: `<witness vkey> <add-checkpoint URL prefix>`, e.g.
 *   w1.example.org+1a2b3c4d+BAx…= https://w1.example.org/witness
 * (the log POSTs to <prefix>/add-checkpoint).
 */
export interface ConfiguredWitness extends WitnessPublicKey {
  url: string;
}

export function parseLogWitnesses(text: string | undefined): { witnesses: ConfiguredWitness[] } | { errors: string[] } {
  const entries = (text ?? '')
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
  const errors: string[] = [];
  const witnesses: ConfiguredWitness[] = [];
  for (const [i, entry] of entries.entries()) {
    const [vkey, url, extra] = entry.split(/\s+/);
    if (!vkey || !url || extra !== undefined || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      errors.push(`LOG_WITNESSES entry ${i + 1} must be '<witness vkey> <http(s) URL>'; got ${JSON.stringify(entry)}`);
      continue;
    }
    try {
      witnesses.push({ ...parseWitnessVkey(vkey), url: url.replace(/\/+$/, '') });
    } catch (error) {
      errors.push(`LOG_WITNESSES entry ${i + 1}: ${(error as Error).message}`);
    }
  }
  const names = witnesses.map((w) => w.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0) errors.push(`LOG_WITNESSES names a witness twice: ${[...new Set(twice)].join(', ')}`);
  return errors.length > 0 ? { errors } : { witnesses };
}
