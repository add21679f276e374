import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeBundle } from '../../../src/archive/bundle.js';
import { newId } from '../../../src/domain/ids.js';
import { sampleCapture } from '../../unit/archive/bundle-fixture.js';
import { completeWithBundle } from '../../support/logged-capture.js';
import { startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The verifier anyone can get. The verify page's command lines, taken from its HTML as served, run
 * with bash in an empty directory whose PATH holds only node, npm/npx, curl and sh (npx runs a bin through sh), with the npm registry pointed at
 * a closed loopback port (npx must install the served tarball and nothing else). Then the same verifier on a
 * flipped byte, on the four container changes with the certificate given, with the TSA document as
 * served, and with the log key on a WACZ.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const which = (name: string) =>
  new Promise<string>((resolve, reject) =>
    execFile('bash', ['-c', `command -v ${name}`], (err, out) => (err ? reject(err) : resolve(out.trim()))),
  );

const unescapeHtml = (s: string) => s.replace(/&#(\d+);/g, (_m, n) => String.fromCharCode(Number(n)));

describe('the served verifier and the verify page command lines', () => {
  let s: TestServer;
  let base: string;
  let work: string;
  let bin: string;
  let captureId: string;
  let html: string;
  let wacz: Buffer;
  let certificate: Buffer;

  /** bash -c `script` in `cwd`, PATH only `bin`, no registry. */
  const sh = (script: string, cwd: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        '/bin/bash',
        ['-c', script],
        {
          cwd,
          timeout: 120_000,
          maxBuffer: 16 * 1024 * 1024,
          env: {
            PATH: bin,
            HOME: cwd,
            npm_config_registry: 'http://127.0.0.2:9/',
            npm_config_cache: join(work, 'npm-cache'),
            npm_config_fetch_retries: '0',
            npm_config_update_notifier: 'false',
            npm_config_audit: 'false',
            npm_config_fund: 'false',
          },
        },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const emptyDir = async (name: string) => {
    const dir = join(work, name);
    await mkdir(dir);
    return dir;
  };
  const verifierIn = async (dir: string) => {
    await writeFile(
      join(dir, 'capture-ledger-verify.mjs'),
      (await s.call('GET', '/verifier/capture-ledger-verify.mjs')).raw,
    );
    return (args: string) => sh(`node capture-ledger-verify.mjs ${args}`, dir);
  };

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'cl-served-verifier-'));
    bin = join(work, 'bin');
    await mkdir(bin);
    for (const tool of ['node', 'npm', 'npx', 'curl', 'sh']) await symlink(await which(tool), join(bin, tool));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    s = await startTestServer({
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      ROLES: 'api,projector,signer,sequencer',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: '',
      LOG_CHECKPOINT_INTERVAL_MS: '3600000',
    });
    captureId = newId('cap');
    const bundle = (await makeBundle(sampleCapture({ captureId }), s.server.evidence.notary!))!;
    await completeWithBundle(s.server, 'served-verifier', captureId, bundle, 'served-verifier');
    // The verify endpoint publishes a checkpoint holding the leaf on demand; the certificate waits for it too.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const v = await s.call('GET', `/v1/verify/${captureId}`);
      const c = await s.call('GET', `/v1/captures/${captureId}/certificate`);
      if (v.body?.transparency?.status === 'pass' && c.status === 200) {
        certificate = c.raw;
        break;
      }
      if (Date.now() > deadline) throw new Error(`not logged: ${v.text} ${c.status}`);
      await sleep(200);
    }
    wacz = (await s.call('GET', `/v1/captures/${captureId}/artifacts/wacz`)).raw;
    html = (await s.call('GET', `/v1/verify/${captureId}`, { headers: { accept: 'text/html' } })).text;
  });
  after(async () => {
    await s?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const blocks = () => [...html.matchAll(/<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => unescapeHtml(m[1]!));

  it('the page shows both ways in <pre><code>, with this deployment and capture filled in', () => {
    const [npx, node] = blocks();
    assert.ok(npx && node, html);
    assert.match(npx, new RegExp(`^curl -fsSL -o capture.wacz '${base}/v1/captures/${captureId}/artifacts/wacz'\n`));
    assert.match(npx, new RegExp(`\nnpx --yes '${base}/verifier/capture-ledger-verifier.tgz' capture.wacz `));
    assert.match(node, new RegExp(`'${base}/verifier/capture-ledger-verify.mjs'`));
    for (const block of [npx, node]) assert.match(block, /--keys-url .* --tsa-ca-url .* --log-key-url /);
  });

  it('each block, pasted into an empty directory with only node, npx and curl, verifies (exit 0) without a registry', async () => {
    for (const [i, block] of blocks().entries()) {
      const r = await sh(block, await emptyDir(`paste-${i}`));
      assert.equal(r.code, 0, `${block}\n${r.stdout}\n${r.stderr}`);
      const result = JSON.parse(r.stdout);
      assert.equal(result.verified, true);
      assert.equal(result.transparency.status, 'pass', result.transparency.detail);
    }
  });

  it('the same lines exit non-zero on a bundle with one flipped byte', async () => {
    const flipped = Buffer.from(wacz);
    flipped[Math.floor(flipped.length / 2)]! ^= 0x01;
    // The bundle's URL answered by a server holding the flipped copy; every other URL stays the service's.
    const evil: Server = createServer((_req, res) => res.end(flipped));
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    const evilBase = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    try {
      for (const [i, block] of blocks().entries()) {
        const lines = block.replace(`'${base}/v1/captures/`, `'${evilBase}/v1/captures/`);
        const r = await sh(lines, await emptyDir(`flipped-${i}`));
        assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
        assert.equal(JSON.parse(r.stdout).verified, false);
      }
    } finally {
      evil.close();
    }
  });

  it('with the certificate given, the four container changes fail on the file hash', async () => {
    const dir = await emptyDir('container');
    const verify = await verifierIn(dir);
    await writeFile(join(dir, 'certificate.pdf'), certificate);
    const view = new DataView(wacz.buffer, wacz.byteOffset, wacz.byteLength);
    const eocd = wacz.length - 22;
    const cd = view.getUint32(eocd + 16, true);
    const change = (at: number) => {
      const copy = Buffer.from(wacz);
      copy[at]! ^= 0x01;
      return copy;
    };
    const changes: Record<string, Buffer> = {
      'local-header file name': change(30),
      'central-directory CRC': change(cd + 16),
      'end-of-archive comment length': change(eocd + 20),
      'one appended byte': Buffer.concat([wacz, Buffer.of(0)]),
    };
    const trust = `--keys-url '${base}/.well-known/signing-keys' --tsa-ca-url '${base}/.well-known/tsa-certificates'`;
    await writeFile(join(dir, 'good.wacz'), wacz);
    const good = await verify(`good.wacz --certificate certificate.pdf ${trust}`);
    assert.equal(good.code, 0, good.stdout + good.stderr);
    assert.equal(JSON.parse(good.stdout).certificate.status, 'pass');
    for (const [name, bytes] of Object.entries(changes)) {
      await writeFile(join(dir, 'changed.wacz'), bytes);
      const r = await verify(`changed.wacz --certificate certificate.pdf ${trust}`);
      assert.equal(r.code, 1, `${name}: ${r.stdout}${r.stderr}`);
      const result = JSON.parse(r.stdout);
      assert.equal(result.certificate.status, 'fail', name);
      assert.match(result.certificate.detail, /not the container it certifies/, name);
      // And on its own, without the certificate: the container is refused by artifactHashes.
      assert.match(result.checks[0].detail, /ZIP container/, name);
    }
  });

  it('--tsa-ca takes /.well-known/tsa-certificates as served; --log-key checks a WACZ against the log, a wrong key fails', async () => {
    const dir = await emptyDir('trust');
    const verify = await verifierIn(dir);
    await writeFile(join(dir, 'capture.wacz'), wacz);
    await writeFile(join(dir, 'keys.json'), (await s.call('GET', '/.well-known/signing-keys')).raw);
    await writeFile(join(dir, 'tsa.json'), (await s.call('GET', '/.well-known/tsa-certificates')).raw);
    const logKey = (await s.call('GET', '/v1/log/key')).text.trim();
    await writeFile(join(dir, 'log.vkey'), logKey);
    const ok = await verify(
      `capture.wacz --keys keys.json --tsa-ca tsa.json --log-key log.vkey --log-url '${base}/v1/log'`,
    );
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const result = JSON.parse(ok.stdout);
    assert.equal(result.checks.find((c: { name: string }) => c.name === 'timestamp').status, 'pass');
    assert.equal(result.transparency.status, 'pass');

    // Another log key of the same name: the checkpoint is not signed by it.
    const [name, hash] = logKey.split('+');
    const { parseNoteKey } = await import('../../../packages/verifier/src/index.js');
    const otherKey = Buffer.concat([Buffer.of(1), randomBytes(32)]);
    const { createHash } = await import('node:crypto');
    const otherHash = createHash('sha256')
      .update(Buffer.concat([Buffer.from(`${name}\n`), otherKey]))
      .digest('hex')
      .slice(0, 8);
    const wrong = `${name}+${otherHash}+${otherKey.toString('base64')}`;
    await parseNoteKey(wrong);
    assert.notEqual(otherHash, hash);
    await writeFile(join(dir, 'wrong.vkey'), wrong);
    const bad = await verify(
      `capture.wacz --keys keys.json --tsa-ca tsa.json --log-key wrong.vkey --log-url '${base}/v1/log'`,
    );
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(JSON.parse(bad.stdout).transparency.detail, /not signed by the log key given/);

    // A log key on a WACZ without a log to ask is refused, not ignored.
    const alone = await verify('capture.wacz --keys keys.json --log-key log.vkey');
    assert.equal(alone.code, 1);
    assert.match(alone.stderr, /--log-url/);
    assert.ok((await readFile(join(dir, 'tsa.json'), 'utf8')).startsWith('{'));
  });
});
