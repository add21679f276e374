import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkWitnessQuorum, cosignedMessage, splitCosignature } from '../../../packages/verifier/src/index.js';
import { noteSignerFromSeed, signCheckpoint } from '../../../src/transparency/checkpoint.js';
import { leafHash, MerkleTree } from '../../../src/transparency/merkle.js';
import {
  addCheckpointBody,
  decideAddCheckpoint,
  parseAddCheckpoint,
  RequestError,
  type WitnessedCheckpoint,
} from '../../../src/witness/add-checkpoint.js';
import { cosignerFromSeed } from '../../../src/witness/cosigner.js';

/** The add-checkpoint decision (C2SP tlog-witness) as given (the witness's record) / when (a request) / then (the answer). */

const log = noteSignerFromSeed('log.test/v1/log', new Uint8Array(32).fill(7));
const logs = new Map([[log.name, [log]]]);
const tree = (tag: string, n: number) => {
  const t = new MerkleTree();
  for (let i = 0; i < n; i++) t.appendLeafHash(leafHash(new TextEncoder().encode(`${tag}${i}`)));
  return t;
};
const a = tree('a', 20);
const b = tree('b', 20);
const note = (t: MerkleTree, size: number, signer = log) =>
  signCheckpoint({ origin: signer.name, size, rootHash: t.root(size), extensions: [] }, signer);
const request = (t: MerkleTree, old: number, size: number, n = note(t, size)) =>
  parseAddCheckpoint(addCheckpointBody(old, old === 0 || old === size ? [] : t.consistencyProof(old, size), n));
const given = (record?: WitnessedCheckpoint) => () => record;
const recordOf = (t: MerkleTree, size: number): WitnessedCheckpoint => ({
  size,
  rootHash: Buffer.from(t.root(size)).toString('base64'),
});

describe('add-checkpoint', () => {
  it('a first checkpoint from old 0 is cosigned and becomes the record', () => {
    const answer = decideAddCheckpoint(request(a, 0, 10), logs, given());
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.status === 200 && answer.record, recordOf(a, 10));
  });
  it('a consistent extension is cosigned; a re-submission of the same checkpoint too', () => {
    assert.equal(decideAddCheckpoint(request(a, 10, 15), logs, given(recordOf(a, 10))).status, 200);
    assert.equal(decideAddCheckpoint(request(a, 10, 10), logs, given(recordOf(a, 10))).status, 200);
  });
  it('409 with the recorded size when old is not it', () => {
    const answer = decideAddCheckpoint(request(a, 0, 15), logs, given(recordOf(a, 10)));
    assert.equal(answer.status, 409);
    assert.equal(answer.status === 409 && answer.latestSize, 10);
  });
  it('409 (a fork, no size) for another root at the recorded size; 422 for a forked tree that claims to extend it', () => {
    const fork = decideAddCheckpoint(request(b, 10, 10), logs, given(recordOf(a, 10)));
    assert.equal(fork.status, 409);
    assert.ok('conflict' in fork && fork.conflict && fork.latestSize === undefined);
    const grown = decideAddCheckpoint(request(b, 10, 15), logs, given(recordOf(a, 10)));
    assert.equal(grown.status, 422);
  });
  it('409 for an empty tree whose root is not the empty root (old size = size, roots differ)', () => {
    const bad = signCheckpoint({ origin: log.name, size: 0, rootHash: a.root(5), extensions: [] }, log);
    assert.equal(decideAddCheckpoint(parseAddCheckpoint(addCheckpointBody(0, [], bad)), logs, given()).status, 409);
    assert.equal(decideAddCheckpoint(request(a, 0, 0), logs, given()).status, 200);
  });
  it('404 unknown origin, 403 no valid log signature, 400 old above the size', () => {
    const other = noteSignerFromSeed('other.test/log', new Uint8Array(32).fill(1));
    assert.equal(decideAddCheckpoint(request(a, 0, 5, note(a, 5, other)), logs, given()).status, 404);
    const impostor = noteSignerFromSeed(log.name, new Uint8Array(32).fill(2));
    assert.equal(decideAddCheckpoint(request(a, 0, 5, note(a, 5, impostor)), logs, given()).status, 403);
    assert.equal(
      decideAddCheckpoint(parseAddCheckpoint(addCheckpointBody(6, [], note(a, 5))), logs, given()).status,
      400,
    );
  });
  it('refuses malformed bodies naming what is wrong', () => {
    assert.throws(() => parseAddCheckpoint('old 01\n\nx\n'), RequestError);
    assert.throws(() => parseAddCheckpoint(`old 1\n${'AAAA\n'.repeat(2)}\n${note(a, 5)}`), /proof line 1/);
    const tooLong = addCheckpointBody(
      1,
      Array.from({ length: 64 }, () => new Uint8Array(32)),
      note(a, 5),
    );
    assert.throws(() => parseAddCheckpoint(tooLong), /at most 63/);
    assert.throws(
      () => decideAddCheckpoint(parseAddCheckpoint('old 0\n\nlog.test/v1/log\nx\n\n'), logs, given()),
      RequestError,
    );
  });
});

describe('cosignatures (tlog-cosignature, Ed25519)', () => {
  const witness = cosignerFromSeed('w.test/witness', new Uint8Array(32).fill(9));
  const n = note(a, 10);
  const body = n.slice(0, n.lastIndexOf('\n\n') + 1);
  const line = witness.cosign(body, 1_700_000_000);

  it('is a signature line of key ID, big-endian timestamp and signature over the cosignature/v1 message', () => {
    const m = /^\u2014 w\.test\/witness (\S+)\n$/.exec(line);
    assert.ok(m);
    const parts = splitCosignature(new Uint8Array(Buffer.from(m[1]!, 'base64')));
    assert.equal(parts?.timestamp, 1_700_000_000);
    assert.deepEqual(parts?.keyId, witness.keyId);
    assert.equal(cosignedMessage(body, 5), `cosignature/v1\ntime 5\n${body}`);
    const [name, id, key] = witness.vkey.split('+') as [string, string, string];
    assert.deepEqual([name, id], ['w.test/witness', Buffer.from(witness.keyId).toString('hex')]);
    assert.equal(Buffer.from(key, 'base64')[0], 0x04);
  });
  it('verifies under the witness key, not on another checkpoint, not under another name', async () => {
    assert.equal((await checkWitnessQuorum(`${n}${line}`, [witness.vkey], 1)).status, 'pass');
    assert.equal((await checkWitnessQuorum(`${note(b, 10)}${line}`, [witness.vkey], 1)).status, 'fail');
    const renamed = line.replace('w.test/witness', 'x.test/witness');
    assert.equal((await checkWitnessQuorum(`${n}${renamed}`, [witness.vkey], 1)).status, 'fail');
    // Counted once however often it appears.
    const other = cosignerFromSeed('v.test/witness', new Uint8Array(32).fill(3));
    assert.equal((await checkWitnessQuorum(`${n}${line}${line}`, [witness.vkey, other.vkey], 2)).status, 'fail');
  });
});
