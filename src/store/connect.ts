import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { IdentifierNode, Kysely, MysqlDialect, OperationNodeTransformer, PostgresDialect, sql } from 'kysely';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, TableNode, UnknownRow } from 'kysely';
import type pg from 'pg';
import { makeDirsSync } from '../fs/make-dirs.js';
import type { Database } from './db-types.js';
import { describeCause, StoreError } from './errors.js';
import type { DbConnectionSettings, ServerSettings, SqliteSettings } from './jdbc-url.js';
import { QueryShapes } from './query-shapes.js';
import { GroupCommitSqliteDialect, StatementCache } from './sqlite-driver.js';

/** An open Kysely instance plus what the rest of the store needs to know about it. */
export interface Connection {
  db: Kysely<Database>;
  settings: DbConnectionSettings;
  /** Stored table names (lower-case logical name -> real name); used on MariaDB/MySQL only. */
  tableNames: TableNames;
  /** SQL text of the hot statements per shape (query-shapes.ts). */
  shapes: QueryShapes;
}

/** How long SQLite waits for another writer before failing (WAL lets readers run meanwhile). */
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/** Opens a connection (pool) and checks it with `select 1`; every failure becomes a StoreError. */
export async function connect(settings: DbConnectionSettings): Promise<Connection> {
  const tableNames = new TableNames();
  let db: Kysely<Database>;
  try {
    db = settings.dialect === 'sqlite' ? openSqlite(settings) : await openServer(settings, tableNames);
  } catch (err) {
    throw new StoreError(`cannot open database ${settings.displayUrl}: ${describeCause(err, secretOf(settings))}`, { cause: err });
  }
  try {
    await sql`select 1`.execute(db);
    if (settings.dialect === 'mysql' || settings.dialect === 'mariadb') await tableNames.refresh(db);
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw new StoreError(`cannot connect to database ${settings.displayUrl}${userPart(settings)}: ${describeCause(err, secretOf(settings))}`, { cause: err });
  }
  return { db, settings, tableNames, shapes: new QueryShapes(() => tableNames.generation) };
}

function secretOf(settings: DbConnectionSettings): string | undefined {
  return settings.dialect === 'sqlite' ? undefined : settings.password;
}

function userPart(settings: DbConnectionSettings): string {
  return settings.dialect !== 'sqlite' && settings.user ? ` as user ${settings.user}` : '';
}

function openSqlite(settings: SqliteSettings): Kysely<Database> {
  if (settings.filename !== ':memory:') makeDirsSync(dirname(settings.filename));
  const database = new SqliteDatabase(settings.filename, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  // Every integer comes back as bigint so SPECIALID never passes through a lossy number.
  database.defaultSafeIntegers(true);
  if (settings.filename !== ':memory:') database.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode and avoids an fsync per commit.
  database.pragma('synchronous = NORMAL');
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  return new Kysely<Database>({ dialect: new GroupCommitSqliteDialect(new StatementCache(database)), plugins: [new StoredNamesPlugin()] });
}

/**
 * A pool for PostgreSQL or MariaDB/MySQL. The driver is loaded here, on first use: a process on
 * SQLite (most clients) does not pay for loading pg and mysql2 at start (about 90 ms of CPU).
 */
async function openServer(settings: ServerSettings, tableNames: TableNames): Promise<Kysely<Database>> {
  if (settings.dialect === 'postgresql') {
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
  }
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
}

const PG_INT8 = 20;
/** BIGINT -> bigint; everything else as pg does by default (timestamps as local-time Dates). */
function pgTypeParser(types: typeof pg.types): (oid: number, format?: 'text' | 'binary') => (value: string) => unknown {
  return (oid, format) => {
    if (oid === PG_INT8) return (value: string) => BigInt(value);
    return types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  };
}

/**
 * Real table names of a MariaDB/MySQL schema: there tables keep the case they were created with
 * (`RUNNER`) and names are case-sensitive on Linux, so lower-case queries must be mapped
 * (database.md §1.2). Tables not yet created map to the original's upper-case creation names.
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
class StoredNamesPlugin implements KyselyPlugin {
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
