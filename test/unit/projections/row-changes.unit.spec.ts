import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventRef } from '../../../projections/read-models/read-model.js';
import { CounterDeltas, type FoldedRows, foldChange, tableSpec } from '../../../projections/read-models/row-changes.js';

const ref = (seq: number): EventRef => ({
  seq,
  index: 0,
  eventId: `evt_${seq}`,
  type: 't',
  occurredAt: '2025-01-01T00:00:00.000Z',
});

type Item = { item_id: string; tenant_id: string; state: string; note: string | null };
const ITEMS = tableSpec<Item>({
  name: 'items',
  key: ['item_id'],
  columns: { item_id: 'text', tenant_id: 'text', state: 'text', note: 'text' },
});

type Tally = { tenant_id: string; day: string; n: number; m: number; last_at: string | null };
const TALLIES = tableSpec<Tally>({
  name: 'tallies',
  key: ['tenant_id', 'day'],
  columns: { tenant_id: 'text', day: 'date', n: 'bigint', m: 'bigint', last_at: 'timestamptz' },
  counters: ['n', 'm'],
});

describe('row changes in memory (the fold)', () => {
  it('an insert keeps the first row of a key, every column present (absent ones null)', () => {
    const rows: FoldedRows<Item> = new Map();
    assert.deepEqual(
      foldChange(ITEMS, rows, { op: 'insert', row: { item_id: 'a', tenant_id: 't', state: 'open' } }, ref(1)),
      { item_id: 'a', tenant_id: 't', state: 'open', note: null },
    );
    assert.equal(
      foldChange(ITEMS, rows, { op: 'insert', row: { item_id: 'a', tenant_id: 't', state: 'other' } }, ref(2)),
      null,
    );
    assert.deepEqual([rows.get('a')!.value.state, rows.get('a')!.ref.seq], ['open', 1]);
  });

  it('a guarded update applies while the guard holds, names its event, and leaves a missing row missing', () => {
    const rows: FoldedRows<Item> = new Map();
    foldChange(ITEMS, rows, { op: 'insert', row: { item_id: 'a', tenant_id: 't', state: 'open' } }, ref(1));
    const close = (note: string, seq: number) =>
      foldChange(
        ITEMS,
        rows,
        { op: 'update', key: { item_id: 'a' }, set: { state: 'closed', note }, when: { state: 'open' } },
        ref(seq),
      );
    assert.equal(close('first', 2)?.note, 'first');
    assert.equal(close('second', 3), null);
    assert.deepEqual([rows.get('a')!.value.note, rows.get('a')!.ref.seq], ['first', 2]);
    assert.equal(foldChange(ITEMS, rows, { op: 'update', key: { item_id: 'b' }, set: { note: 'x' } }, ref(4)), null);
    assert.equal(rows.has('b'), false);
  });

  it('additions start a row at zero in every counter, keep the greatest max, and key it without tenant_id', () => {
    const rows: FoldedRows<Tally> = new Map();
    foldChange(
      TALLIES,
      rows,
      {
        op: 'add',
        key: { tenant_id: 't', day: '2025-01-01' },
        add: { n: 2 },
        max: { last_at: '2025-01-01T00:00:02.000Z' },
      },
      ref(1),
    );
    foldChange(
      TALLIES,
      rows,
      {
        op: 'add',
        key: { tenant_id: 't', day: '2025-01-01' },
        add: { n: -1 },
        max: { last_at: '2025-01-01T00:00:01.000Z' },
      },
      ref(2),
    );
    assert.deepEqual(rows.get('2025-01-01')!.value, {
      tenant_id: 't',
      day: '2025-01-01',
      n: 1,
      m: 0,
      last_at: '2025-01-01T00:00:02.000Z',
    });
    assert.equal(rows.get('2025-01-01')!.ref.seq, 2);
  });
});

describe('counter deltas (a batch summed before one upsert)', () => {
  it('sums per key, keeps the greatest max, and leaves out a row that nets to zero', () => {
    const d = new CounterDeltas(TALLIES);
    d.add({ op: 'add', key: { tenant_id: 't', day: 'd1' }, add: { n: 1 } });
    d.add({ op: 'add', key: { tenant_id: 't', day: 'd1' }, add: { n: -1 } });
    d.add({ op: 'add', key: { tenant_id: 't', day: 'd2' }, add: { n: 1 }, max: { last_at: 'b' } });
    d.add({ op: 'add', key: { tenant_id: 't', day: 'd2' }, add: { m: 3 }, max: { last_at: 'a' } });
    assert.deepEqual(d.take(), [
      { op: 'add', key: { tenant_id: 't', day: 'd2' }, add: { n: 1, m: 3 }, max: { last_at: 'b' } },
    ]);
    assert.deepEqual(d.take(), []);
  });
});
