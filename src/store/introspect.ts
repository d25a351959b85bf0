import { sql, type Kysely } from 'kysely';
import type { DialectName } from './jdbc-url.js';

// What exists in the database, asked from each dialect's catalogue. Every name is returned in
// lower case so callers compare without caring how the dialect stored it (database.md §1.2).

/** Lower-case names of the tables (and, on MariaDB, sequences) of the current schema. */
export async function listTables(db: Kysely<unknown>, dialect: DialectName): Promise<Set<string>> {
  const query = {
    sqlite: sql<{ name: string }>`select name from sqlite_master where type = 'table'`,
    postgresql: sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()
      union all select sequence_name as name from information_schema.sequences where sequence_schema = current_schema()`,
    mysql: sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = database()`,
    mariadb: sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = database()`,
  }[dialect];
  const rows = await query.execute(db);
  return new Set(rows.rows.map((r) => r.name.toLowerCase()));
}

/** Lower-case column names of `table`. */
export async function listColumns(db: Kysely<unknown>, dialect: DialectName, table: string): Promise<Set<string>> {
  let rows: { name: string }[];
  if (dialect === 'sqlite') {
    rows = (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows;
  } else if (dialect === 'postgresql') {
    rows = (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table.toLowerCase()}`.execute(db)).rows;
  } else {
    rows = (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = database() and lower(table_name) = ${table.toLowerCase()}`.execute(db)).rows;
  }
  return new Set(rows.map((r) => r.name.toLowerCase()));
}

/** Lower-case index names of the current schema. */
export async function listIndexes(db: Kysely<unknown>, dialect: DialectName): Promise<Set<string>> {
  const query = {
    sqlite: sql<{ name: string }>`select name from sqlite_master where type = 'index'`,
    postgresql: sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()`,
    mysql: sql<{ name: string }>`select distinct index_name as name from information_schema.statistics where table_schema = database()`,
    mariadb: sql<{ name: string }>`select distinct index_name as name from information_schema.statistics where table_schema = database()`,
  }[dialect];
  const rows = await query.execute(db);
  return new Set(rows.rows.map((r) => r.name.toLowerCase()));
}
