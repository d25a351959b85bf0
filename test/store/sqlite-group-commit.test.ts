// SQLite row changes committed in groups (decision 0018): on a real database file, seen from a
// second connection the way another process would see it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { sql } from '../../src/store/kysely.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/store/connect.js';

type Db = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a test table outside the schema

describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let db: Db;
  let other: SqliteDatabase.Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-group-commit-'));
    file = join(dir, 'test.sqlite');
    db = (await connect({ dialect: 'sqlite', filename: file, displayUrl: file, warnings: [] })).db as Db;
    await sql`create table t (id integer primary key, v text)`.execute(db);
    await sql`insert into t (id, v) values (1, 'one')`.execute(db);
    other = new SqliteDatabase(file);
  });

  afterEach(async () => {
    other.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const seenByOther = (): Array<{ id: number; v: string }> => other.prepare('select id, v from t order by id').all() as Array<{ id: number; v: string }>;
  const walFrames = (): number => (other.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]?.log ?? -1;

  it('changes made in one turn are committed together, each caller resumed after the commit', async () => {
    other.pragma('wal_checkpoint(TRUNCATE)');
    const writes = Array.from({ length: 20 }, (_, i) => db.updateTable('t').set({ v: `v${i}` }).where('id', '=', 1).execute());
    // Queued, not committed yet: another connection still sees the old value.
    expect(seenByOther()).toEqual([{ id: 1, v: 'one' }]);
    const results = await Promise.all(writes);
    expect(results.map((r) => r[0]?.numUpdatedRows)).toEqual(Array.from({ length: 20 }, () => 1n));
    expect(seenByOther()).toEqual([{ id: 1, v: 'v19' }]);
    // One commit of one page (plus its commit frame), not 20 commits of it.
    expect(walFrames()).toBeLessThanOrEqual(2);
  });

  it('a read sees the changes queued before it', async () => {
    const write = db.insertInto('t').values({ id: 2, v: 'two' }).execute();
    const rows = await db.selectFrom('t').select(['id', 'v']).orderBy('id').execute();
    expect(rows).toEqual([{ id: 1n, v: 'one' }, { id: 2n, v: 'two' }]);
    await write;
    expect(seenByOther()).toHaveLength(2);
  });

  it('a read of another table leaves the queued changes to their group; one naming their table commits them first', async () => {
    await sql`create table u (id integer primary key, t_id integer)`.execute(db);
    await sql`insert into u (id, t_id) values (1, 1)`.execute(db);
    other.pragma('wal_checkpoint(TRUNCATE)');
    const first = db.updateTable('t').set({ v: 'first' }).where('id', '=', 1).execute();
    // Another table, and a column whose name merely starts like the queued table's: not a read of t.
    expect(await db.selectFrom('u').select(['id', 't_id']).execute()).toEqual([{ id: 1n, t_id: 1n }]);
    expect(seenByOther()).toEqual([{ id: 1, v: 'one' }]);
    const second = db.updateTable('t').set({ v: 'second' }).where('id', '=', 1).execute();
    await Promise.all([first, second]);
    expect(seenByOther()).toEqual([{ id: 1, v: 'second' }]);
    // Both changes in one commit of one page (plus its commit frame), despite the read between them.
    expect(walFrames()).toBeLessThanOrEqual(2);

    // A join or a subquery through the queued table sees its change.
    const third = db.updateTable('t').set({ v: 'third' }).where('id', '=', 1).execute();
    const joined = await db.selectFrom('u').innerJoin('t', 't.id', 'u.t_id').select(['u.id', 't.v']).execute();
    expect(joined).toEqual([{ id: 1n, v: 'third' }]);
    expect(seenByOther()).toEqual([{ id: 1, v: 'third' }]);
    await third;
    const fourth = db.updateTable('t').set({ v: 'fourth' }).where('id', '=', 1).execute();
    const sub = await sql<{ v: string }>`select (select v from "T" where id = u.t_id) as v from u`.execute(db);
    expect(sub.rows).toEqual([{ v: 'fourth' }]);
    await fourth;
  });

  it('a change whose table cannot be told makes every read commit the queue first', async () => {
    await sql`create table u (id integer primary key)`.execute(db);
    // A hand-written change the driver cannot read its table from (a comment in the way).
    const change = sql`update /* hand-written */ t set v = 'commented' where id = 1`.execute(db);
    await db.selectFrom('u').selectAll().execute();
    expect(seenByOther()).toEqual([{ id: 1, v: 'commented' }]);
    await change;
  });

  it('a change through a schema-qualified, quoted name still counts as its table', async () => {
    const change = sql`update "main"."t" set v = 'qualified' where id = 1`.execute(db);
    expect(await db.selectFrom('t').select('v').execute()).toEqual([{ v: 'qualified' }]);
    await change;
  });

  it('a failing change fails its caller alone; the rest of the group is committed', async () => {
    const ok1 = db.insertInto('t').values({ id: 2, v: 'two' }).execute();
    const duplicate = db.insertInto('t').values({ id: 1, v: 'again' }).execute();
    const ok2 = db.updateTable('t').set({ v: 'uno' }).where('id', '=', 1).execute();
    await expect(duplicate).rejects.toThrow(/UNIQUE constraint failed/);
    await ok1;
    await ok2;
    expect(seenByOther()).toEqual([{ id: 1, v: 'uno' }, { id: 2, v: 'two' }]);
  });

  it('an explicit transaction has the connection to itself: queued changes before it, others after it', async () => {
    const before = db.insertInto('t').values({ id: 2, v: 'before' }).execute();
    let outsideDone = false;
    const tx = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ id: 3, v: 'inside' }).execute();
      // A change from outside the transaction waits for its end (it would be rolled back with it).
      const outside = db.insertInto('t').values({ id: 4, v: 'outside' }).execute().then(() => (outsideDone = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(outsideDone).toBe(false);
      await trx.insertInto('t').values({ id: 5, v: 'inside too' }).execute();
      throw Object.assign(new Error('roll it back'), { outside });
    });
    const err = (await tx.catch((e: unknown) => e)) as Error & { outside: Promise<unknown> };
    expect(err.message).toBe('roll it back');
    await before;
    await err.outside;
    expect(seenByOther()).toEqual([{ id: 1, v: 'one' }, { id: 2, v: 'before' }, { id: 4, v: 'outside' }]);
  });

  it('a kept read names its columns anew after a schema change, made here or by another process', async () => {
    const readAll = (): Promise<unknown[]> => db.selectFrom('t').selectAll().orderBy('id').execute();
    // Nothing found: no names needed; then the names are asked once and kept.
    expect(await db.selectFrom('t').selectAll().where('id', '=', 99).execute()).toEqual([]);
    expect(await readAll()).toEqual([{ id: 1n, v: 'one' }]);
    // A column added by this connection: the same SQL text, its kept statement re-prepared by SQLite.
    await sql`alter table t add column w text default 'x'`.execute(db);
    expect(await readAll()).toEqual([{ id: 1n, v: 'one', w: 'x' }]);
    // One added by another process (a row of another width) and one it dropped.
    other.exec(`alter table t add column z integer default 7`);
    expect(await readAll()).toEqual([{ id: 1n, v: 'one', w: 'x', z: 7n }]);
    other.exec('alter table t drop column w');
    expect(await readAll()).toEqual([{ id: 1n, v: 'one', z: 7n }]);
    // A column swapped for another here, the width unchanged: only the DDL seen here tells.
    await sql`alter table t drop column z`.execute(db);
    await sql`alter table t add column y text default 'why'`.execute(db);
    expect(await readAll()).toEqual([{ id: 1n, v: 'one', y: 'why' }]);
  });
});
