import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { checkWitnessQuorum } from '../../../packages/verifier/src/index.js';
import { parseLogWitnesses } from '../../../src/config/log-witnesses.js';
import { freePort } from '../../../src/infra/free-port.js';
import { noteSignerFromSeed, signCheckpoint, verifierKeyString } from '../../../src/transparency/checkpoint.js';
import { leafHash, MerkleTree } from '../../../src/transparency/merkle.js';
import { createCosigning } from '../../../src/transparency/witness-cosigning.js';
import { checkpointCosignatures, witnessCosignings } from '../../../src/observability/metrics.js';
import { addCheckpointBody } from '../../../src/witness/add-checkpoint.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { startWitnessProcess, type WitnessProcess } from '../../support/witness-process.js';

/**
 * Witnesses as their own processes (C2SP tlog-witness): one started by `capture-ledger witness`, one as
 * ROLES=witness. A log with two trees of the same size — a fork, both signed with the log key — gets the first
 * cosigned and the second refused; the witness's record survives a SIGKILL; the log's cosigning client learns a
 * witness's size from its 409 and publishes without a witness that is down; the verifier package rejects a
 * checkpoint below the quorum of trusted witnesses and accepts one at quorum.
 */

const ORIGIN = 'ledger.test/v1/log';
const logSigner = noteSignerFromSeed(ORIGIN, randomBytes(32));
const logVkey = verifierKeyString(logSigner);
const quiet = pino({ level: 'silent' });

function tree(tag: string, size: number): MerkleTree {
  const t = new MerkleTree();
  for (let i = 0; i < size; i++) t.appendLeafHash(leafHash(new TextEncoder().encode(`${tag}-${i}`)));
  return t;
}
const honest = tree('honest', 40);
// The fork: the same first 10 leaves, then other ones — of the same sizes as the honest tree's checkpoints.
const forked = (() => {
  const t = tree('honest', 10);
  for (let i = 10; i < 40; i++) t.appendLeafHash(leafHash(new TextEncoder().encode(`forged-${i}`)));
  return t;
})();
const checkpoint = (t: MerkleTree, size: number, signer = logSigner) =>
  signCheckpoint({ origin: signer.name, size, rootHash: t.root(size), extensions: [] }, signer);

async function add(url: string, body: string) {
  const res = await fetch(`${url}/add-checkpoint`, { method: 'POST', body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}
const submit = (url: string, t: MerkleTree, old: number, size: number, note = checkpoint(t, size)) =>
  add(url, addCheckpointBody(old, old === 0 ? [] : t.consistencyProof(old, size), note));

describe('witness processes and witnessed checkpoints', () => {
  let dir: string;
  let w1: WitnessProcess;
  let w2: ServiceProcess;
  let w2Vkey: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wit-'));
    w1 = await startWitnessProcess([
      '--log-key',
      logVkey,
      '--name',
      'w1.test/witness',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'w1'),
    ]);
    const port = await freePort();
    w2 = await startServiceProcess(
      {
        ROLES: 'witness',
        WITNESS_NAME: 'w2.test/witness',
        WITNESS_LOG_KEYS: logVkey,
        DATA_DIR: join(dir, 'w2'),
        NATS_URL: 'nats://127.0.0.1:1',
      },
      port,
    );
    w2Vkey = (await (await fetch(`${w2.baseUrl}/key`)).text()).trim();
  });
  after(async () => {
    await w1?.stop();
    await w2?.kill('SIGTERM');
  });

  it('cosigns a checkpoint the log signed; asks for the old size it holds (409, text/x.tlog.size)', async () => {
    const first = await submit(w1.url, honest, 0, 10);
    assert.equal(first.status, 200, first.text);
    assert.match(first.text, /^\u2014 w1\.test\/witness [A-Za-z0-9+/=]+\n$/);
    const cosigned = `${checkpoint(honest, 10)}${first.text}`;
    const report = await checkWitnessQuorum(cosigned, [w1.vkey], 1);
    assert.equal(report.status, 'pass', report.detail);
    assert.deepEqual(
      report.witnessed.map((w) => w.name),
      ['w1.test/witness'],
    );
    // A client that does not know the witness's size starts at 0 and is told.
    const stale = await submit(w1.url, honest, 0, 20);
    assert.equal(stale.status, 409);
    assert.equal(stale.type, 'text/x.tlog.size');
    assert.equal(stale.text, '10\n');
    const next = await submit(w1.url, honest, 10, 20);
    assert.equal(next.status, 200, next.text);
  });

  it('refuses the fork: another tree of the same size (409), and a forked tree that claims to extend it (422)', async () => {
    const sameSize = await submit(w1.url, forked, 20, 20);
    assert.equal(sameSize.status, 409, sameSize.text);
    assert.notEqual(sameSize.type, 'text/x.tlog.size');
    assert.match(sameSize.text, /forked/);
    const grown = await add(w1.url, addCheckpointBody(20, forked.consistencyProof(20, 30), checkpoint(forked, 30)));
    assert.equal(grown.status, 422, grown.text);
    // The honest log goes on being cosigned; the refused notes are kept as evidence of the split view.
    assert.equal((await submit(w1.url, honest, 20, 30)).status, 200);
    const conflicts = (await readFile(join(dir, 'w1', 'witness-conflicts.jsonl'), 'utf8')).trim().split('\n');
    assert.equal(conflicts.length, 2);
    assert.equal(JSON.parse(conflicts[0]!).note, checkpoint(forked, 20));
  });

  it("answers the spec's other refusals: 403 bad log signature, 404 unknown origin, 400 bad request", async () => {
    const impostor = noteSignerFromSeed(ORIGIN, randomBytes(32));
    assert.equal((await submit(w1.url, honest, 30, 35, checkpoint(honest, 35, impostor))).status, 403);
    const otherLog = noteSignerFromSeed('other.test/log', randomBytes(32));
    assert.equal((await submit(w1.url, honest, 0, 5, checkpoint(honest, 5, otherLog))).status, 404);
    assert.equal((await add(w1.url, addCheckpointBody(36, [], checkpoint(honest, 35)))).status, 400);
    const bad = await add(w1.url, `old 30\nnot-base64\n\n${checkpoint(honest, 35)}`);
    assert.equal(bad.status, 400);
    assert.match(bad.text, /proof line 1/);
    assert.equal((await fetch(`${w1.url}/add-checkpoint`)).status, 405);
  });

  it('keeps its record and its key across a SIGKILL', async () => {
    const vkey = w1.vkey;
    await w1.stop('SIGKILL');
    w1 = await startWitnessProcess([
      '--log-key',
      logVkey,
      '--name',
      'w1.test/witness',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'w1'),
    ]);
    assert.equal(w1.vkey, vkey);
    const stale = await submit(w1.url, honest, 0, 35);
    assert.equal(stale.status, 409);
    assert.equal(stale.text, '30\n');
    // Still refuses the fork it refused before the restart.
    assert.equal((await submit(w1.url, forked, 30, 30)).status, 409);
  });

  it('the log collects cosignatures: learns sizes from 409s, goes on without a witness that is down', async () => {
    const deadPort = await freePort();
    // A vkey whose name was changed no longer matches its key ID: the configuration says so, naming the entry.
    const wrong = parseLogWitnesses(`${w1.vkey} ${w1.url},${w2Vkey.replace('w2.', 'w3.')} ${w2.baseUrl}`);
    assert.ok('errors' in wrong && /entry 2/.test(wrong.errors[0]!), JSON.stringify(wrong));
    const config = parseLogWitnesses(`${w1.vkey} ${w1.url},${w2Vkey} ${w2.baseUrl}`);
    assert.ok('witnesses' in config);
    // w1 holds size 35 (above); this client knows nothing yet, so w1's first answer is a 409 naming 35.
    const down = { ...config.witnesses[1]!, name: 'down.test/witness', url: `http://127.0.0.1:${deadPort}` };
    const cosigning = createCosigning({
      witnesses: [config.witnesses[0]!, config.witnesses[1]!, down],
      consistencyProof: (a, b) => honest.consistencyProof(a, b),
      timeoutMs: 10_000,
      quorum: 2,
      log: quiet,
    });
    const note = await cosigning.cosign(checkpoint(honest, 38), 38);
    const both = await checkWitnessQuorum(note, [w1.vkey, w2Vkey], 2);
    assert.equal(both.status, 'pass', both.detail);
    assert.deepEqual(both.witnessed.map((w) => w.name).sort(), ['w1.test/witness', 'w2.test/witness']);
    // A second checkpoint from where each witness now is: no 409 needed, both cosign again.
    const again = await cosigning.cosign(checkpoint(honest, 40), 40);
    assert.equal((await checkWitnessQuorum(again, [w1.vkey, w2Vkey], 2)).status, 'pass');
    // What /metrics says of it: each witness's outcomes, and the cosignatures on the last checkpoint.
    const counts = (await witnessCosignings.get()).values.map((v) => [v.labels.witness, v.labels.outcome, v.value]);
    assert.deepEqual(counts.sort(), [
      ['down.test/witness', 'unavailable', 2],
      ['w1.test/witness', 'cosigned', 2],
      ['w2.test/witness', 'cosigned', 2],
    ]);
    assert.equal((await checkpointCosignatures.get()).values[0]?.value, 2);
    // A forked log asking: refused (after learning the size from a 409), and published without the cosignature.
    const forkedLog = createCosigning({
      witnesses: [config.witnesses[0]!],
      consistencyProof: (a, b) => forked.consistencyProof(a, b),
      timeoutMs: 10_000,
      quorum: 1,
      log: quiet,
    });
    assert.equal(await forkedLog.cosign(checkpoint(forked, 40), 40), checkpoint(forked, 40));
    const refused = (await witnessCosignings.get()).values.find(
      (v) => v.labels.witness === 'w1.test/witness' && v.labels.outcome === 'refused',
    );
    assert.equal(refused?.value, 1);
  });

  it('the verifier rejects a checkpoint below the quorum and accepts one at quorum', async () => {
    const note = checkpoint(honest, 40);
    const one = (await submit(w1.url, honest, 40, 40)).text;
    const withOne = `${note}${one}`;
    const below = await checkWitnessQuorum(withOne, [w1.vkey, w2Vkey], 2);
    assert.equal(below.status, 'fail');
    assert.deepEqual(below.missing, ['w2.test/witness']);
    assert.match(below.detail, /only 1 of 2/);
    assert.equal((await checkWitnessQuorum(withOne, [w1.vkey, w2Vkey], 1)).status, 'pass');
    const two = (await submit(w2.baseUrl, honest, 40, 40)).text;
    assert.equal((await checkWitnessQuorum(`${withOne}${two}`, [w1.vkey, w2Vkey], 2)).status, 'pass');
    // A cosignature moved onto another checkpoint (the fork's) does not count.
    const moved = `${checkpoint(forked, 40)}${one}${two}`;
    assert.equal((await checkWitnessQuorum(moved, [w1.vkey, w2Vkey], 1)).status, 'fail');
    await assert.rejects(checkWitnessQuorum(withOne, [w1.vkey], 2), /quorum/);
  });
});
