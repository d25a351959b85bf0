import type { DialectAdapter } from './dialects/adapter.js';

// The original's schema (database.md §2, §3, §8.2) as data, rendered by the dialect's adapter
// (dialects/: its types, quoting and defaults). Names are unquoted upper case as the original
// creates them, except where a dialect must quote a reserved word (RANK on MariaDB/MySQL).

/** Logical column types of the original (database.md §2). */
export type LogicalType = 'KEY' | 'TEXT' | 'LONGTEXT' | 'CODE' | 'BOOL' | 'INT' | 'BIGINT' | 'BINARY' | 'TS';

export interface ColumnSpec {
  name: string;
  type: LogicalType;
  /** Only the non-key RULES columns are nullable (database.md §2). */
  nullable?: boolean;
}

export interface TableSpec {
  /** Upper-case creation name. */
  name: string;
  columns: ColumnSpec[];
  /** Single-column key (`HOSTID PRIMARY KEY`) or a named composite constraint. */
  primaryKey: { columns: string[]; constraint?: string };
}

export interface IndexSpec {
  name: string;
  table: string;
  columns: string[];
}

const col = (name: string, type: LogicalType, nullable = false): ColumnSpec => ({ name, type, nullable });

/** Tables in creation order (database.md §8.2). */
export const TABLES: readonly TableSpec[] = [
  {
    name: 'MULTIPLEMONITOR',
    columns: [col('COUNTCONFIG', 'INT'), col('COUNTHOST', 'INT'), col('COUNTRULE', 'INT'), col('HOSTID', 'KEY')],
    primaryKey: { columns: ['HOSTID'] },
  },
  {
    name: 'CONFIGURATION',
    columns: [
      col('READGLOBALLIMIT', 'BIGINT'), col('WRITEGLOBALLIMIT', 'BIGINT'), col('READSESSIONLIMIT', 'BIGINT'),
      col('WRITESESSIONLIMIT', 'BIGINT'), col('DELAYLIMIT', 'BIGINT'), col('UPDATEDINFO', 'INT'), col('HOSTID', 'KEY'),
    ],
    primaryKey: { columns: ['HOSTID'] },
  },
  {
    name: 'HOSTCONFIG',
    columns: [col('BUSINESS', 'LONGTEXT'), col('ROLES', 'LONGTEXT'), col('ALIASES', 'LONGTEXT'), col('OTHERS', 'LONGTEXT'), col('UPDATEDINFO', 'INT'), col('HOSTID', 'KEY')],
    primaryKey: { columns: ['HOSTID'] },
  },
  {
    name: 'HOSTS',
    columns: [
      col('ADDRESS', 'KEY'), col('PORT', 'INT'), col('ISSSL', 'BOOL'), col('HOSTKEY', 'BINARY'), col('ADMINROLE', 'BOOL'),
      col('ISCLIENT', 'BOOL'), col('ISACTIVE', 'BOOL'), col('ISPROXIFIED', 'BOOL'), col('UPDATEDINFO', 'INT'), col('HOSTID', 'KEY'),
    ],
    primaryKey: { columns: ['HOSTID'] },
  },
  {
    name: 'RULES',
    columns: [
      col('HOSTIDS', 'LONGTEXT', true), col('MODETRANS', 'INT', true), col('RECVPATH', 'TEXT', true), col('SENDPATH', 'TEXT', true),
      col('ARCHIVEPATH', 'TEXT', true), col('WORKPATH', 'TEXT', true), col('RPRETASKS', 'LONGTEXT', true), col('RPOSTTASKS', 'LONGTEXT', true),
      col('RERRORTASKS', 'LONGTEXT', true), col('SPRETASKS', 'LONGTEXT', true), col('SPOSTTASKS', 'LONGTEXT', true),
      col('SERRORTASKS', 'LONGTEXT', true), col('UPDATEDINFO', 'INT', true), col('IDRULE', 'KEY'),
    ],
    primaryKey: { columns: ['IDRULE'] },
  },
  {
    name: 'RUNNER',
    columns: [
      col('SPECIALID', 'BIGINT'), col('GLOBALSTEP', 'INT'), col('GLOBALLASTSTEP', 'INT'), col('STEP', 'INT'), col('RANK', 'INT'),
      col('BLOCKSZ', 'INT'), col('MODETRANS', 'INT'), col('UPDATEDINFO', 'INT'), col('STEPSTATUS', 'CODE'), col('INFOSTATUS', 'CODE'),
      col('RETRIEVEMODE', 'BOOL'), col('ISMOVED', 'BOOL'), col('STARTTRANS', 'TS'), col('STOPTRANS', 'TS'), col('OWNERREQ', 'KEY'),
      col('REQUESTER', 'KEY'), col('REQUESTED', 'KEY'), col('IDRULE', 'KEY'), col('FILENAME', 'TEXT'), col('ORIGINALNAME', 'TEXT'),
      col('FILEINFO', 'TEXT'), col('TRANSFERINFO', 'TEXT'),
    ],
    primaryKey: { columns: ['REQUESTED', 'REQUESTER', 'OWNERREQ', 'SPECIALID'], constraint: 'runner_pk' },
  },
];

/** Indexes of database.md §3, created by initdb and by the 3.0.4 upgrade. */
export const INDEXES: readonly IndexSpec[] = [
  { name: 'IDX_CONFIG', table: 'CONFIGURATION', columns: ['HOSTID', 'UPDATEDINFO'] },
  { name: 'IDX_HOSTCONF', table: 'HOSTCONFIG', columns: ['HOSTID', 'UPDATEDINFO'] },
  { name: 'IDX_HOST', table: 'HOSTS', columns: ['UPDATEDINFO'] },
  { name: 'IDX_RULE', table: 'RULES', columns: ['UPDATEDINFO'] },
  { name: 'IDX_PUSH_FILTER', table: 'RUNNER', columns: ['STOPTRANS', 'OWNERREQ'] },
  { name: 'IDX_RUN_FILTER', table: 'RUNNER', columns: ['UPDATEDINFO', 'OWNERREQ', 'STARTTRANS'] },
  { name: 'IDX_MON_FILTER', table: 'RUNNER', columns: ['GLOBALSTEP', 'OWNERREQ', 'STARTTRANS'] },
  { name: 'FOLLOWID_IDX', table: 'RUNNER', columns: ['TRANSFERINFO', 'OWNERREQ'] },
];

/**
 * Indexes of svc-r66 only, named `SVC_*` so the original's tools (which create, drop and check only
 * the names above) leave them alone. They let the web UI's transfer lists filtered by rule or by
 * partner walk the rows in start order instead of scanning the table (docs/web-ui.md, "Large
 * transfer tables"). Their columns never change after the insert (a restart may move STARTTRANS),
 * so a transfer's state updates do not touch them. Created by initdb and by every schema upgrade
 * at start, including on a database already at the current version.
 */
export const SVC_INDEXES: readonly IndexSpec[] = [
  { name: 'SVC_IDX_RULE', table: 'RUNNER', columns: ['IDRULE', 'OWNERREQ', 'STARTTRANS'] },
  { name: 'SVC_IDX_REQUESTER', table: 'RUNNER', columns: ['REQUESTER', 'OWNERREQ', 'STARTTRANS'] },
  { name: 'SVC_IDX_REQUESTED', table: 'RUNNER', columns: ['REQUESTED', 'OWNERREQ', 'STARTTRANS'] },
];

/** The full column definition (`NAME TYPE [NOT NULL] [DEFAULT ...]`). */
export function columnDefinition(dialect: DialectAdapter, column: ColumnSpec, primaryKey = false): string {
  let def = `${dialect.columnName(column.name)} ${dialect.types[column.type]}`;
  if (primaryKey) return `${def} PRIMARY KEY`;
  if (!column.nullable) def += ' NOT NULL';
  if (column.type === 'TS') def += ` ${dialect.timestampDefault}`;
  return def;
}

/** `CREATE TABLE IF NOT EXISTS` for one table. */
export function createTableSql(dialect: DialectAdapter, table: TableSpec): string {
  const single = table.primaryKey.constraint === undefined && table.primaryKey.columns.length === 1 ? table.primaryKey.columns[0] : undefined;
  const parts = table.columns.map((c) => columnDefinition(dialect, c, c.name === single));
  if (single === undefined) {
    parts.push(`CONSTRAINT ${table.primaryKey.constraint ?? `${table.name.toLowerCase()}_pk`} PRIMARY KEY (${table.primaryKey.columns.map((c) => dialect.columnName(c)).join(', ')})`);
  }
  return `CREATE TABLE IF NOT EXISTS ${table.name} (${parts.join(', ')})`;
}

/**
 * `CREATE INDEX`: with IF NOT EXISTS where the dialect has it; elsewhere (MariaDB/MySQL) the caller
 * checks the catalogue first.
 */
export function createIndexSql(dialect: DialectAdapter, index: IndexSpec): string {
  const ifNotExists = dialect.createIndexIfNotExists ? 'IF NOT EXISTS ' : '';
  return `CREATE INDEX ${ifNotExists}${index.name} ON ${index.table} (${index.columns.map((c) => dialect.indexColumn(c)).join(', ')})`;
}

/** Minimum of the transfer-id sequence (database.md §3.7, §7). */
export const SEQUENCE_MIN = -9223372036854775807n;

/** `CREATE SEQUENCE` for PostgreSQL and MariaDB ≥ 10.3. */
export function createSequenceSql(start: bigint): string {
  return `CREATE SEQUENCE IF NOT EXISTS RUNSEQ MINVALUE ${SEQUENCE_MIN} START WITH ${start}`;
}

/** The emulated sequence table of MySQL (and of SQLite here). */
export function createSequencesTableSql(): string {
  return 'CREATE TABLE IF NOT EXISTS Sequences (name VARCHAR(22) NOT NULL PRIMARY KEY, seq BIGINT NOT NULL)';
}
