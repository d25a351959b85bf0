import type { ColumnType } from 'kysely';

// Kysely's view of the original's tables (database.md §3). Names are lower case: that is how
// PostgreSQL stores them, SQLite ignores case, and on MariaDB/MySQL the table-name plugin maps them
// to the stored case. Read types are wide because each driver returns its own representation
// (number, bigint or string for integers; boolean or 0/1; Date or text); codec.ts normalises them.

/** An INTEGER column. */
export type IntCol = ColumnType<number | bigint | string, number, number>;
/** A BIGINT column: written as bigint, read as whatever the driver gives (never a lossy number). */
export type BigCol = ColumnType<bigint | number | string, bigint, bigint>;
/** A BOOLEAN column (native on PostgreSQL, 0/1 elsewhere). */
export type BoolCol = ColumnType<boolean | number | bigint, boolean | number, boolean | number>;
/** A TIMESTAMP(3) column (Date on PostgreSQL/MariaDB, local-time text on SQLite). */
export type TsCol = ColumnType<Date | string, Date | string, Date | string>;
/** A nullable text column of RULES (created nullable by the original). */
export type NullableText = ColumnType<string | null, string | null, string | null>;

export interface HostsTable {
  address: string;
  port: IntCol;
  isssl: BoolCol;
  hostkey: ColumnType<Buffer | Uint8Array | null, Buffer | null, Buffer | null>;
  adminrole: BoolCol;
  isclient: BoolCol;
  isactive: BoolCol;
  isproxified: BoolCol;
  updatedinfo: IntCol;
  hostid: string;
}

export interface RulesTable {
  hostids: NullableText;
  modetrans: ColumnType<number | bigint | string | null, number, number>;
  recvpath: NullableText;
  sendpath: NullableText;
  archivepath: NullableText;
  workpath: NullableText;
  rpretasks: NullableText;
  rposttasks: NullableText;
  rerrortasks: NullableText;
  spretasks: NullableText;
  sposttasks: NullableText;
  serrortasks: NullableText;
  updatedinfo: ColumnType<number | bigint | string | null, number, number>;
  idrule: string;
}

export interface RunnerTable {
  specialid: BigCol;
  globalstep: IntCol;
  globallaststep: IntCol;
  step: IntCol;
  rank: IntCol;
  blocksz: IntCol;
  modetrans: IntCol;
  updatedinfo: IntCol;
  stepstatus: string;
  infostatus: string;
  retrievemode: BoolCol;
  ismoved: BoolCol;
  starttrans: TsCol;
  stoptrans: TsCol;
  ownerreq: string;
  requester: string;
  requested: string;
  idrule: string;
  filename: string;
  originalname: string;
  fileinfo: string;
  transferinfo: string;
}

export interface ConfigurationTable {
  readgloballimit: BigCol;
  writegloballimit: BigCol;
  readsessionlimit: BigCol;
  writesessionlimit: BigCol;
  delaylimit: BigCol;
  updatedinfo: IntCol;
  hostid: string;
}

export interface HostConfigTable {
  business: string;
  roles: string;
  aliases: string;
  others: string;
  updatedinfo: IntCol;
  hostid: string;
}

export interface MultipleMonitorTable {
  countconfig: IntCol;
  counthost: IntCol;
  countrule: IntCol;
  hostid: string;
}

/** The emulated sequence of MySQL (and of SQLite here): row `RUNSEQ`. */
export interface SequencesTable {
  name: string;
  seq: BigCol;
}

export interface Database {
  hosts: HostsTable;
  rules: RulesTable;
  runner: RunnerTable;
  configuration: ConfigurationTable;
  hostconfig: HostConfigTable;
  multiplemonitor: MultipleMonitorTable;
  sequences: SequencesTable;
}
