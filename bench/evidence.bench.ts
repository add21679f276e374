import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FinishedCapture } from '../src/archive/finished-capture.js';
import { makeBundle } from '../src/archive/bundle.js';
import { createTsaClient } from '../src/archive/tsa-client.js';
import { generateSeedBase64, signingKeyFromSeed } from '../src/archive/signing-key.js';
import { startLocalTsa } from '../src/archive/local-tsa.js';
import { verifyBundle } from '../packages/verifier/src/index.js';
import { localNotary } from '../src/archive/notary.js';
import { remoteNotary, serveNotary } from '../src/archive/notary-service.js';
import { startEmbeddedNats } from '../src/infra/embedded-nats.js';
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import type { NetworkExchange } from '../src/domain/network-exchange.js';
import type { BenchLine } from './registry.js';
import { envCount, mb, percentile, round, timeMs } from './support/bench-kit.js';

/**
 * (1) Building a signed bundle with an RFC 3161 timestamp from the local TSA (startLocalTsa, over
 * HTTP on loopback) versus building and signing without one, per capture, on a synthetic capture of realistic
 * size: 30 exchanges (HTML, CSS, JS as compressible text; images as incompressible bytes; ≈1.6 MB) and a
 * 1.5 MB screenshot (incompressible, as PNGs are). (2) verifyBundle of a ≈10 MB v0.2.0 bundle (60 exchanges) versus plain
 * SHA-256 of the same bytes. (3) The same timestamped bundle signed by a signer role over NATS request/reply
 * (what a worker with SIGNER=remote does) versus in process. Medians; BENCH_EVIDENCE_BUNDLES (default 15) and
 * BENCH_EVIDENCE_VERIFY (default 10) rounds, alternating the two sides of each comparison.
 */
export async function evidenceBench(): Promise<BenchLine[]> {
  const rounds = envCount('BENCH_EVIDENCE_BUNDLES', 15);
  const verifyRounds = envCount('BENCH_EVIDENCE_VERIFY', 10);
  const dir = await mkdtemp(join(tmpdir(), 'cl-bench-evidence-'));
  const tsa = await startLocalTsa({ dir: join(dir, 'tsa') });
  const nats = await startEmbeddedNats(join(dir, 'nats'));
  const [signerConn, workerConn] = await Promise.all([connect({ servers: nats.url }), connect({ servers: nats.url })]);
  try {
    const signingKey = signingKeyFromSeed(generateSeedBase64());
    const timestamper = createTsaClient({ url: tsa.url });
    const keys = [{ keyId: signingKey.keyId, publicKey: signingKey.publicKeyBase64, algorithm: 'Ed25519' }];

    const input = syntheticCapture(30, 1_600_000, 1_500_000);
    const inputBytes =
      input.page.exchanges.reduce((n, e) => n + e.body.byteLength, 0) + input.page.screenshot.byteLength;
    const withTs = () => makeBundle(input, localNotary(signingKey, { timestamper }), { onTimestampFailure: 'throw' });
    const withoutTs = () => makeBundle(input, localNotary(signingKey));
    const sample = (await withTs())!; // warm-up of both paths (and the TSA's first key use)
    await withoutTs();
    const tsMs: number[] = [];
    const plainMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      tsMs.push(await timeMs(withTs));
      plainMs.push(await timeMs(withoutTs));
    }

    const big = (await makeBundle(
      syntheticCapture(60, 12_000_000, 1_500_000),
      localNotary(signingKey, { timestamper }),
      { onTimestampFailure: 'throw' },
    ))!;
    const check = await verifyBundle(big.bytes, { keys, tsaCaCertsPem: [tsa.caCertPem] });
    if (!check.verified || check.version !== '0.2.0')
      throw new Error(`the 10 MB bundle did not verify: ${JSON.stringify(check.checks)}`);
    const verifyMs: number[] = [];
    const shaMs: number[] = [];
    for (let i = 0; i < verifyRounds; i++) {
      verifyMs.push(await timeMs(() => verifyBundle(big.bytes, { keys, tsaCaCertsPem: [tsa.caCertPem] })));
      shaMs.push(await timeMs(async () => createHash('sha256').update(big.bytes).digest()));
    }
    const signer = serveNotary(signerConn, localNotary(signingKey, { timestamper }), pino({ level: 'silent' }));
    const viaSigner = () => makeBundle(input, remoteNotary(workerConn), { onTimestampFailure: 'throw' });
    await viaSigner();
    const remoteMs: number[] = [];
    const inProcessMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      remoteMs.push(await timeMs(viaSigner));
      inProcessMs.push(await timeMs(withTs));
    }
    await signer.stop();

    const med = (xs: number[]) => percentile(xs, 50);
    return [
      {
        figure: 'bundle build+sign+timestamp ms, signer role over NATS vs in process',
        rounds,
        remoteP50: round(med(remoteMs)),
        remoteP95: round(percentile(remoteMs, 95)),
        inProcessP50: round(med(inProcessMs)),
        ratio: round(med(remoteMs) / med(inProcessMs), 2),
        ratioIs: 'signer over NATS ÷ in process (p50)',
        signerCostMs: round(med(remoteMs) - med(inProcessMs)),
      },
      {
        figure: 'bundle build+sign+timestamp ms per capture',
        rounds,
        exchanges: 30,
        inputMB: mb(inputBytes),
        bundleMB: mb(sample.ref.size),
        withTimestampP50: round(med(tsMs)),
        withTimestampP95: round(percentile(tsMs, 95)),
        buildSignP50: round(med(plainMs)),
        buildSignP95: round(percentile(plainMs, 95)),
        ratio: round(med(tsMs) / med(plainMs), 2),
        ratioIs: 'with timestamp ÷ without (p50)',
        timestampCostMs: round(med(tsMs) - med(plainMs)),
      },
      {
        figure: 'verifyBundle ms, v0.2.0 bundle',
        rounds: verifyRounds,
        bundleMB: mb(big.ref.size),
        verifyP50: round(med(verifyMs)),
        sha256P50: round(med(shaMs)),
        ratio: round(med(verifyMs) / med(shaMs), 1),
        ratioIs: 'verifyBundle ÷ SHA-256 of the same bytes (p50)',
      },
    ];
  } finally {
    await Promise.all([signerConn.close(), workerConn.close()]);
    await nats.stop();
    await tsa.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const WORDS =
  'the of evidence page capture ledger tenant script style div class span href data value function return var const let window document'.split(
    ' ',
  );

/** Text that compresses like real markup and code (≈4:1), not like zeros or noise. */
function text(bytes: number): Buffer {
  const parts: string[] = [];
  let n = 0;
  while (n < bytes) {
    const w = Math.random() < 0.1 ? randomBytes(4).toString('hex') : WORDS[Math.floor(Math.random() * WORDS.length)]!;
    parts.push(w);
    n += w.length + 1;
  }
  return Buffer.from(parts.join(' ').slice(0, bytes));
}

/** A page of `count` exchanges with about `bodyBytes` of bodies (a third text, the rest images) and a screenshot. */
function syntheticCapture(count: number, bodyBytes: number, screenshotBytes: number): FinishedCapture {
  const origin = 'https://news.example.org';
  const kinds = ['text/html', 'text/css', 'application/javascript', 'image/jpeg', 'image/png', 'image/webp'];
  const exchanges: NetworkExchange[] = Array.from({ length: count }, (_, i) => {
    const type = i === 0 ? 'text/html; charset=utf-8' : kinds[i % kinds.length]!;
    const isText = type.startsWith('text') || type.includes('javascript');
    const size = Math.round((bodyBytes / count) * (isText ? 0.7 : 1.3));
    return {
      url: i === 0 ? `${origin}/2024/05/article` : `${origin}/static/asset-${i}.${type.split('/')[1]!.split(';')[0]}`,
      method: 'GET',
      requestHeaders: {
        'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/124.0',
        Accept: '*/*',
        Referer: `${origin}/`,
      },
      status: 200,
      statusText: 'OK',
      httpVersion: 'h2',
      responseHeaders: [
        ['content-type', type],
        ['cache-control', 'public, max-age=3600'],
        ['date', 'Wed, 01 May 2024 10:00:00 GMT'],
      ],
      body: isText ? text(size) : randomBytes(size),
      remoteAddress: '93.184.216.34',
      startedAt: new Date(Date.UTC(2024, 4, 1, 10, 0, 0, i * 20)).toISOString(),
    };
  });
  const screenshot = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(screenshotBytes - 8)]);
  return {
    captureId: `cap_${randomBytes(16).toString('hex')}`,
    url: `${origin}/2024/05/article`,
    createdAt: '2024-05-01T09:59:59.000Z',
    completedAt: '2024-05-01T10:00:05.000Z',
    page: {
      title: 'A synthetic article',
      exchanges,
      screenshot,
      html: exchanges[0]!.body.toString('utf8'),
      headers: { 'content-type': 'text/html; charset=utf-8', 'set-cookie': '[redacted]' },
    },
  };
}
