import { Kysely, PostgresDialect, sql } from '../kysely.js';
import type pg from 'pg';
import type { Database } from '../db-types.js';
import { createSequenceSql } from '../ddl.js';
import type { ServerSettings } from '../jdbc-url.js';
import { idsFromLockedTable } from '../sequence.js';
import type { DialectAdapter } from './adapter.js';
import { lowerNames } from './catalogue.js';
import { addColumnWithDefault, dropIndexIfExists, excludedValue, inTransaction, onConflictDoNothing, onConflictUpdate, ORIGINAL_TYPES } from './standard-sql.js';

/**
 * PostgreSQL (pg): native booleans, transactional DDL, the RUNSEQ sequence, unquoted names folded
 * to lower case (so no name mapping), the `currentSchema` of the URL first in `search_path`.
 */
export const postgresqlAdapter: DialectAdapter = {
  name: 'postgresql',

  /** The driver is loaded on first use: a process on SQLite (most clients) does not pay for it. */
  async open(settings: ServerSettings) {
    const { default: pgDriver } = await import('pg');
    const pool = new pgDriver.Pool({
      host: settings.host, port: settings.port, database: settings.database,
      user: settings.user, password: settings.password,
      ssl: settings.ssl ? { rejectUnauthorized: false } : undefined,
      max: settings.maxConnections,
      connectionTimeoutMillis: 10_000,
      options: settings.schema ? `-c search_path=${settings.schema}` : undefined,
      types: { getTypeParser: pgTypeParser(pgDriver.types) } as unknown as pg.CustomTypesConfig,
    });
    // An idle client losing its server must not crash the process; the next query reports it.
    pool.on('error', () => undefined);
    // Nor a checked-out one (in a transaction) whose connection breaks: its query reports it. Seen
    // when a cluster member loses the database (test/cluster/fencing.test.ts).
    pool.on('connect', (client) => client.on('error', () => undefined));
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  },
  refreshStoredNames: async () => undefined,
  filesCreatedByOpen: () => [],

  types: { ...ORIGINAL_TYPES, BINARY: 'BYTEA' },
  columnName: (name) => name,
  timestampDefault: 'DEFAULT CURRENT_TIMESTAMP(3)',
  indexColumn: (name) => name,
  createIndexIfNotExists: true,
  booleanLiteral: (b) => (b ? 'TRUE' : 'FALSE'),
  addColumnSql: addColumnWithDefault,
  retypeSql(table) {
    // PostgreSQL keeps the nullability it had (database.md §2: NOT NULL is not added there).
    return table.columns.map((column) => `ALTER TABLE ${table.name} ALTER COLUMN ${column.name} TYPE ${postgresqlAdapter.types[column.type]}`);
  },
  dropIndexSql: dropIndexIfExists,
  atomically: (db, _tableNames, work) => inTransaction(db, work),

  async createSequence(exec, start) {
    await exec(createSequenceSql(start));
    return true;
  },
  sequenceIdsQuery: (_names, n) => sql<{ id: unknown }>`select nextval('runseq') as id from generate_series(1, cast(${n} as integer))`,
  idsFromTable: idsFromLockedTable,

  async listTables(db) {
    return lowerNames(await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()
      union all select sequence_name as name from information_schema.sequences where sequence_schema = current_schema()`.execute(db));
  },
  async listColumns(db, table) {
    return lowerNames(await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table.toLowerCase()}`.execute(db));
  },
  async listIndexes(db) {
    return lowerNames(await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db));
  },

  writeBool: (b) => b,
  // pg formats a Date in local time, as the original writes it.
  writeTs: (d) => d,
  onKeyConflictUpdate: onConflictUpdate,
  insertedValue: excludedValue,
  ignoreDuplicate: onConflictDoNothing,
  lockForUpdate: (query) => query.forUpdate(),
};

const PG_INT8 = 20;
/** BIGINT -> bigint; everything else as pg does by default (timestamps as local-time Dates). */
function pgTypeParser(types: typeof pg.types): (oid: number, format?: 'text' | 'binary') => (value: string) => unknown {
  return (oid, format) => {
    if (oid === PG_INT8) return (value: string) => BigInt(value);
    return types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  };
}
