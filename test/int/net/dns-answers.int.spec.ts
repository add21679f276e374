import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { createDnsAnswerLog } from '../../../src/net/dns-answer-log.js';
import { createDnsResolver } from '../../../src/net/resolve.js';

/** A DNS server on loopback answering every A question with 198.51.100.7, TTL 321, and no AAAA (RFC 1035 4.1). */
function answer(query: Buffer): Buffer {
  let end = 12;
  while (query[end] !== 0) end += query[end]! + 1;
  const question = query.subarray(12, end + 5);
  const type = query.readUInt16BE(end + 1);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(type === 1 ? 1 : 0, 6);
  if (type !== 1) return Buffer.concat([header, question]);
  const record = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0x01, 0x41, 0, 4, 198, 51, 100, 7]);
  return Buffer.concat([header, question, record]);
}

describe('the resolver tells what it answered, with TTLs, for the provenance record', () => {
  let server: dgram.Socket;
  before(async () => {
    server = dgram.createSocket('udp4');
    server.on('message', (msg, from) => server.send(answer(msg), from.port, from.address));
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  });
  after(() => server.close());

  it('records the A answer with its TTL and the server asked, and the empty AAAA answer', async () => {
    const log = createDnsAnswerLog();
    const server1 = `127.0.0.1:${server.address().port}`;
    const resolve = createDnsResolver({
      servers: [server1],
      timeoutMs: 2000,
      tries: 1,
      onAnswer: (a) => log.record(a),
    });
    const since = Date.now();
    assert.deepEqual(await resolve('site.example'), ['198.51.100.7']);
    const answers = log.answers(['SITE.example', 'other.example'], since);
    const a = answers.find((x) => x.type === 'A')!;
    assert.deepEqual(a.addresses, [{ address: '198.51.100.7', ttl: 321 }]);
    assert.deepEqual(a.resolver, [server1]);
    assert.equal(a.name, 'site.example');
    const aaaa = answers.find((x) => x.type === 'AAAA')!;
    assert.deepEqual(aaaa.addresses, []);
    assert.ok(aaaa.error, 'the empty answer says why');
    assert.deepEqual(log.answers(['site.example'], Date.now() + 1000), []);
  });
});
