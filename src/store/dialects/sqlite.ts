import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, sql } from '../kysely.js';
import { makeDirsSync } from '../../fs/make-dirs.js';
import { formatLocalTimestamp, readBig } from '../codec.js';
import type { Database } from '../db-types.js';
import { StoreError } from '../errors.js';
import type { SqliteSettings } from '../jdbc-url.js';
import { block, exhausted, SEQUENCE_MAX } from '../sequence.js';
import type { DialectAdapter } from './adapter.js';
import { lowerNames } from './catalogue.js';
import { addColumnWithDefault, dropIndexIfExists, excludedValue, inTransaction, onConflictDoNothing, onConflictUpdate, ORIGINAL_TYPES } from './standard-sql.js';
import { GroupCommitSqliteDialect, StatementCache } from './sqlite-driver.js';
import { StoredNamesPlugin } from './stored-names.js';

/** How long SQLite waits for another writer before failing (WAL lets readers run meanwhile). */
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/**
 * The embedded database (better-sqlite3), svc-r66's default. Dynamically typed, no sequences (the
 * Sequences table holds RUNSEQ), no FOR UPDATE (a write transaction already excludes other
 * writers), timestamps stored as local-time text.
 */
export const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',

  async open(settings: SqliteSettings) {
    if (settings.filename !== ':memory:') makeDirsSync(dirname(settings.filename));
    const database = new SqliteDatabase(settings.filename, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    // Every integer comes back as bigint so SPECIALID never passes through a lossy number.
    database.defaultSafeIntegers(true);
    if (settings.filename !== ':memory:') database.pragma('journal_mode = WAL');
    // NORMAL is durable across process crashes in WAL mode and avoids an fsync per commit.
    database.pragma('synchronous = NORMAL');
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    return new Kysely<Database>({ dialect: new GroupCommitSqliteDialect(new StatementCache(database)), plugins: [new StoredNamesPlugin()] });
  },
  refreshStoredNames: async () => undefined,
  filesCreatedByOpen(settings: SqliteSettings) {
    const file = settings.filename;
    if (file === ':memory:' || existsSync(file)) return [];
    return ['', '-wal', '-shm', '-journal'].map((suffix) => file + suffix);
  },

  // SQLite keeps H2's declared types (informative only, SQLite is dynamically typed) except BLOB,
  // which gives the key column the BLOB affinity.
  types: { ...ORIGINAL_TYPES, BINARY: 'BLOB' },
  columnName: (name) => name,
  timestampDefault: "DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now', 'localtime'))",
  indexColumn: (name) => name,
  createIndexIfNotExists: true,
  booleanLiteral: (b) => (b ? '1' : '0'),
  addColumnSql: addColumnWithDefault,
  // Dynamically typed: there is nothing to retype, and no SQLite schema of the original ever existed.
  retypeSql: () => [],
  dropIndexSql: dropIndexIfExists,
  atomically: (db, _tableNames, work) => inTransaction(db, work),

  createSequence: async () => false,
  sequenceIdsQuery() {
    throw new StoreError('SQLite has no sequences: the transfer ids come from the Sequences table');
  },
  async idsFromTable(db, _inTransaction, n) {
    // One statement: the increment and the value before it. The bound keeps SQLite from turning an
    // overflowing sum into a floating-point value.
    // (bigint parameters: better-sqlite3 binds a number as a REAL, which would round the sum.)
    const step = BigInt(n);
    const rows = await sql<{ id: unknown }>`update Sequences set seq = seq + ${step} where name = 'RUNSEQ' and seq <= ${SEQUENCE_MAX - step} returning seq - ${step} as id`.execute(db);
    const id = rows.rows[0]?.id;
    if (id === undefined) {
      const row = await sql<{ seq: unknown }>`select seq from Sequences where name = 'RUNSEQ'`.execute(db);
      if (row.rows.length === 0) throw new StoreError('the transfer id sequence (row RUNSEQ of table Sequences) is missing: run initdb');
      throw exhausted(n);
    }
    return block(readBig(id), n);
  },

  async listTables(db) {
    return lowerNames(await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db));
  },
  async listColumns(db, table) {
    return lowerNames(await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db));
  },
  async listIndexes(db) {
    return lowerNames(await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db));
  },

  writeBool: (b) => (b ? 1 : 0),
  writeTs: (d) => formatLocalTimestamp(d),
  onKeyConflictUpdate: onConflictUpdate,
  insertedValue: excludedValue,
  ignoreDuplicate: onConflictDoNothing,
  // No FOR UPDATE: a write transaction already excludes other writers.
  lockForUpdate: (query) => query,
};
