// Transfer ids taken in blocks and RUNNER rows inserted in batches (database.md §7, §9.1), on
// SQLite, PostgreSQL and MariaDB (RUNSEQ sequence), and on the Sequences table that MySQL uses
// (a MariaDB database opened with the MySQL dialect).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { openStore, StoreError, type DbConnectionSettings, type Store } from '../../src/store/index.js';
import { KEEP_MS, MAX_BLOCK } from '../../src/store/id-block.js';
import { testDialects, type TestDatabase, type TestDialect } from '../helpers/databases.js';
import { RECORD_OWNER as OWNER, transferRecord } from '../helpers/transfer-record.js';

/** A submitted row, with text the drivers must keep as is. */
function transfer(specialId: bigint, over: Partial<TransferRecord> = {}): TransferRecord {
  return transferRecord(specialId, {
    updatedInfo: UpdatedInfo.TOSUBMIT, start: new Date(2024, 1, 29, 23, 59, 58, 250), stop: new Date(2024, 1, 29, 23, 59, 59, 999),
    filename: '/out/é x.csv', originalName: 'é x.csv', fileInfo: 'info {"follow":12}', transferInfo: '{"ORIGINALSIZE":18391,"follow":12}', ...over,
  });
}

function consecutive(ids: readonly bigint[]): boolean {
  return ids.every((id, i) => i === 0 || id === (ids[i - 1] as bigint) + 1n);
}

function ascending(ids: readonly bigint[]): boolean {
  return ids.every((id, i) => i === 0 || id > (ids[i - 1] as bigint));
}

interface Variant {
  label: string;
  dialect: TestDialect;
  /** The Sequences table (consecutive blocks whoever draws at the same time) rather than RUNSEQ. */
  table: boolean;
  settings(s: DbConnectionSettings): DbConnectionSettings;
}

const [sqlite, postgresql, mariadb] = testDialects() as [TestDialect, TestDialect, TestDialect];
const asIs = (s: DbConnectionSettings): DbConnectionSettings => s;
const variants: Variant[] = [
  { label: 'sqlite', dialect: sqlite, table: true, settings: asIs },
  { label: 'postgresql', dialect: postgresql, table: false, settings: asIs },
  { label: 'mariadb', dialect: mariadb, table: false, settings: asIs },
  { label: 'mysql (Sequences table, on the MariaDB server)', dialect: mariadb, table: true, settings: (s) => ({ ...s, dialect: 'mysql' }) as DbConnectionSettings },
];

/** The row as stored, without its id, keys lower-cased (column case differs by dialect). */
function withoutId(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (k.toLowerCase() !== 'specialid') out[k.toLowerCase()] = v instanceof Date ? v.getTime() : v;
  return out;
}

describe.each(variants)('transfer id blocks and batch inserts on $label', (variant) => {
  let db: TestDatabase | undefined;
  let settings: DbConnectionSettings;
  let store: Store;
  let other: Store;

  beforeAll(async () => {
    db = await variant.dialect.create();
    if (!db) return;
    settings = variant.settings(db.settings);
    store = await openStore(settings, { hostId: OWNER });
    await store.initSchema({ hostId: OWNER });
    // Another process on the same database.
    other = await openStore(settings, { hostId: OWNER });
  });

  afterAll(async () => {
    await other?.close();
    await store?.close();
    await db?.drop();
  });

  async function rowsWithIds(ids: readonly bigint[]): Promise<Array<Record<string, unknown>>> {
    return db!.query(`SELECT * FROM RUNNER WHERE SPECIALID IN (${ids.join(', ')}) ORDER BY SPECIALID`);
  }

  it('the sequence object is the expected one', async (ctx) => {
    if (variant.dialect.skip(ctx) || !db) return;
    const tables = variant.table ? await db.query<{ n: unknown }>("SELECT seq AS n FROM Sequences WHERE name = 'RUNSEQ'") : [];
    expect(tables).toHaveLength(variant.table ? 1 : 0);
  });

  it('a block: ascending and consecutive, right after the ids before it and before the ids after it; 0 gives none', async (ctx) => {
    if (variant.dialect.skip(ctx) || !db) return;
    const [before] = await store.nextTransferIds(1);
    const block = await store.nextTransferIds(250);
    const after = await store.transaction((tx) => tx.nextTransferId());
    expect(block).toHaveLength(250);
    expect(block.every((id) => typeof id === 'bigint')).toBe(true);
    expect(consecutive(block)).toBe(true);
    expect(block[0]).toBe(before! + 1n);
    expect(after).toBe(block[249]! + 1n);
    const inTx = await store.transaction((tx) => tx.nextTransferIds(3));
    expect(inTx).toEqual([after + 1n, after + 2n, after + 3n]);
    expect(await store.nextTransferIds(0)).toEqual([]);
    for (const n of [-1, 1.5, 10_001]) await expect(store.nextTransferIds(n)).rejects.toBeInstanceOf(RangeError);
  });

  it('-minimalSeq N: the next block starts at N, negative ones too; initdb -minimalSeq likewise', async (ctx) => {
    if (variant.dialect.skip(ctx) || !db) return;
    await store.resetTransferIdSequence(9007199254740993n);
    expect(await store.nextTransferIds(3)).toEqual([9007199254740993n, 9007199254740994n, 9007199254740995n]);
    await store.resetTransferIdSequence(-9223372036854775000n);
    expect(await store.nextTransferIds(2)).toEqual([-9223372036854775000n, -9223372036854774999n]);
    // A single id after a block comes from this process's own block of ids, dropped by the reset.
    expect(await store.nextTransferId()).toBe(-9223372036854774998n);
    await store.initSchema({ hostId: OWNER, minimalSeq: 5_000_000_000_000n });
    expect(await store.nextTransferId()).toBe(5_000_000_000_000n);
    expect(await store.nextTransferIds(2)).toEqual([5_000_000_000_001n, 5_000_000_000_002n]);
  });

  it('the Sequences table refuses a block beyond its maximum without moving', async (ctx) => {
    if (variant.dialect.skip(ctx) || !db || !variant.table) return;
    await store.resetTransferIdSequence(9223372036854775800n);
    expect(await store.nextTransferIds(5)).toEqual([0n, 1n, 2n, 3n, 4n].map((i) => 9223372036854775800n + i));
    await expect(store.nextTransferIds(5)).rejects.toBeInstanceOf(StoreError);
    expect(await store.nextTransferIds(2)).toEqual([9223372036854775805n, 9223372036854775806n]);
    await store.resetTransferIdSequence(6_000_000_000_000n);
  });

  it('two processes drawing blocks and single ids at once never get the same id', async (ctx) => {
    if (variant.dialect.skip(ctx) || !db) return;
    const draws: Array<Promise<bigint[]>> = [];
    for (let i = 0; i < 8; i++) {
      draws.push(store.nextTransferIds(20), other.nextTransferIds(20));
      // (Not on SQLite: two connections of one process, one in an open transaction, would wait on
      // each other, better-sqlite3's wait for the lock blocking the event loop.)
      if (variant.dialect !== sqlite) draws.push(store.transaction((tx) => tx.nextTransferIds(5)));
    }
    for (let i = 0; i < 40; i++) draws.push(store.nextTransferId().then((id) => [id]), other.nextTransferId().then((id) => [id]));
    const blocks = await Promise.all(draws);
    const all = blocks.flat();
    expect(new Set(all).size).toBe(all.length);
    for (const b of blocks) expect(variant.table ? consecutive(b) : ascending(b)).toBe(true);
  });

  it('single ids in a row come from an in-process block: distinct, increasing, never one of another process', async (ctx) => {
    if (variant.dialect.skip(ctx) || !db) return;
    const mine: bigint[] = [];
    const theirs: bigint[] = [];
    for (let i = 0; i < 3 * MAX_BLOCK; i++) {
      mine.push(await store.nextTransferId());
      if (i % 10 === 0) theirs.push(...(await other.nextTransferIds(2)), await other.nextTransferId());
    }
    expect(ascending(mine)).toBe(true);
    expect(new Set([...mine, ...theirs]).size).toBe(mine.length + theirs.length);
    // The block is reserved from the sequence: what the sequence gives now is beyond every id handed out.
    const [next] = await other.nextTransferIds(1);
    expect(mine.every((id) => id < next!)).toBe(true);
    // Blocks, not one draw per id: runs of consecutive ids longer than the 10 between the other's draws.
    let run = 1;
    let longest = 1;
    for (let i = 1; i < mine.length; i++) {
      run = mine[i] === mine[i - 1]! + 1n ? run + 1 : 1;
      longest = Math.max(longest, run);
    }
    expect(longest).toBeGreaterThan(10);
    // Idle longer than KEEP_MS: the rest of the block is dropped, the next id comes from the sequence.
    await new Promise((r) => setTimeout(r, KEEP_MS + 50));
    const fresh = await store.nextTransferId();
    expect(fresh).toBeGreaterThan(next!);
  });

  it('insertMany writes each row as insert does, in ascending id order, any count', async (ctx) => {
    if (variant.dialect.skip(ctx) || !db) return;
    const [single, ...ids] = await store.nextTransferIds(231);
    await store.runner.insert(transfer(single!));
    await store.runner.insertMany(ids.map((id) => transfer(id)));
    const expected = withoutId((await rowsWithIds([single!]))[0]!);
    const rows = await rowsWithIds(ids);
    expect(rows).toHaveLength(230);
    for (const row of rows) expect(withoutId(row)).toEqual(expected);
    expect(await store.runner.get(transfer(ids[229]!))).toEqual(transfer(ids[229]!));
    await store.runner.insertMany([]);
    const [one] = await store.nextTransferIds(1);
    await store.runner.insertMany([transfer(one!, { requested: 'partnerB', retrieveMode: false })]);
    expect(await store.runner.get(transfer(one!, { requested: 'partnerB' }))).toEqual(transfer(one!, { requested: 'partnerB', retrieveMode: false }));
  });

  it('a failing batch inserts nothing: an existing key in any statement, a key twice, inside a transaction', async (ctx) => {
    if (variant.dialect.skip(ctx) || !db) return;
    const ids = await store.nextTransferIds(250);
    await store.runner.insert(transfer(ids[240]!));
    const err = await store.runner.insertMany(ids.map((id) => transfer(id))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toContain('none was inserted');
    expect((await rowsWithIds(ids)).length).toBe(1);
    const small = await store.nextTransferIds(3);
    await expect(store.runner.insertMany([transfer(small[0]!), transfer(small[1]!), transfer(small[0]!)])).rejects.toBeInstanceOf(StoreError);
    expect(await rowsWithIds(small)).toEqual([]);
    await expect(store.transaction(async (tx) => {
      await tx.runner.insertMany(small.map((id) => transfer(id)));
      await tx.runner.insertMany(ids.slice(0, 200).map((id) => transfer(id)));
      throw new Error('abort');
    })).rejects.toThrow('abort');
    expect((await rowsWithIds([...small, ...ids.slice(0, 200)])).length).toBe(0);
    await store.transaction((tx) => tx.runner.insertMany(ids.slice(0, 200).map((id) => transfer(id))));
    expect((await rowsWithIds(ids.slice(0, 200))).length).toBe(200);
  });
});
