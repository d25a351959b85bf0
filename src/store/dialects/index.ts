import type { DbConnectionSettings, DialectName } from '../jdbc-url.js';
import type { DialectAdapter } from './adapter.js';
import { mariadbAdapter, mysqlAdapter } from './mysql.js';
import { postgresqlAdapter } from './postgresql.js';
import { sqliteAdapter } from './sqlite.js';

export type { DialectAdapter } from './adapter.js';
export { TableNames } from './stored-names.js';

const ADAPTERS: Readonly<Record<DialectName, DialectAdapter>> = {
  sqlite: sqliteAdapter, postgresql: postgresqlAdapter, mysql: mysqlAdapter, mariadb: mariadbAdapter,
};

/** The adapter of a dialect the store speaks. */
export function adapterOf(name: DialectName): DialectAdapter {
  return ADAPTERS[name];
}

/**
 * The files a first open of `settings` creates (a new SQLite file and its journals; none for a
 * database server): what a tool removes when its first use fails, so no half-made database stays.
 */
export function filesCreatedByOpen(settings: DbConnectionSettings): string[] {
  return adapterOf(settings.dialect).filesCreatedByOpen(settings);
}
