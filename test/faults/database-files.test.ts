/**
 * A SQLite database whose files change under the running process (issue 21 item 5): its `-shm`
 * truncated by another process (which, without the guard, killed the process with SIGBUS at the next
 * statement), its file deleted or replaced. Every later statement fails with one clear StoreError,
 * the process lives on, and the connection still closes. A full file system (root only: a small
 * tmpfs) fails the writes with SQLite's error and the database works again once there is room.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, renameSync, copyFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { sql } from '../../src/store/kysely.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/store/connect.js';
import { StoreError } from '../../src/store/errors.js';
import { canMakeImmutable } from './immutable.js';

if (!canMakeImmutable()) console.log('test/faults/database-files.test.ts: the unwritable-files case is skipped (chattr +i needs root and a file system with attributes)');

type Db = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a test table outside the schema

describe('a SQLite database whose files change under the process', () => {
  let dir: string;
  let file: string;
  let db: Db;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-db-fault-'));
    file = join(dir, 'test.sqlite');
    db = (await connect({ dialect: 'sqlite', filename: file, displayUrl: file, warnings: [] })).db as Db;
    await sql`create table t (id integer primary key, v blob)`.execute(db);
    for (let i = 0; i < 200; i++) await sql`insert into t (v) values (${Buffer.alloc(2000)})`.execute(db);
    // A turn later: the guard has seen the -shm.
    await new Promise((resolve) => setImmediate(resolve));
    await sql`select count(*) from t`.execute(db);
    await new Promise((resolve) => setImmediate(resolve));
  });

  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (): Promise<unknown> => sql`insert into t (v) values (${Buffer.alloc(4000)})`.execute(db);
  const read = (): Promise<unknown> => sql`select count(*) as n from t`.execute(db);

  it('a truncated -shm fails every statement with a clear error instead of a SIGBUS', async () => {
    truncateSync(`${file}-shm`, 0);
    await expect(write()).rejects.toThrow(StoreError);
    await expect(write()).rejects.toThrow(`the database file ${file} had its shared-memory file (-shm) truncated by another process while the server ran`);
    await expect(read()).rejects.toThrow(/no database work is possible until it is restarted/);
  });

  it('a deleted database file fails the next statement instead of writing into the unlinked file', async () => {
    for (const suffix of ['', '-wal', '-shm']) unlinkSync(`${file}${suffix}`);
    await expect(write()).rejects.toThrow(`the database file ${file} was deleted while the server ran`);
    await expect(read()).rejects.toThrow(StoreError);
  });

  it('a database file replaced by another fails the next statement', async () => {
    copyFileSync(file, join(dir, 'copy.sqlite'));
    renameSync(join(dir, 'copy.sqlite'), file);
    await expect(read()).rejects.toThrow(`the database file ${file} was replaced by another file while the server ran`);
  });

  it.skipIf(!canMakeImmutable())('files made unwritable (chattr +i) refuse every statement instead of a SIGBUS, and work again after', async () => {
    const files = [file, `${file}-wal`, `${file}-shm`];
    execFileSync('chattr', ['+i', ...files]);
    try {
      // A turn later: the guard looks once per turn.
      await new Promise((resolve) => setImmediate(resolve));
      await expect(write()).rejects.toThrow(StoreError);
      await expect(read()).rejects.toThrow(`the database file ${file} cannot be written (EPERM): no database work is possible until it can be written again`);
    } finally {
      execFileSync('chattr', ['-i', ...files]);
    }
    await new Promise((resolve) => setImmediate(resolve));
    await write();
    expect(((await read()) as { rows: Array<{ n: bigint }> }).rows[0]?.n).toBe(201n);
  });

  it('an unchanged database keeps working across turns', async () => {
    for (let i = 0; i < 5; i++) {
      await write();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(((await read()) as { rows: Array<{ n: bigint }> }).rows[0]?.n).toBe(205n);
  });
});

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('test/faults/database-files.test.ts: the full-disk case is skipped (mounting a tmpfs needs root; CI runs as root)');

describe.skipIf(!isRoot)('a SQLite database on a full file system', () => {
  it('writes fail with a clear error while it is full, the connection lives on and works again after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-db-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]);
    const file = join(dir, 'full.sqlite');
    const db = (await connect({ dialect: 'sqlite', filename: file, displayUrl: file, warnings: [] })).db as Db;
    try {
      await sql`create table t (id integer primary key, v blob)`.execute(db);
      await sql`insert into t (v) values (${Buffer.alloc(1000)})`.execute(db);
      const filler = join(dir, 'filler');
      writeFileSync(filler, Buffer.alloc(0));
      // Fill the file system but a few KiB.
      try {
        for (;;) writeFileSync(filler, Buffer.alloc(256 << 10), { flag: 'a' });
      } catch {
        // ENOSPC: full.
      }
      let failure: unknown;
      for (let i = 0; i < 200 && failure === undefined; i++) {
        await sql`insert into t (v) values (${Buffer.alloc(8000)})`.execute(db).catch((e: unknown) => (failure = e));
      }
      expect(String((failure as Error)?.message)).toMatch(/database or disk is full/);
      unlinkSync(filler);
      await sql`insert into t (v) values (${Buffer.alloc(1000)})`.execute(db);
      const n = ((await sql`select count(*) as n from t`.execute(db)) as { rows: Array<{ n: bigint }> }).rows[0]?.n;
      expect(n).toBeGreaterThan(1n);
    } finally {
      await db.destroy();
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
