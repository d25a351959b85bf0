import type { Expression, InsertQueryBuilder, InsertResult, Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db-types.js';
import type { LogicalType, TableSpec } from '../ddl.js';
import type { DbConnectionSettings, DialectName } from '../jdbc-url.js';
import type { Exec } from '../sequence.js';
import type { TableNames } from './stored-names.js';

/**
 * Everything that differs between the SQL databases the store speaks, in one object per dialect
 * (sqlite.ts, postgresql.ts, mysql.ts for MariaDB and MySQL; decision 0050). The rest of the store
 * asks the adapter of its connection and never tests a dialect name; a new dialect is one more
 * implementation of this interface.
 */
export interface DialectAdapter {
  readonly name: DialectName;

  // ---------------------------------------------------------------- connection

  /**
   * Opens the pool (or the embedded database) for `settings`, whose `dialect` is this adapter's.
   * `tableNames` is the map the dialect fills in {@link refreshStoredNames} when its names keep
   * their case.
   */
  open(settings: DbConnectionSettings, tableNames: TableNames): Promise<Kysely<Database>>;
  /** Re-reads the stored table names (after connecting, after DDL); nothing where names ignore case. */
  refreshStoredNames(db: Kysely<Database>, tableNames: TableNames): Promise<void>;
  /**
   * The files that opening `settings` creates, to be removed when the first use fails (no
   * half-made database left behind): the SQLite file and its journals when it does not exist yet.
   */
  filesCreatedByOpen(settings: DbConnectionSettings): string[];

  // ---------------------------------------------------------------- DDL (ddl.ts, schema.ts)

  /** The SQL type of each logical column type of the original's schema. */
  readonly types: Readonly<Record<LogicalType, string>>;
  /** A column name as it must appear in DDL (a reserved word is quoted). */
  columnName(name: string): string;
  /** `DEFAULT` clause of the RUNNER timestamps: local time, millisecond precision. */
  readonly timestampDefault: string;
  /** A column of an index key as written in CREATE INDEX (a prefix where the column is too long). */
  indexColumn(name: string): string;
  /** True when CREATE INDEX takes IF NOT EXISTS; otherwise the schema code lists the indexes first. */
  readonly createIndexIfNotExists: boolean;
  /** The SQL literal of a boolean (a column default). */
  booleanLiteral(b: boolean): string;
  /** Statements adding a NOT NULL column filled with `defaultValue` to the rows already there. */
  addColumnSql(table: string, column: string, type: string, defaultValue: string): string[];
  /** Statements giving every column of `table` its current type (upgrade to 3.0.4); none when types are not enforced. */
  retypeSql(table: TableSpec): string[];
  /** `DROP INDEX` of index `name` of table `table`. */
  dropIndexSql(name: string, table: string): string;
  /**
   * Runs the DDL of `work` so that a failure leaves no new object behind: in one transaction where
   * DDL is transactional, otherwise by dropping afterwards what did not exist before.
   */
  atomically<T>(db: Kysely<Database>, tableNames: TableNames, work: (db: Kysely<Database>) => Promise<T>): Promise<T>;

  // ---------------------------------------------------------------- transfer ids (sequence.ts)

  /** Creates the RUNSEQ sequence; false when the dialect has none (the Sequences table serves then). */
  createSequence(exec: Exec, start: bigint): Promise<boolean>;
  /** One statement drawing `n` values from the RUNSEQ sequence, one row (`id`) each. */
  sequenceIdsQuery(names: TableNames, n: number): RawBuilder<{ id: unknown }>;
  /** `n` consecutive ids from the Sequences table. `inTransaction`: `db` is already a transaction. */
  idsFromTable(db: Kysely<Database>, inTransaction: boolean, n: number): Promise<bigint[]>;

  // ---------------------------------------------------------------- catalogue (names in lower case)

  /** Tables (and sequences, where the catalogue lists them apart) of the current schema. */
  listTables(db: Kysely<Database>): Promise<Set<string>>;
  /** Column names of `table`. */
  listColumns(db: Kysely<Database>, table: string): Promise<Set<string>>;
  /** Index names of the current schema. */
  listIndexes(db: Kysely<Database>): Promise<Set<string>>;

  // ---------------------------------------------------------------- values and statements of the repositories

  /** A boolean as the dialect stores it. */
  writeBool(b: boolean): boolean | number;
  /** A timestamp as the dialect stores it (local wall-clock time, database.md §2). */
  writeTs(d: Date): Date | string;
  /** `insert`, which replaces the `updates` columns of the row when the `keys` exist already. */
  onKeyConflictUpdate<T extends keyof Database>(insert: InsertQueryBuilder<Database, T, InsertResult>, keys: readonly string[], updates: Record<string, unknown>): InsertQueryBuilder<Database, T, InsertResult>;
  /** In an {@link onKeyConflictUpdate} of several rows: the value `column` had in the row being inserted. */
  insertedValue(column: string): Expression<unknown>;
  /** `insert`, which does nothing (and raises nothing) when the `keys` exist already. */
  ignoreDuplicate<T extends keyof Database>(insert: InsertQueryBuilder<Database, T, InsertResult>, keys: readonly string[]): InsertQueryBuilder<Database, T, InsertResult>;
  /** `query`, locking the rows it reads until the end of the transaction. */
  lockForUpdate<T extends keyof Database, O>(query: SelectQueryBuilder<Database, T, O>): SelectQueryBuilder<Database, T, O>;
}
