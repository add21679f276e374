import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CheckpointError,
  noteSignerFromSeed,
  openCheckpoint,
  parseVerifierKey,
  signCheckpoint,
  verifierKeyString,
} from '../../../src/transparency/checkpoint.js';
import {
  decodeEntryBundle,
  encodeEntryBundle,
  encodeTileIndex,
  parseTilePath,
  tilePath,
  tilesForSize,
} from '../../../src/transparency/tiles.js';

const signer = noteSignerFromSeed('log.example/v1/log', new Uint8Array(32).fill(7));
const root = new Uint8Array(32).fill(9);

describe('C2SP signed-note checkpoints', () => {
  it('writes origin, size, base64 root, a blank line and an em-dash signature line', () => {
    const note = signCheckpoint({ origin: signer.name, size: 42, rootHash: root, extensions: [] }, signer);
    const lines = note.split('\n');
    assert.deepEqual(lines.slice(0, 4), ['log.example/v1/log', '42', Buffer.from(root).toString('base64'), '']);
    assert.match(lines[4]!, /^\u2014 log\.example\/v1\/log [A-Za-z0-9+/]+=*$/);
    const sig = Buffer.from(lines[4]!.split(' ')[2]!, 'base64');
    assert.equal(sig.length, 68); // 4-byte key hash + 64-byte Ed25519 signature
    assert.deepEqual(new Uint8Array(sig.subarray(0, 4)), signer.keyHash);
    const opened = openCheckpoint(note, parseVerifierKey(verifierKeyString(signer)));
    assert.equal(opened.size, 42);
    assert.deepEqual(opened.rootHash, root);
  });

  it('refuses an altered body, another key and a malformed note', () => {
    const note = signCheckpoint({ origin: signer.name, size: 42, rootHash: root, extensions: [] }, signer);
    assert.throws(() => openCheckpoint(note.replace('\n42\n', '\n43\n'), signer), CheckpointError);
    const other = noteSignerFromSeed(signer.name, new Uint8Array(32).fill(8));
    assert.throws(() => openCheckpoint(note, other), /no signature of key/);
    assert.throws(() => openCheckpoint('nonsense', signer), CheckpointError);
    assert.throws(() => parseVerifierKey('a+00000000+AAAA'), CheckpointError);
  });

  it("reads verifier keys whose base64 holds '+' (many do)", () => {
    for (let i = 0; i < 64; i++) {
      const s = noteSignerFromSeed('log.example/v1/log', new Uint8Array(32).fill(i));
      const text = verifierKeyString(s);
      assert.deepEqual(parseVerifierKey(text).publicKey, s.publicKey, text);
    }
  });
});

describe('C2SP tlog-tiles paths', () => {
  it('encodes indexes in x-prefixed groups of three digits', () => {
    assert.equal(encodeTileIndex(0), '000');
    assert.equal(encodeTileIndex(1234067), 'x001/x234/067');
    assert.equal(tilePath({ level: 0, index: 1234067, width: 256 }), 'tile/0/x001/x234/067');
    assert.equal(tilePath({ level: 'entries', index: 5, width: 17 }), 'tile/entries/005.p/17');
  });

  it('parses exactly the paths it writes', () => {
    assert.deepEqual(parseTilePath('0/x001/x234/067'), { level: 0, index: 1234067, width: 256 });
    assert.deepEqual(parseTilePath('entries/005.p/17'), { level: 'entries', index: 5, width: 17 });
    for (const bad of ['0/5', '0/x000/005', '01/000', '0/000.p/0', '0/000.p/256', '64/000', 'x/000', '0/000/'])
      assert.equal(parseTilePath(bad), null, bad);
  });

  it('lists full and partial tiles for a size, and round-trips entries bundles', () => {
    assert.deepEqual(
      tilesForSize(0, 600).map((t) => t.width),
      [256, 256, 88],
    );
    assert.deepEqual(tilesForSize(1, 600), [{ level: 1, index: 0, width: 2 }]);
    const entries = [new Uint8Array([1, 2]), new Uint8Array(300).fill(5), new Uint8Array()];
    assert.deepEqual(decodeEntryBundle(encodeEntryBundle(entries)), entries);
  });
});
