import type { Expression, InsertQueryBuilder, InsertResult, Kysely } from 'kysely';
import { sql } from '../kysely.js';
import type { Database } from '../db-types.js';
import type { DialectAdapter } from './adapter.js';

// What SQLite and PostgreSQL write the same way (the original's column types, ON CONFLICT,
// transactional DDL, IF EXISTS); the MariaDB/MySQL adapter has its own (mysql.ts).

/** The column types the original creates (its H2/PostgreSQL schema, database.md §2); an adapter changes the binary type. */
export const ORIGINAL_TYPES: Omit<DialectAdapter['types'], 'BINARY'> = {
  KEY: 'VARCHAR(255)', TEXT: 'VARCHAR(8096)', LONGTEXT: 'VARCHAR(12288)', CODE: 'CHAR(3)', BOOL: 'BOOLEAN',
  INT: 'INTEGER', BIGINT: 'BIGINT', TS: 'TIMESTAMP(3)',
};

export function addColumnWithDefault(table: string, column: string, type: string, defaultValue: string): string[] {
  return [`ALTER TABLE ${table} ADD ${column} ${type} DEFAULT ${defaultValue} NOT NULL`];
}

export function dropIndexIfExists(name: string): string {
  return `DROP INDEX IF EXISTS ${name}`;
}

export function onConflictUpdate<T extends keyof Database>(insert: InsertQueryBuilder<Database, T, InsertResult>, keys: readonly string[], updates: Record<string, unknown>): InsertQueryBuilder<Database, T, InsertResult> {
  return insert.onConflict((oc) => oc.columns(keys as never).doUpdateSet(updates as never));
}

export function excludedValue(column: string): Expression<unknown> {
  return sql.ref(`excluded.${column}`);
}

export function onConflictDoNothing<T extends keyof Database>(insert: InsertQueryBuilder<Database, T, InsertResult>, keys: readonly string[]): InsertQueryBuilder<Database, T, InsertResult> {
  return insert.onConflict((oc) => oc.columns(keys as never).doNothing());
}

/** DDL is transactional: one transaction makes it all or nothing. */
export function inTransaction<T>(db: Kysely<Database>, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}
