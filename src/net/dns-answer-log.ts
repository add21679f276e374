/**
 * The worker resolver's memory of its answers: each capture's provenance record names the DNS
 * answers for the hosts its page used, as the resolver gave them (type, addresses, TTLs, which servers). Like
 * the connection log, shared by every capture of a worker: a capture asks for its hosts since it began.
 */
import type { DnsAnswer } from './resolve.js';

export interface DnsAnswerLog {
  record(answer: DnsAnswer): void;
  /** Answers for any of `hosts` given at or after `since` (epoch ms), oldest first. */
  answers(hosts: Iterable<string>, since: number): DnsAnswer[];
}

export function createDnsAnswerLog(options: { windowMs?: number; maxEntries?: number } = {}): DnsAnswerLog {
  const windowMs = options.windowMs ?? 10 * 60_000;
  const maxEntries = options.maxEntries ?? 5000;
  const entries: Array<{ at: number; answer: DnsAnswer }> = [];
  return {
    record(answer) {
      const now = Date.now();
      entries.push({ at: now, answer });
      while (entries.length > 0 && (entries.length > maxEntries || now - entries[0]!.at > windowMs)) entries.shift();
    },
    answers(hosts, since) {
      const wanted = new Set([...hosts].map((h) => h.toLowerCase()));
      return entries
        .filter((e) => e.at >= since && wanted.has(e.answer.name.toLowerCase()))
        .map((e) => ({ ...e.answer, addresses: e.answer.addresses.map((a) => ({ ...a })) }));
    },
  };
}
