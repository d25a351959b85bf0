import type { InsertObject, Kysely } from 'kysely';
import type { Database } from '../db-types.js';
import { isDuplicateKey, StoreError } from '../errors.js';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { QueryShapes } from '../query-shapes.js';

/** What a repository needs: the Kysely handle (the pool, or a transaction) and the dialect's adapter. */
export interface RepoContext {
  db: Kysely<Database>;
  dialect: DialectAdapter;
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
 * Insert, or replace every non-key column when the key exists, in one statement (ON CONFLICT, or
 * ON DUPLICATE KEY UPDATE on MariaDB/MySQL: the dialect's adapter writes it).
 */
export async function upsertRow<T extends TableName>(ctx: RepoContext, table: T, row: InsertObject<Database, T>, keys: readonly string[]): Promise<void> {
  const values = row as Record<string, unknown>;
  const updates = Object.fromEntries(Object.entries(values).filter(([k]) => !keys.includes(k)));
  await ctx.dialect.onKeyConflictUpdate(ctx.db.insertInto(table).values(row), keys, updates).execute();
}

/** Rows per multi-row upsert: 500 x 10 columns stays far below every driver's parameter limit. */
const UPSERT_BATCH = 500;

/**
 * upsertRow for many rows with the same columns, UPSERT_BATCH rows per statement (loadauth of a
 * 100,000-partner file: 200 statements instead of 100,000 round trips). The rows must not repeat
 * a key.
 */
export async function upsertRows<T extends TableName>(ctx: RepoContext, table: T, rows: ReadonlyArray<InsertObject<Database, T>>, keys: readonly string[]): Promise<void> {
  const first = rows[0] as Record<string, unknown> | undefined;
  if (first === undefined) return;
  const columns = Object.keys(first).filter((k) => !keys.includes(k));
  for (let i = 0; i < rows.length; i += UPSERT_BATCH) {
    const insert = ctx.db.insertInto(table).values(rows.slice(i, i + UPSERT_BATCH) as never);
    await ctx.dialect.onKeyConflictUpdate(insert, keys, Object.fromEntries(columns.map((c) => [c, ctx.dialect.insertedValue(c)]))).execute();
  }
}

/** Number of rows touched by an UPDATE/DELETE result, whatever the driver. */
export function affected(result: { numUpdatedRows?: bigint; numDeletedRows?: bigint } | readonly { numUpdatedRows?: bigint; numDeletedRows?: bigint }[]): number {
  const list = Array.isArray(result) ? result : [result];
  let n = 0n;
  for (const r of list as { numUpdatedRows?: bigint; numDeletedRows?: bigint }[]) n += r.numUpdatedRows ?? r.numDeletedRows ?? 0n;
  return Number(n);
}
