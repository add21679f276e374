import type { StoredEvent } from '../../src/ledger/event-store.js';
import type { ComparableRow, EventRef, ExpectedRow, Sql, TableComparison } from './read-model.js';

/**
 * What an event does to the rows of a table, said once per read model as data (RowChange), and the two ways
 * of carrying it out derived from that one statement: applied to Maps in memory (the pure fold the audit
 * compares) and written to Postgres — per batch as set-based `unnest` statements whose column arrays come
 * from the table's column list, or one statement per event for rare events. A column is added by naming it
 * in the table's spec and in the change that sets it; neither the fold nor the SQL lists it again.
 */

/** A column's Postgres type as the statements pass it (jsonb travels as JSON text, cast in the statement). */
export type ColumnType = 'text' | 'int' | 'bigint' | 'boolean' | 'timestamptz' | 'date' | 'jsonb' | 'text[]';

export type Values = Record<string, unknown>;

/** A table: its name, primary key and every column a change may set (as in its migration). */
export interface TableSpec<Row extends Values> {
  name: string;
  key: ReadonlyArray<keyof Row & string>;
  columns: { readonly [C in keyof Row & string]: ColumnType };
  /** Counter tables (AddChange): the columns a new row starts at zero in. */
  counters?: ReadonlyArray<keyof Row & string>;
}

export const tableSpec = <Row extends Values>(spec: TableSpec<Row>): TableSpec<Row> => spec;

/** Create the row unless one with its key exists (INSERT … ON CONFLICT DO NOTHING); absent columns are null. */
export interface InsertChange<Row extends Values> {
  op: 'insert';
  row: Partial<Row>;
}

/**
 * Set columns of an existing row, only while the row's `when` columns hold exactly those values (null
 * included); no row, or a guard that fails: nothing happens.
 */
export interface UpdateChange<Row extends Values> {
  op: 'update';
  key: Partial<Row>;
  set: Partial<Row>;
  when?: Partial<Row>;
}

/** Add to counters, creating the row at zero; `max` columns keep the greatest value seen (ISO instants compare as text). */
export interface AddChange<Row extends Values> {
  op: 'add';
  key: Partial<Row>;
  add: Partial<Record<keyof Row & string, number>>;
  max?: Partial<Row>;
}

export type RowChange<Row extends Values> = InsertChange<Row> | UpdateChange<Row> | AddChange<Row>;

function keyOf(spec: TableSpec<Values>, v: Values): string {
  let key = String(v[spec.key[0]!]);
  for (let i = 1; i < spec.key.length; i++) key += `|${String(v[spec.key[i]!])}`;
  return key;
}
const matches = (row: Values, when: Values | undefined): boolean =>
  !when || Object.entries(when).every(([c, v]) => (row[c] ?? null) === (v ?? null));
/** Whether the update leaves its own guard holding (settling a pending row does not: it applies once). */
const keepsGuard = (u: UpdateChange<Values>): boolean =>
  Object.entries(u.when ?? {}).every(([c, v]) => !(c in u.set) || (u.set[c] ?? null) === (v ?? null));

// ---- in memory: the fold ------------------------------------------------------------------------------------

/**
 * One tenant's rows of a table, by primary key without tenant_id (the audit folds one tenant at a time), each
 * with the event that last changed it.
 */
export type FoldedRows<Row extends Values> = Map<string, { value: Row; ref: EventRef }>;

/**
 * A table as the fold has it beside the rows the projection holds, each side made comparable by `comparable` and
 * keyed as the fold keys it (`keyOf` reads that key from a stored row).
 */
export function compareFoldedRows<Row extends Values, Stored>(
  table: string,
  folded: FoldedRows<Row>,
  stored: readonly Stored[],
  keyOf: (row: Stored) => string,
  comparable: (row: Row | Stored) => ComparableRow,
): TableComparison {
  return {
    table,
    expected: new Map(
      [...folded].map(([id, f]): [string, ExpectedRow] => [id, { row: comparable(f.value), ref: f.ref }]),
    ),
    actual: new Map(stored.map((r) => [keyOf(r), comparable(r)])),
  };
}

const foldIdOf = (spec: TableSpec<Values>, v: Values): string =>
  spec.key
    .filter((k) => k !== 'tenant_id')
    .map((k) => String(v[k]))
    .join('|');

/** Apply a change to the folded rows; the row it changed, or null when it changed nothing. */
export function foldChange<Row extends Values>(
  spec: TableSpec<Row>,
  rows: FoldedRows<Row>,
  change: RowChange<Row>,
  ref: EventRef,
): Row | null {
  const s = spec as unknown as TableSpec<Values>;
  if (change.op === 'insert') {
    const id = foldIdOf(s, change.row);
    if (rows.has(id)) return null;
    const value = Object.fromEntries(Object.keys(spec.columns).map((c) => [c, change.row[c] ?? null])) as Row;
    rows.set(id, { value, ref });
    return value;
  }
  const id = foldIdOf(s, change.key);
  let r = rows.get(id);
  if (change.op === 'update') {
    if (!r || !matches(r.value, change.when)) return null;
    Object.assign(r.value, change.set);
  } else {
    if (!r) {
      const counters: readonly string[] = spec.counters ?? [];
      const zero = Object.fromEntries(
        Object.keys(spec.columns).map((c) => [c, counters.includes(c) || c in change.add ? 0 : null]),
      );
      r = { value: { ...zero, ...change.key } as Row, ref };
      rows.set(id, r);
    }
    const v = r.value as Values;
    for (const [c, n] of Object.entries(change.add)) v[c] = ((v[c] as number | null) ?? 0) + (n as number);
    for (const [c, m] of Object.entries(change.max ?? {}))
      if (v[c] === null || v[c] === undefined || (m as string) > (v[c] as string)) v[c] = m;
  }
  r.ref = ref;
  return r.value;
}

// ---- in Postgres: set-based statements per batch ------------------------------------------------------------

const sqlValue = (type: ColumnType, v: unknown): unknown =>
  v === undefined || v === null ? null : type === 'jsonb' ? JSON.stringify(v) : v;
const arrayType = (type: ColumnType): string => {
  if (type === 'text[]')
    throw new Error('an array column cannot travel in unnest: write its changes one statement each (writeChange)');
  return type === 'jsonb' ? 'text[]' : `${type}[]`;
};
const cast = (type: ColumnType): string => (type === 'jsonb' ? '::jsonb' : '');

/** An unnest column: its alias in `u`, the table column it carries (for the type) and its value in an item. */
interface UnnestColumn<T> {
  alias: string;
  column: string;
  of: (item: T) => unknown;
}
const own = <T>(column: string, of: (item: T) => Values): UnnestColumn<T> => ({
  alias: column,
  column,
  of: (item) => of(item)[column],
});

/** `unnest($1::text[], …) AS u(a, …)` over the columns, with one parameter array each (`ordinal`: and u.i, from 1). */
function unnestOf<T>(spec: TableSpec<Values>, cols: Array<UnnestColumn<T>>, items: T[], ordinal = false) {
  const args = cols.map(({ column }, i) => `$${i + 1}::${arrayType(spec.columns[column]!)}`).join(', ');
  const aliases = [...cols.map(({ alias }) => alias), ...(ordinal ? ['i'] : [])].join(', ');
  const sql = `unnest(${args})${ordinal ? ' WITH ORDINALITY' : ''} AS u(${aliases})`;
  // Plain loops: this runs for every column of every row of the projector's hot path.
  const params = cols.map(({ column, of }) => {
    const type = spec.columns[column]!;
    const values = new Array<unknown>(items.length);
    for (let i = 0; i < items.length; i++) values[i] = sqlValue(type, of(items[i]!));
    return values;
  });
  return { sql, params };
}

/** Every column some of the values name, in first-seen order. */
function columnsOf(values: Iterable<Values | undefined>): string[] {
  const cols = new Set<string>();
  for (const v of values) for (const c in v) cols.add(c);
  return [...cols];
}

/** Insert the rows with one statement (existing keys are left alone); returns `returning` of the rows it created. */
export async function insertRows<Row extends Values, R extends Values = Values>(
  q: Sql,
  spec: TableSpec<Row>,
  changes: Array<InsertChange<Row>>,
  returning: ReadonlyArray<keyof Row & string> = [],
): Promise<R[]> {
  if (changes.length === 0) return [];
  const s = spec as unknown as TableSpec<Values>;
  const cols = columnsOf(changes.map((c) => c.row));
  const u = unnestOf(
    s,
    cols.map((c) => own(c, (ch: InsertChange<Row>) => ch.row)),
    changes,
  );
  const ret = returning.length > 0 ? ` RETURNING ${returning.join(', ')}` : '';
  const r = await q.query<R>(
    `INSERT INTO ${s.name} (${cols.join(', ')}) SELECT ${cols.map((c) => `u.${c}${cast(s.columns[c]!)}`).join(', ')} FROM ${u.sql} ON CONFLICT (${s.key.join(', ')}) DO NOTHING${ret}`,
    u.params,
  );
  return r.rows;
}

/** The guard's values as text, to tell updates of one row under one guard from those under another. */
function guardOf(when: Values | undefined): string {
  let g = '';
  for (const c in when) g += `${c}=${when[c] === null || when[c] === undefined ? '\u0002' : String(when[c])}\u0001`;
  return g;
}

/** The columns an update sets and guards: updates of one shape share a statement. */
function shapeOf(u: UpdateChange<Values>): string {
  let shape = '';
  for (const c in u.set) shape += `${c},`;
  shape += '|';
  for (const c in u.when) shape += `${c},`;
  return shape;
}

/**
 * A batch's updates as sequential application would leave them, one statement per shape (columns set and
 * guarded). Updates of one row under one guard collapse: when an update moves its own guard (a pending
 * capture settled), only the first can apply; otherwise they apply in turn, the later values standing. Updates
 * of one row under different guards must exclude each other (at most one guard holds), or the statement
 * would pick one at random: schedules' runs do, as a row names one last capture.
 * Returns each update that changed a row, with `returning` of that row.
 */
export async function updateRows<Row extends Values, C extends UpdateChange<Row>, R extends Values = Values>(
  q: Sql,
  spec: TableSpec<Row>,
  changes: C[],
  returning: ReadonlyArray<keyof Row & string> = [],
): Promise<Array<{ change: C; row: R }>> {
  const s = spec as unknown as TableSpec<Values>;
  const collapsed = new Map<string, C>();
  for (const c of changes) {
    const at = `${keyOf(s, c.key)}\u0000${guardOf(c.when)}`;
    const before = collapsed.get(at);
    if (!before) collapsed.set(at, c);
    else if (keepsGuard(before as unknown as UpdateChange<Values>))
      collapsed.set(at, { ...before, set: { ...before.set, ...c.set } });
  }
  const shapes = new Map<string, C[]>();
  for (const c of collapsed.values()) {
    const shape = shapeOf(c as unknown as UpdateChange<Values>);
    const group = shapes.get(shape);
    if (group) group.push(c);
    else shapes.set(shape, [c]);
  }
  const applied: Array<{ change: C; row: R }> = [];
  for (const group of shapes.values()) {
    const first = group[0]!;
    const setCols = columnsOf([first.set]);
    // A guard value the whole group shares (a capture's 'pending') is one parameter, so the planner sees it as
    // a constant; values that differ (schedules' last capture) travel in the unnest, as w_<column>.
    const guards = columnsOf([first.when]).map((w) => {
      const v0 = first.when![w] ?? null;
      const shared = group.every((c) => (c.when![w] ?? null) === v0);
      return { w, shared, v0, nullable: group.some((c) => (c.when![w] ?? null) === null) };
    });
    // Aliases: k_ for the key, w_ for the guard's values, the column's own name for the value it is set to.
    const cols: Array<UnnestColumn<C>> = [
      ...s.key.map((k) => ({ alias: `k_${k}`, column: k, of: (c: C) => c.key[k] })),
      ...setCols.map((c) => own(c, (ch: C) => ch.set)),
      ...guards.filter((g) => !g.shared).map(({ w }) => ({ alias: `w_${w}`, column: w, of: (c: C) => c.when![w] })),
    ];
    const u = unnestOf(s, cols, group, true);
    const params: unknown[] = u.params;
    const guardSql = guards.map(({ w, shared, v0, nullable }) => {
      if (!shared) return nullable ? `t.${w} IS NOT DISTINCT FROM u.w_${w}` : `t.${w} = u.w_${w}`;
      if (v0 === null) return `t.${w} IS NULL`;
      params.push(sqlValue(s.columns[w]!, v0));
      return `t.${w} = $${params.length}::${s.columns[w]}`;
    });
    const where = [...s.key.map((k) => `t.${k} = u.k_${k}`), ...guardSql].join(' AND ');
    const ret = ['u.i AS change_ordinal', ...returning.map((c) => `t.${c}`)].join(', ');
    const r = await q.query<Values>(
      `UPDATE ${s.name} t SET ${setCols.map((c) => `${c} = u.${c}${cast(s.columns[c]!)}`).join(', ')} FROM ${u.sql} WHERE ${where} RETURNING ${ret}`,
      params,
    );
    for (const { change_ordinal: i, ...row } of r.rows) applied.push({ change: group[Number(i) - 1]!, row: row as R });
  }
  return applied;
}

/** Counters summed in memory over a batch, written by `addRows` with one upsert. */
export class CounterDeltas<Row extends Values> {
  readonly #spec: TableSpec<Values>;
  readonly #rows = new Map<string, AddChange<Row>>();
  constructor(spec: TableSpec<Row>) {
    this.#spec = spec as unknown as TableSpec<Values>;
  }

  add(change: AddChange<Row>): void {
    const at = keyOf(this.#spec, change.key);
    const sum = this.#rows.get(at);
    if (!sum) {
      // Copies: the sums are added to in place.
      this.#rows.set(
        at,
        change.max
          ? { op: 'add', key: change.key, add: { ...change.add }, max: { ...change.max } }
          : { op: 'add', key: change.key, add: { ...change.add } },
      );
      return;
    }
    const add = sum.add as Record<string, number>;
    for (const c in change.add) add[c] = (add[c] ?? 0) + (change.add[c] as number);
    const max = (sum.max ?? {}) as Values;
    for (const c in change.max)
      if (max[c] === undefined || (change.max[c] as string) > (max[c] as string)) max[c] = change.max[c];
  }

  /** The summed rows, emptied; a row that nets to zero everywhere (and keeps no maximum) is left out. */
  take(): Array<AddChange<Row>> {
    const rows = [...this.#rows.values()].filter((r) => r.max || Object.values(r.add).some((n) => n !== 0));
    this.#rows.clear();
    return rows;
  }
}

/** One upsert adding each row's counters (and keeping the greatest of its `max` columns). */
export async function addRows<Row extends Values>(
  q: Sql,
  spec: TableSpec<Row>,
  changes: Array<AddChange<Row>>,
): Promise<void> {
  if (changes.length === 0) return;
  const s = spec as unknown as TableSpec<Values>;
  const addCols = columnsOf(changes.map((c) => c.add));
  const maxCols = columnsOf(changes.map((c) => c.max));
  const cols = [...s.key, ...addCols, ...maxCols];
  const u = unnestOf(
    s,
    [
      ...s.key.map((k) => own(k, (c: AddChange<Row>) => c.key)),
      ...addCols.map((a) => ({
        alias: a,
        column: a,
        of: (c: AddChange<Row>) => (c.add as Record<string, number>)[a] ?? 0,
      })),
      ...maxCols.map((m) => own(m, (c: AddChange<Row>) => c.max ?? {})),
    ],
    changes,
  );
  const updates = [
    ...addCols.map((c) => `${c} = ${s.name}.${c} + EXCLUDED.${c}`),
    ...maxCols.map((c) => `${c} = GREATEST(${s.name}.${c}, EXCLUDED.${c})`),
  ];
  await q.query(
    `INSERT INTO ${s.name} (${cols.join(', ')}) SELECT * FROM ${u.sql} ON CONFLICT (${s.key.join(', ')}) DO UPDATE SET ${updates.join(', ')}`,
    u.params,
  );
}

// ---- in Postgres: one statement per event (rare events) -----------------------------------------------------

/** One change as one statement, in order with the batch's other events. */
export async function writeChange<Row extends Values>(
  q: Sql,
  spec: TableSpec<Row>,
  change: InsertChange<Row> | UpdateChange<Row>,
): Promise<void> {
  const s = spec as unknown as TableSpec<Values>;
  const params: unknown[] = [];
  const p = (column: string, v: unknown) => {
    const type = s.columns[column]!;
    params.push(sqlValue(type, v));
    return `$${params.length}::${type}`;
  };
  if (change.op === 'insert') {
    const cols = Object.keys(change.row);
    const values = cols.map((c) => p(c, change.row[c]));
    await q.query(
      `INSERT INTO ${s.name} (${cols.join(', ')}) VALUES (${values.join(', ')}) ON CONFLICT (${s.key.join(', ')}) DO NOTHING`,
      params,
    );
    return;
  }
  const set = Object.entries(change.set).map(([c, v]) => `${c} = ${p(c, v)}`);
  const where = [
    ...s.key.map((k) => `${k} = ${p(k, change.key[k])}`),
    ...Object.entries(change.when ?? {}).map(([c, v]) =>
      v === null || v === undefined ? `${c} IS NULL` : `${c} = ${p(c, v)}`,
    ),
  ];
  await q.query(`UPDATE ${s.name} SET ${set.join(', ')} WHERE ${where.join(' AND ')}`, params);
}

// ---- a table of rare events: one change function, carried out by both -------------------------------------

type RareChange<Row extends Values> = (stored: StoredEvent) => InsertChange<Row> | UpdateChange<Row> | null;

/** The writer of a table whose events are rare: each event's change as one statement, in order. */
export const rareEventWriter =
  <Row extends Values>(spec: TableSpec<Row>, change: RareChange<Row>) =>
  (q: Sql) => ({
    async apply(stored: StoredEvent): Promise<void> {
      const c = change(stored);
      if (c) await writeChange(q, spec, c);
    },
  });

/** The audit's fold of the same table: the same changes applied to `rows`. */
export const rowFold =
  <Row extends Values>(spec: TableSpec<Row>, change: RareChange<Row>) =>
  () => {
    const rows: FoldedRows<Row> = new Map();
    return {
      rows,
      apply(stored: StoredEvent, ref: EventRef): void {
        const c = change(stored);
        if (c) foldChange(spec, rows, c, ref);
      },
    };
  };
