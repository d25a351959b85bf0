import type { InsertObject, Kysely } from 'kysely';
import type { Database } from '../db-types.js';
import { isDuplicateKey, StoreError } from '../errors.js';
import type { DialectName } from '../jdbc-url.js';
import type { QueryShapes } from '../query-shapes.js';

/** What a repository needs: the Kysely handle (the pool, or a transaction) and the dialect. */
export interface RepoContext {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Compiled SQL of the hot statements, shared by the pool and its transactions. */
  shapes?: QueryShapes;
}

type TableName = keyof Database;

/** INSERT that reports a duplicate key as a StoreError naming the table and key. */
export async function insertRow<T extends TableName>(ctx: RepoContext, table: T, row: InsertObject<Database, T>, what: string): Promise<void> {
  try {
    await ctx.db.insertInto(table).values(row).execute();
  } catch (err) {
    if (isDuplicateKey(err)) throw new StoreError(`${what} already exists in ${table.toUpperCase()}`, { cause: err });
    throw err;
  }
}

/**
 * Insert, or replace every non-key column when the key exists, in one statement:
 * ON CONFLICT on PostgreSQL/SQLite, ON DUPLICATE KEY UPDATE on MariaDB/MySQL.
 */
export async function upsertRow<T extends TableName>(ctx: RepoContext, table: T, row: InsertObject<Database, T>, keys: readonly string[]): Promise<void> {
  const values = row as Record<string, unknown>;
  const updates = Object.fromEntries(Object.entries(values).filter(([k]) => !keys.includes(k)));
  const insert = ctx.db.insertInto(table).values(row);
  if (ctx.dialect === 'mysql' || ctx.dialect === 'mariadb') {
    await insert.onDuplicateKeyUpdate(updates as never).execute();
  } else {
    await insert.onConflict((oc) => oc.columns(keys as never).doUpdateSet(updates as never)).execute();
  }
}

/** Number of rows touched by an UPDATE/DELETE result, whatever the driver. */
export function affected(result: { numUpdatedRows?: bigint; numDeletedRows?: bigint } | readonly { numUpdatedRows?: bigint; numDeletedRows?: bigint }[]): number {
  const list = Array.isArray(result) ? result : [result];
  let n = 0n;
  for (const r of list as { numUpdatedRows?: bigint; numDeletedRows?: bigint }[]) n += r.numUpdatedRows ?? r.numDeletedRows ?? 0n;
  return Number(n);
}
