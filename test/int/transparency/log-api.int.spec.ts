import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIdHash, decodeLeaf } from '../../../src/transparency/leaf.js';
import {
  noteSignerFromSeed,
  openCheckpoint,
  parseVerifierKey,
  signCheckpoint,
  verifierKeyString,
} from '../../../src/transparency/checkpoint.js';
import { createLogClient } from '../../../src/transparency/log-client.js';
import { encodeJson, LEAVES_SUBJECT } from '../../../src/transparency/log-stream.js';
import { createTransparencyService } from '../../../src/transparency/log-service.js';
import { startLogView } from '../../../src/transparency/log-view.js';
import { leafHash, MerkleTree, verifyConsistency, verifyInclusion } from '../../../src/transparency/merkle.js';
import { monitorOnce, type MonitorState } from '../../../src/transparency/monitor.js';
import { decodeEntryBundle } from '../../../src/transparency/tiles.js';
import pino from 'pino';
import { cli } from '../cli/cli-fixtures.js';
import { appendCommit, completed, expectedLeaves, keyRotated } from '../../support/log-events.js';
import { assertProblem, startTestServer, type TestServer } from '../../support/test-server.js';

/**
 * The public log through the API (no database behind it): checkpoint, key, tiles and proofs, each checked by
 * hand; then the monitor against an honest log and against a log whose tiles, tree and ledger were tampered
 * with — each is caught, with the message naming it.
 */

const LEAVES = 300; // one full tile of 256 and a partial one
const seed = randomBytes(32);
const b64 = (h: Uint8Array) => Buffer.from(h).toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('transparency log over HTTP, and the monitor', () => {
  let s: TestServer;
  let logUrl: string;
  let vkey: string;
  const captureIds: string[] = [];
  let expected: string[];

  before(async () => {
    s = await startTestServer({
      ROLES: 'api,projector,sequencer',
      LOG_CHECKPOINT_INTERVAL_MS: '300',
      LOG_SIGNING_KEY: seed.toString('base64'),
      LOG_ORIGIN: 'ledger.test/v1/log',
    });
    logUrl = `${s.baseUrl}/v1/log`;
    const store = s.server.store!;
    await appendCommit(store, null, [keyRotated('k0')]);
    for (let i = 0; captureIds.length + 1 < LEAVES; i++) {
      const ids = [`cap_${randomBytes(16).toString('hex')}`, `cap_${randomBytes(16).toString('hex')}`].slice(
        0,
        LEAVES - 1 - captureIds.length,
      );
      captureIds.push(...ids);
      await appendCommit(
        store,
        `t${i % 3}`,
        ids.map((id) => completed(id)),
      );
    }
    expected = await expectedLeaves(store);
    assert.equal(expected.length, LEAVES);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await s.call('GET', '/v1/log/checkpoint');
      if (r.status === 200 && Number(r.text.split('\n')[1]) === LEAVES) break;
      if (Date.now() > deadline) throw new Error(`no checkpoint of ${LEAVES} leaves: ${r.status} ${r.text}`);
      await sleep(200);
    }
    vkey = (await s.call('GET', '/v1/log/key')).text.trim();
  });
  after(async () => s?.stop());

  it('serves a signed checkpoint, the key, tiles and entries that rebuild its root', async () => {
    const note = (await s.call('GET', '/v1/log/checkpoint')).text;
    assert.equal(vkey, verifierKeyString(noteSignerFromSeed('ledger.test/v1/log', seed)));
    const cp = openCheckpoint(note, parseVerifierKey(vkey));
    assert.equal(cp.origin, 'ledger.test/v1/log');
    const json = (await s.call('GET', '/v1/log/checkpoint.json')).body;
    assert.equal(json.treeSize, LEAVES);
    assert.equal(json.note, note);

    const full = await s.call('GET', '/v1/log/tile/0/000');
    assert.equal(full.status, 200);
    assert.match(full.headers.get('cache-control')!, /immutable/);
    // Public like the verify endpoints: a monitor or mirror in a browser may read every part of the log.
    for (const path of [
      '/v1/log/checkpoint',
      '/v1/log/checkpoint.json',
      '/v1/log/key',
      '/v1/log/tile/0/000',
      '/v1/log/proof/inclusion?leafIndex=0',
      '/v1/log/proof/consistency?first=1',
    ]) {
      assert.equal((await s.call('GET', path)).headers.get('access-control-allow-origin'), '*', path);
    }
    assert.equal(full.raw.length, 256 * 32);
    const partial = await s.call('GET', '/v1/log/tile/0/001.p/44');
    assert.equal(partial.raw.length, 44 * 32);
    assert.doesNotMatch(partial.headers.get('cache-control')!, /immutable/);
    const entries = [
      ...decodeEntryBundle(new Uint8Array((await s.call('GET', '/v1/log/tile/entries/000')).raw)),
      ...decodeEntryBundle(new Uint8Array((await s.call('GET', '/v1/log/tile/entries/001.p/44')).raw)),
    ];
    assert.deepEqual(
      entries.map((e) => new TextDecoder().decode(e)),
      expected,
    );
    const tree = new MerkleTree();
    for (const e of entries) tree.appendLeaf(e);
    assert.deepEqual(Buffer.concat([full.raw, partial.raw]), Buffer.from(tree.hashesAt(0, 0, LEAVES)));
    assert.equal(b64(tree.root()), b64(cp.rootHash));
    // level 1 holds the one complete 256-leaf subtree
    assert.deepEqual((await s.call('GET', '/v1/log/tile/1/000.p/1')).raw, Buffer.from(tree.hashAt(8, 0)));
  });

  it('serves inclusion and consistency proofs that verify by hand', async () => {
    const cp = openCheckpoint((await s.call('GET', '/v1/log/checkpoint')).text, parseVerifierKey(vkey));
    const id = captureIds[123]!;
    const p = (await s.call('GET', `/v1/log/proof/inclusion?captureId=${id}`)).body;
    assert.equal(p.treeSize, LEAVES);
    const leaf = new TextEncoder().encode(expected[p.leafIndex]!);
    assert.equal(
      decodeLeaf(leaf).kind === 'capture' && (decodeLeaf(leaf) as { captureIdHash: string }).captureIdHash,
      captureIdHash(id),
    );
    assert.ok(
      verifyInclusion(
        p.leafIndex,
        cp.size,
        leafHash(leaf),
        p.hashes.map((h: string) => Buffer.from(h, 'base64')),
        cp.rootHash,
      ),
    );
    const c = (await s.call('GET', '/v1/log/proof/consistency?first=100&second=300')).body;
    const tree = new MerkleTree();
    for (const e of expected) tree.appendLeaf(new TextEncoder().encode(e));
    assert.ok(
      verifyConsistency(
        100,
        300,
        tree.root(100),
        cp.rootHash,
        c.hashes.map((h: string) => Buffer.from(h, 'base64')),
      ),
    );
  });

  it("answers bad input with the spec's error body", async () => {
    for (const [path, status] of [
      ['/v1/log/tile/0/5', 400],
      ['/v1/log/tile/0/x001/000', 404],
      ['/v1/log/proof/inclusion?leafIndex=1&captureId=cap_x', 400],
      ['/v1/log/proof/inclusion?leafIndex=abc', 400],
      ['/v1/log/proof/inclusion?leafIndex=5&treeSize=3', 400],
      ['/v1/log/proof/inclusion?leafIndex=0&treeSize=100000', 400],
      [`/v1/log/proof/inclusion?captureId=cap_${'0'.repeat(32)}`, 404],
      ['/v1/log/proof/consistency?first=10&second=5', 400],
      ['/v1/log/proof/consistency', 400],
    ] as const) {
      const r = await s.call('GET', path);
      assert.equal(r.status, status, `${path}: ${r.text}`);
      assertProblem(r.body, status);
    }
  });

  it('the monitor accepts the honest log, by the CLI too, and keeps its state', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cl-monitor-'));
    await writeFile(join(dir, 'ids.txt'), `${captureIds.slice(0, 5).join('\n')}\n`);
    const r = await cli(
      [
        'log',
        'monitor',
        '--log-url',
        logUrl,
        '--log-key',
        vkey,
        '--state',
        join(dir, 'state.json'),
        '--rederive',
        '--capture-ids',
        join(dir, 'ids.txt'),
      ],
      {},
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).treeSize, LEAVES);
    const again = await cli(
      ['log', 'monitor', '--log-url', logUrl, '--log-key', vkey, '--state', join(dir, 'state.json')],
      {},
    );
    assert.equal(again.code, 0, again.stderr);
  });

  /** A proxy in front of the API that rewrites some answers: a log operator (or an attacker) serving lies. */
  async function tamperingProxy(
    rewrite: (path: string, body: Buffer) => Buffer | null,
  ): Promise<{ url: string; server: Server }> {
    const server = createServer(async (req, res) => {
      const upstream = await s.call('GET', req.url!.replace(/^\/v1\/log/, '/v1/log'));
      const rewritten = rewrite(req.url!, upstream.raw);
      res.writeHead(rewritten ? 200 : upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream',
      });
      res.end(rewritten ?? upstream.raw);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/log`, server };
  }

  it('catches altered tiles: the tree re-derived from them is not the checkpoint', async () => {
    const proxy = await tamperingProxy((path, body) => {
      if (!path.startsWith('/v1/log/tile/0/000')) return null;
      const altered = Buffer.from(body);
      altered[40]! ^= 1; // leaf 1's hash
      return altered;
    });
    try {
      const r = await monitorOnce(
        createLogClient(proxy.url),
        parseVerifierKey(vkey),
        { checkpoints: [] },
        { rederive: true },
      );
      assert.deepEqual(
        r.findings.map((f) => f.kind),
        ['tiles'],
      );
      assert.match(r.findings[0]!.message, /leaf 1: the entries bundle and the hash tile disagree/);
    } finally {
      proxy.server.close();
    }
  });

  it('catches a rewritten tree (inconsistent with a saved checkpoint) and a fork (same size, other root)', async () => {
    const honest = (await s.call('GET', '/v1/log/checkpoint')).text;
    const cp = openCheckpoint(honest, parseVerifierKey(vkey));
    const signer = noteSignerFromSeed('ledger.test/v1/log', seed); // the operator holds its own key
    // The operator rewrites leaf 3 (a capture's bundle hash) and signs the new tree, with one more leaf and at the same size.
    const rewritten = expected.map((e, i) => (i === 3 ? e.replace(/sha256:[0-9a-f]{8}/, 'sha256:00000000') : e));
    const tree = new MerkleTree();
    for (const e of rewritten) tree.appendLeaf(new TextEncoder().encode(e));
    tree.appendLeaf(new TextEncoder().encode('{"extra":1}'));
    const grown = signCheckpoint(
      { origin: cp.origin, size: LEAVES + 1, rootHash: tree.root(), extensions: [] },
      signer,
    );
    const sameSize = signCheckpoint(
      { origin: cp.origin, size: LEAVES, rootHash: tree.root(LEAVES), extensions: [] },
      signer,
    );
    const dir = await mkdtemp(join(tmpdir(), 'cl-monitor-'));
    await writeFile(join(dir, 'saved.txt'), honest);

    const served = { note: grown };
    const proxy = await tamperingProxy((path) => {
      if (path === '/v1/log/checkpoint') return Buffer.from(served.note);
      if (path.startsWith('/v1/log/proof/consistency'))
        return Buffer.from(
          JSON.stringify({
            first: LEAVES,
            second: LEAVES + 1,
            firstRootHash: '',
            secondRootHash: '',
            hashes: tree.consistencyProof(LEAVES, LEAVES + 1).map(b64),
          }),
        );
      return null;
    });
    try {
      const saved: MonitorState = { checkpoints: [{ size: cp.size, rootHash: b64(cp.rootHash), note: honest }] };
      const inconsistent = await monitorOnce(createLogClient(proxy.url), parseVerifierKey(vkey), saved);
      assert.deepEqual(
        inconsistent.findings.map((f) => f.kind),
        ['inconsistent'],
      );
      assert.match(inconsistent.findings[0]!.message, /consistency proof fails/);
      const byCli = await cli(
        ['log', 'monitor', '--log-url', proxy.url, '--log-key', vkey, '--trusted-checkpoint', join(dir, 'saved.txt')],
        {},
      );
      assert.equal(byCli.code, 1);
      assert.match(
        byCli.stderr,
        /INCONSISTENT: the tree of 301 leaves is not an append-only extension of the tree of 300/,
      );

      served.note = sameSize;
      const fork = await monitorOnce(createLogClient(proxy.url), parseVerifierKey(vkey), saved);
      assert.deepEqual(
        fork.findings.map((f) => f.kind),
        ['fork'],
      );
      assert.match(fork.findings[0]!.message, /FORK: two signed checkpoints of tree size 300 have different roots/);

      // A checkpoint signed by another key is refused before anything else.
      served.note = signCheckpoint(
        { origin: cp.origin, size: LEAVES, rootHash: cp.rootHash, extensions: [] },
        noteSignerFromSeed(cp.origin, randomBytes(32)),
      );
      const forged = await monitorOnce(createLogClient(proxy.url), parseVerifierKey(vkey), saved);
      assert.deepEqual(
        forged.findings.map((f) => f.kind),
        ['signature'],
      );
    } finally {
      proxy.server.close();
    }
  });

  it('catches a capture dropped from the ledger: its ID has no leaf', async () => {
    // The tenant holds the ID of a capture whose completion never reached the log (removed from the ledger).
    const dropped = `cap_${randomBytes(16).toString('hex')}`;
    const dir = await mkdtemp(join(tmpdir(), 'cl-monitor-'));
    await writeFile(join(dir, 'ids.txt'), `${captureIds[0]}\n${dropped}\n`);
    const r = await cli(
      ['log', 'monitor', '--log-url', logUrl, '--log-key', vkey, '--capture-ids', join(dir, 'ids.txt')],
      {},
    );
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`MISSING: capture ${dropped} has no leaf in the log of ${LEAVES} leaves`));
    assert.doesNotMatch(r.stderr, new RegExp(captureIds[0]!));
  });

  it("says a proof cannot be made yet, never fails, while a process's view is behind the latest checkpoint", async () => {
    // A view that stopped reading where the log stood, as an API process's view after a NATS node restart
    // that has not caught up yet; then the log grows and a checkpoint covers more than the view holds.
    const { nc, js, jsm } = s.server.nats;
    const behind = await startLogView(js, jsm, pino({ level: 'silent' }));
    await behind.waitForSize(LEAVES, 60_000);
    await behind.stop();
    const more = [`cap_${randomBytes(16).toString('hex')}`];
    await appendCommit(
      s.server.store!,
      't0',
      more.map((id) => completed(id)),
    );
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await s.call('GET', '/v1/log/checkpoint');
      if (r.status === 200 && Number(r.text.split('\n')[1]) > LEAVES) break;
      if (Date.now() > deadline) throw new Error(`no checkpoint beyond ${LEAVES} leaves: ${r.status} ${r.text}`);
      await sleep(200);
    }
    const service = createTransparencyService(nc, jsm, behind, pino({ level: 'silent' }));
    const evidence = await service.evidenceFor(captureIds[0]!);
    assert.ok(
      'unavailable' in evidence,
      `no proof expected from a view that is behind, got ${JSON.stringify(evidence)}`,
    );
    assert.match(evidence.unavailable, new RegExp(`holds ${LEAVES} of the ${LEAVES + 1} leaves asked for`));
    // A certificate embeds the first checkpoint that holds the leaf, which this view does hold.
    const forCertificate = await service.certificateEvidence(captureIds[0]!);
    assert.ok(!('unavailable' in forCertificate), `a certificate's proof, got ${JSON.stringify(forCertificate)}`);
    // The API's own view follows the log: its answer is the proof.
    const live = (await s.call('GET', `/v1/log/proof/inclusion?captureId=${captureIds[0]}`)) as { status: number };
    assert.equal(live.status, 200);
  });

  it('catches a stored tree that is not append-only: a batch rewriting history stops the view', async () => {
    // Someone with write access to the TLOG stream appends a batch that starts over at leaf 0.
    const { js, jsm } = s.server.nats;
    await js.publish(
      LEAVES_SUBJECT,
      encodeJson({ first: 0, through: 1, leaves: [{ src: [1, 0], data: '{"forged":true}' }] }),
    );
    const view = await startLogView(js, jsm, pino({ level: 'silent' }));
    try {
      const deadline = Date.now() + 60_000;
      while (!view.problem() && Date.now() < deadline) await sleep(100);
      assert.match(view.problem() ?? '', /starts at leaf 0, but the log holds \d+: the stored log is not append-only/);
      assert.ok(view.size() >= LEAVES, 'the consistent prefix is kept');
      // The API's own view stops too: tiles and proofs answer 503 rather than a rewritten tree.
      const deadline2 = Date.now() + 60_000;
      let r = await s.call('GET', '/v1/log/tile/0/000');
      while (r.status !== 503 && Date.now() < deadline2) {
        await sleep(100);
        r = await s.call('GET', '/v1/log/tile/0/000');
      }
      assert.equal(r.status, 503);
      assertProblem(r.body, 503);
    } finally {
      await view.stop();
    }
  });
});
