import { IdentifierNode, OperationNodeTransformer, sql } from '../kysely.js';
import type { Kysely, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, TableNode, UnknownRow } from 'kysely';
import type { Database } from '../db-types.js';

/**
 * Real table names of a MariaDB/MySQL schema: there tables keep the case they were created with
 * (`RUNNER`) and names are case-sensitive on Linux, so lower-case queries must be mapped
 * (database.md §1.2). Tables not yet created map to the original's upper-case creation names, which
 * is also what every name is on a dialect that never refreshes (SQLite, PostgreSQL: unquoted names
 * there ignore case).
 */
export class TableNames {
  private readonly names = new Map<string, string>();
  /** Incremented by each refresh: SQL compiled before it may name tables differently. */
  generation = 0;

  /** The stored name of logical table `name` (lower case). */
  get(name: string): string {
    return this.names.get(name.toLowerCase()) ?? defaultStoredName(name);
  }

  /** True when the table (or sequence) exists, as of the last refresh. */
  has(name: string): boolean {
    return this.names.has(name.toLowerCase());
  }

  /** Re-reads the names from information_schema (after DDL). */
  async refresh(db: Kysely<Database>): Promise<void> {
    const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = database()`.execute(db);
    this.names.clear();
    this.generation++;
    for (const row of rows.rows) this.names.set(row.name.toLowerCase(), row.name);
  }
}

/** The name the original creates a table with (`Sequences` is the one mixed-case table). */
export function defaultStoredName(name: string): string {
  return name.toLowerCase() === 'sequences' ? 'Sequences' : name.toUpperCase();
}

class TableNameTransformer extends OperationNodeTransformer {
  constructor(private readonly tableNames: TableNames) {
    super();
  }

  protected override transformTable(node: TableNode): TableNode {
    const transformed = super.transformTable(node);
    const name = transformed.table.identifier.name;
    const stored = this.tableNames.get(name);
    if (stored === name) return transformed;
    return { ...transformed, table: { ...transformed.table, identifier: IdentifierNode.create(stored) } };
  }
}

/**
 * Bridges the lower-case names the repositories use and the stored names: maps table names (on
 * MariaDB/MySQL, when given `tableNames`) and lower-cases result column names, which MariaDB
 * returns as declared (`HOSTID` for `select *`; the SQLite driver names its rows in lower case).
 */
export class StoredNamesPlugin implements KyselyPlugin {
  private readonly transformer: TableNameTransformer | undefined;
  constructor(tableNames?: TableNames) {
    this.transformer = tableNames ? new TableNameTransformer(tableNames) : undefined;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer ? this.transformer.transformNode(args.node, args.queryId) : args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const rows = args.result.rows;
    if (rows.length === 0) return args.result;
    const first = rows[0] as UnknownRow;
    const keys = Object.keys(first);
    const lower = keys.map((k) => k.toLowerCase());
    if (keys.every((k, i) => k === lower[i])) return args.result;
    // The names of the first row serve every row (one statement, one set of columns).
    const copy = (row: UnknownRow): UnknownRow => {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) out[lower[i]!] = row[keys[i]!];
      return out;
    };
    return { ...args.result, rows: rows.map(copy) };
  }
}
