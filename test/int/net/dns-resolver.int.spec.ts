import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { createDnsResolver } from '../../../src/net/resolve.js';

/** Question name of a DNS query packet (RFC 1035 §4.1.2). */
function questionName(packet: Buffer): string {
  const labels: string[] = [];
  for (let i = 12; i < packet.length && packet[i] !== 0; i += packet[i]! + 1)
    labels.push(packet.subarray(i + 1, i + 1 + packet[i]!).toString());
  return labels.join('.');
}

describe('the DNS resolver', () => {
  let silent: dgram.Socket;
  const seen: Array<{ at: number; name: string }> = [];
  before(async () => {
    // A DNS server on loopback that never answers.
    silent = dgram.createSocket('udp4');
    silent.on('message', (msg) => seen.push({ at: Date.now(), name: questionName(msg) }));
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
  });
  after(() => silent.close());

  it('times out for real and asks about at most `concurrency` names at once', async () => {
    const resolve = createDnsResolver({
      servers: [`127.0.0.1:${silent.address().port}`],
      timeoutMs: 300,
      tries: 1,
      concurrency: 2,
    });
    const started = Date.now();
    const names = Array.from({ length: 6 }, (_, i) => `n${i}.example`);
    const results = await Promise.allSettled(names.map((n) => resolve(n)));
    assert.ok(
      results.every((r) => r.status === 'rejected'),
      'no answer is an error, not a hang',
    );
    assert.ok(Date.now() - started < 30_000);
    // Names are asked in waves of two: none of the later names was asked before the first two gave up.
    const firstOf = (name: string) => seen.find((q) => q.name === name)!.at;
    assert.deepEqual(new Set(seen.map((q) => q.name)), new Set(names));
    const wave1End = Math.max(
      ...seen.filter((q) => q.name === 'n0.example' || q.name === 'n1.example').map((q) => q.at),
    );
    for (const later of names.slice(2)) assert.ok(firstOf(later) >= wave1End, `${later} waited for a free slot`);
  });
});
