import type { Compilable, QueryResult } from 'kysely';
import { CompiledQuery } from './kysely.js';
import type { Kysely } from 'kysely';
import type { Database } from './db-types.js';

// Hot statements (RUNNER by key, a rule, a host) are built with kysely once per shape: the SQL text
// kysely compiles for a shape is kept, and later calls of that shape run it with their own
// parameters (decision 0014). Kysely still runs the statement (connection, plugins' result
// transformation), so only building and compiling the query is skipped.

/** How many shapes are kept at most; beyond that the cache starts again (a safety net only). */
const MAX_SHAPES = 256;

/** SQL text per query shape, for one database connection (pool). */
export class QueryShapes {
  private readonly sqlByShape = new Map<string, string>();
  private seenGeneration: number;

  /**
   * `generation` changes when compiled text may change for the same shape (MariaDB/MySQL table
   * names re-read after DDL): the cache is emptied then.
   */
  constructor(private readonly generation: () => number = () => 0) {
    this.seenGeneration = generation();
  }

  get(shape: string): string | undefined {
    const g = this.generation();
    if (g !== this.seenGeneration) {
      this.sqlByShape.clear();
      this.seenGeneration = g;
    }
    return this.sqlByShape.get(shape);
  }

  set(shape: string, sqlText: string): void {
    if (this.sqlByShape.size >= MAX_SHAPES) this.sqlByShape.clear();
    this.sqlByShape.set(shape, sqlText);
  }

  get size(): number {
    return this.sqlByShape.size;
  }
}

/**
 * Runs the query of `shape` with `params`. The first time, `build()` makes it with kysely; its SQL
 * is kept only when kysely's parameters are exactly `params`, in order (so a shape whose SQL would
 * inline a value, or drop an undefined one, is never cached and always built).
 */
export async function executeShape<R>(db: Kysely<Database>, shapes: QueryShapes | undefined, shape: string, params: readonly unknown[], build: () => Compilable<R>): Promise<QueryResult<R>> {
  // kysely leaves undefined values out of the SQL: such a call is not of the cached shape.
  const cached = params.includes(undefined) ? undefined : shapes?.get(shape);
  if (cached !== undefined) return db.executeQuery(CompiledQuery.raw(cached, params as unknown[]) as CompiledQuery<R>);
  const compiled = build().compile();
  if (shapes && !params.includes(undefined) && sameParams(compiled.parameters, params)) shapes.set(shape, compiled.sql);
  return db.executeQuery(compiled);
}

function sameParams(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (!Object.is(a[i], b[i])) return false;
  }
  return true;
}

/** Rows touched by a statement run through {@link executeShape} (INSERT/UPDATE/DELETE). */
export function affectedRows(result: QueryResult<unknown>): number {
  return Number(result.numAffectedRows ?? 0n);
}
