import { Kysely, MysqlDialect, sql } from '../kysely.js';
import type { Database } from '../db-types.js';
import { columnDefinition, createSequenceSql } from '../ddl.js';
import type { ServerSettings } from '../jdbc-url.js';
import { idsFromLockedTable } from '../sequence.js';
import type { DialectAdapter } from './adapter.js';
import { lowerNames } from './catalogue.js';
import { StoredNamesPlugin, type TableNames } from './stored-names.js';

// MariaDB and MySQL (mysql2): one adapter but for the transfer ids, MariaDB ≥ 10.3 having the RUNSEQ
// sequence and MySQL the Sequences table only (database.md §7).

// TEXT instead of VARCHAR(8096): with today's utf8mb4 default, four VARCHAR(8096) columns exceed
// the 65535-byte row limit and CREATE TABLE fails (the original only worked with latin1 schemas).
// TEXT holds 65535 bytes, i.e. at least the 8096-character limit.
const TYPES: DialectAdapter['types'] = {
  KEY: 'VARCHAR(255)', TEXT: 'TEXT', LONGTEXT: 'TEXT', CODE: 'CHAR(3)', BOOL: 'BOOLEAN',
  INT: 'INTEGER', BIGINT: 'BIGINT', BINARY: 'VARBINARY(510)', TS: 'TIMESTAMP(3)',
};

/** MySQL: the Sequences table holds RUNSEQ (no sequences). */
export const mysqlAdapter: DialectAdapter = {
  name: 'mysql',

  /** The driver is loaded on first use: a process on SQLite (most clients) does not pay for it. */
  async open(settings: ServerSettings, tableNames: TableNames) {
    const { createPool } = await import('mysql2');
    const pool = createPool({
      host: settings.host, port: settings.port, database: settings.database,
      user: settings.user, password: settings.password ?? '',
      ssl: settings.ssl ? { rejectUnauthorized: false } : undefined,
      connectionLimit: settings.maxConnections,
      connectTimeout: 10_000,
      // BIGINT as exact strings (converted to bigint by the codec), local time like the original.
      supportBigNumbers: true, bigNumberStrings: true, timezone: 'local', dateStrings: false,
    });
    pool.on('connection', () => undefined);
    return new Kysely<Database>({ dialect: new MysqlDialect({ pool }), plugins: [new StoredNamesPlugin(tableNames)] });
  },
  // Tables keep the case they were created with and names are case-sensitive on Linux.
  refreshStoredNames: (db, tableNames) => tableNames.refresh(db),
  filesCreatedByOpen: () => [],

  types: TYPES,
  // RANK is a reserved word in MySQL 8 (database.md §3.3 trap).
  columnName: (name) => (name === 'RANK' ? '`RANK`' : name),
  timestampDefault: 'DEFAULT CURRENT_TIMESTAMP(3)',
  // TRANSFERINFO is too long for an index key, so a prefix is indexed (the original's plain CREATE
  // INDEX fails on it and the error is ignored).
  indexColumn: (name) => (name === 'TRANSFERINFO' ? 'TRANSFERINFO(255)' : mysqlAdapter.columnName(name)),
  // MySQL has no IF NOT EXISTS for indexes.
  createIndexIfNotExists: false,
  booleanLiteral: (b) => (b ? '1' : '0'),
  // MySQL < 8.0.13 refuses a DEFAULT on TEXT: add, fill, no default kept.
  addColumnSql: (table, column, type, defaultValue) => [`ALTER TABLE ${table} ADD ${column} ${type} NOT NULL`, `UPDATE ${table} SET ${column} = ${defaultValue}`],
  retypeSql(table) {
    // MODIFY restates the whole definition; RULES columns stay nullable (see compatibility.md).
    return table.columns.map((column) => {
      const isKey = table.primaryKey.columns.includes(column.name);
      return `ALTER TABLE ${table.name} MODIFY ${columnDefinition(mysqlAdapter, { ...column, nullable: isKey ? false : column.nullable })}`;
    });
  },
  dropIndexSql: (name, table) => `DROP INDEX ${name} ON ${table}`,
  /** Every DDL statement commits here: what did not exist before is dropped after a failure. */
  async atomically(db, tableNames, work) {
    const before = await mysqlAdapter.listTables(db);
    try {
      return await work(db);
    } catch (err) {
      const after = await mysqlAdapter.listTables(db).catch(() => new Set<string>());
      await tableNames.refresh(db).catch(() => undefined);
      for (const name of after) {
        if (before.has(name)) continue;
        const kind = name === 'runseq' ? 'SEQUENCE' : 'TABLE';
        await sql.raw(`DROP ${kind} IF EXISTS \`${tableNames.get(name)}\``).execute(db).catch(() => undefined);
      }
      throw err;
    } finally {
      await tableNames.refresh(db).catch(() => undefined);
    }
  },

  createSequence: async () => false,
  sequenceIdsQuery: (names, n) => (n === 1
    ? sql<{ id: unknown }>`select next value for ${sql.id(names.get('runseq'))} as id`
    : sql<{ id: unknown }>`with recursive t(i) as (select 1 union all select i + 1 from t where i < ${n}) select next value for ${sql.id(names.get('runseq'))} as id from t`),
  idsFromTable: idsFromLockedTable,

  async listTables(db) {
    return lowerNames(await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = database()`.execute(db));
  },
  async listColumns(db, table) {
    return lowerNames(await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = database() and lower(table_name) = ${table.toLowerCase()}`.execute(db));
  },
  async listIndexes(db) {
    return lowerNames(await sql<{ name: string }>`select distinct index_name as name from information_schema.statistics where table_schema = database()`.execute(db));
  },

  writeBool: (b) => (b ? 1 : 0),
  // mysql2 formats a Date in local time (timezone: 'local'), as the original writes it.
  writeTs: (d) => d,
  onKeyConflictUpdate: (insert, _keys, updates) => insert.onDuplicateKeyUpdate(updates as never),
  insertedValue: (column) => sql`VALUES(${sql.ref(column)})`,
  ignoreDuplicate: (insert) => insert.ignore(),
  lockForUpdate: (query) => query.forUpdate(),
};

/** MariaDB: as MySQL, with the RUNSEQ sequence from 10.3 on. */
export const mariadbAdapter: DialectAdapter = {
  ...mysqlAdapter,
  name: 'mariadb',
  async createSequence(exec, start) {
    try {
      await exec(createSequenceSql(start));
      return true;
    } catch {
      // MariaDB < 10.3 has no sequences: the original falls back to the MySQL table.
      return false;
    }
  },
};
