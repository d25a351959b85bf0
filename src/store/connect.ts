import type { Kysely } from 'kysely';
import { sql } from './kysely.js';
import type { Database } from './db-types.js';
import { adapterOf, TableNames, type DialectAdapter } from './dialects/index.js';
import { describeCause, StoreError } from './errors.js';
import { passwordOf, type DbConnectionSettings } from './jdbc-url.js';
import { QueryShapes } from './query-shapes.js';

/** An open Kysely instance plus what the rest of the store needs to know about it. */
export interface Connection {
  db: Kysely<Database>;
  settings: DbConnectionSettings;
  /** What differs on this database's dialect (dialects/adapter.ts). */
  dialect: DialectAdapter;
  /** Stored table names (lower-case logical name -> real name); filled where names keep their case (MariaDB/MySQL). */
  tableNames: TableNames;
  /** SQL text of the hot statements per shape (query-shapes.ts). */
  shapes: QueryShapes;
}

/** Opens a connection (pool) and checks it with `select 1`; every failure becomes a StoreError. */
export async function connect(settings: DbConnectionSettings): Promise<Connection> {
  const dialect = adapterOf(settings.dialect);
  const tableNames = new TableNames();
  let db: Kysely<Database>;
  try {
    db = await dialect.open(settings, tableNames);
  } catch (err) {
    throw new StoreError(`cannot open database ${settings.displayUrl}: ${describeCause(err, passwordOf(settings))}`, { cause: err });
  }
  try {
    await sql`select 1`.execute(db);
    await dialect.refreshStoredNames(db, tableNames);
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw new StoreError(`cannot connect to database ${settings.displayUrl}${userPart(settings)}: ${describeCause(err, passwordOf(settings))}`, { cause: err });
  }
  return { db, settings, dialect, tableNames, shapes: new QueryShapes(() => tableNames.generation) };
}

function userPart(settings: DbConnectionSettings): string {
  const user = 'user' in settings ? settings.user : undefined;
  return user ? ` as user ${user}` : '';
}
