import type { Kysely } from 'kysely';
import { readBig } from './codec.js';
import type { Database } from './db-types.js';
import { createSequencesTableSql, SEQUENCE_MIN } from './ddl.js';
import type { DialectAdapter } from './dialects/adapter.js';
import type { TableNames } from './dialects/stored-names.js';
import { StoreError } from './errors.js';

// Transfer ids (database.md §7). PostgreSQL and MariaDB ≥ 10.3 use the RUNSEQ sequence; MySQL (and
// a MariaDB where the sequence could not be created) use the Sequences table; SQLite, which has no
// sequences, uses the Sequences table too, incremented atomically by one UPDATE ... RETURNING. The
// dialect's adapter says which it has and writes its statements (dialects/).

/** Which object holds the sequence in a given database. */
export type SequenceKind = 'sequence' | 'table';

/** Runs one statement, echoing it to `echo` (initdb prints the SQL it runs, cli.md §4). */
export type Exec = (statement: string) => Promise<void>;

/** The starting value of a new sequence: epoch milliseconds + 1 (since 3.6.1). */
export function initialSequenceValue(now = Date.now()): bigint {
  return BigInt(now) + 1n;
}

/** Creates the sequence object if missing; returns which kind now exists. */
export async function ensureSequence(exec: Exec, dialect: DialectAdapter, existing: Set<string>, start: bigint): Promise<SequenceKind> {
  if (existing.has('runseq')) return 'sequence';
  if (existing.has('sequences')) return 'table';
  if (await dialect.createSequence(exec, start)) return 'sequence';
  await exec(createSequencesTableSql());
  await exec(`INSERT INTO Sequences (name, seq) VALUES ('RUNSEQ', ${start})`);
  return 'table';
}

/** The largest block of ids {@link nextIds} hands out at once. */
export const MAX_ID_BLOCK = 10_000;

export const SEQUENCE_MAX = 9223372036854775807n;

/** The next transfer id. `inTransaction`: `db` is already a transaction (MySQL needs one). */
export async function nextId(db: Kysely<Database>, dialect: DialectAdapter, kind: SequenceKind, names: TableNames, inTransaction: boolean): Promise<bigint> {
  return (await nextIds(db, dialect, kind, names, inTransaction, 1))[0] as bigint;
}

/**
 * `n` new transfer ids in ascending order, taken from the sequence in one statement (two in one
 * transaction on the MySQL table). On the Sequences table (SQLite, MySQL, MariaDB fallback) the
 * block is the `n` values before one increment by `n`, so consecutive; on a real sequence
 * (PostgreSQL, MariaDB) each is a `nextval` of one statement: distinct, and consecutive unless
 * another session draws from the sequence at the same instant.
 */
export async function nextIds(db: Kysely<Database>, dialect: DialectAdapter, kind: SequenceKind, names: TableNames, inTransaction: boolean, n: number): Promise<bigint[]> {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_ID_BLOCK) throw new RangeError(`cannot take ${n} transfer ids at once (0 to ${MAX_ID_BLOCK})`);
  if (n === 0) return [];
  if (kind === 'table') return dialect.idsFromTable(db, inTransaction, n);
  const ids = (await dialect.sequenceIdsQuery(names, n).execute(db)).rows.map((r) => readBig(r.id));
  if (ids.length !== n) throw new StoreError(`the transfer id sequence RUNSEQ gave ${ids.length} values instead of ${n}`);
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * `n` ids from the Sequences table: the row read FOR UPDATE, then raised by `n`, in one transaction
 * (`db` is one already when `inTransaction`). The way of the dialects whose UPDATE returns no row.
 */
export async function idsFromLockedTable(db: Kysely<Database>, inTransaction: boolean, n: number): Promise<bigint[]> {
  const readAndIncrement = async (trx: Kysely<Database>): Promise<bigint[]> => {
    const row = await trx.selectFrom('sequences').select('seq').where('name', '=', 'RUNSEQ').forUpdate().executeTakeFirst();
    if (!row) throw new StoreError('the transfer id sequence (row RUNSEQ of table Sequences) is missing: run initdb');
    const id = readBig(row.seq);
    if (id > SEQUENCE_MAX - BigInt(n)) throw exhausted(n);
    await trx.updateTable('sequences').set({ seq: id + BigInt(n) }).where('name', '=', 'RUNSEQ').execute();
    return block(id, n);
  };
  return inTransaction ? readAndIncrement(db) : db.transaction().execute(readAndIncrement);
}

/** `first` and the `n - 1` ids after it. */
export function block(first: bigint, n: number): bigint[] {
  const ids = new Array<bigint>(n);
  for (let i = 0; i < n; i++) ids[i] = first + BigInt(i);
  return ids;
}

export function exhausted(n: number): StoreError {
  return new StoreError(`the transfer id sequence (row RUNSEQ of table Sequences) cannot give ${n} more ids: it is at its maximum; restart it with initdb -minimalSeq`);
}

/**
 * Restarts the sequence at `value` (`initdb -minimalSeq`, database.md §7). The names are the stored
 * ones (MariaDB/MySQL keep their case); elsewhere they are the creation names `Sequences`, `RUNSEQ`.
 */
export async function resetSequence(exec: Exec, kind: SequenceKind, names: TableNames, value: bigint): Promise<void> {
  if (value < SEQUENCE_MIN) throw new StoreError(`minimal sequence value ${value} is below the minimum ${SEQUENCE_MIN}`);
  if (kind === 'table') {
    await exec(`UPDATE ${names.get('sequences')} SET seq = ${value} WHERE name = 'RUNSEQ'`);
  } else {
    await exec(`ALTER SEQUENCE ${names.get('runseq')} MINVALUE ${SEQUENCE_MIN} RESTART WITH ${value}`);
  }
}
