import { sql, type Kysely } from 'kysely';
import { readBig } from './codec.js';
import type { TableNames } from './connect.js';
import type { Database } from './db-types.js';
import { createSequenceSql, createSequencesTableSql, SEQUENCE_MIN } from './ddl.js';
import { StoreError } from './errors.js';
import type { DialectName } from './jdbc-url.js';

// Transfer ids (database.md §7). PostgreSQL and MariaDB ≥ 10.3 use the RUNSEQ sequence; MySQL (and
// a MariaDB where the sequence could not be created) use the Sequences table; SQLite, which has no
// sequences, uses the Sequences table too, incremented atomically by one UPDATE ... RETURNING.

/** Which object holds the sequence in a given database. */
export type SequenceKind = 'sequence' | 'table';

/** Runs one statement, echoing it to `echo` (initdb prints the SQL it runs, cli.md §4). */
export type Exec = (statement: string) => Promise<void>;

/** The starting value of a new sequence: epoch milliseconds + 1 (since 3.6.1). */
export function initialSequenceValue(now = Date.now()): bigint {
  return BigInt(now) + 1n;
}

/** Creates the sequence object if missing; returns which kind now exists. */
export async function ensureSequence(exec: Exec, dialect: DialectName, existing: Set<string>, start: bigint): Promise<SequenceKind> {
  if (existing.has('runseq')) return 'sequence';
  if (existing.has('sequences')) return 'table';
  if (dialect === 'postgresql') {
    await exec(createSequenceSql(start));
    return 'sequence';
  }
  if (dialect === 'mariadb') {
    try {
      await exec(createSequenceSql(start));
      return 'sequence';
    } catch {
      // MariaDB < 10.3 has no sequences: the original falls back to the MySQL table.
    }
  }
  await exec(createSequencesTableSql());
  await exec(`INSERT INTO Sequences (name, seq) VALUES ('RUNSEQ', ${start})`);
  return 'table';
}

/** The next transfer id. `inTransaction`: `db` is already a transaction (MySQL needs one). */
export async function nextId(db: Kysely<Database>, dialect: DialectName, kind: SequenceKind, names: TableNames, inTransaction: boolean): Promise<bigint> {
  if (kind === 'sequence') {
    const query = dialect === 'postgresql'
      ? sql<{ id: unknown }>`select nextval('runseq') as id`
      : sql<{ id: unknown }>`select next value for ${sql.id(names.get('runseq'))} as id`;
    return readBig((await query.execute(db)).rows[0]?.id);
  }
  if (dialect === 'sqlite') {
    const rows = await sql<{ id: unknown }>`update Sequences set seq = seq + 1 where name = 'RUNSEQ' returning seq - 1 as id`.execute(db);
    const id = rows.rows[0]?.id;
    if (id === undefined) throw new StoreError('the transfer id sequence (row RUNSEQ of table Sequences) is missing: run initdb');
    return readBig(id);
  }
  const readAndIncrement = async (trx: Kysely<Database>): Promise<bigint> => {
    const row = await trx.selectFrom('sequences').select('seq').where('name', '=', 'RUNSEQ').forUpdate().executeTakeFirst();
    if (!row) throw new StoreError('the transfer id sequence (row RUNSEQ of table Sequences) is missing: run initdb');
    const id = readBig(row.seq);
    await trx.updateTable('sequences').set({ seq: id + 1n }).where('name', '=', 'RUNSEQ').execute();
    return id;
  };
  return inTransaction ? readAndIncrement(db) : db.transaction().execute(readAndIncrement);
}

/** Restarts the sequence at `value` (`initdb -minimalSeq`, database.md §7). */
export async function resetSequence(exec: Exec, dialect: DialectName, kind: SequenceKind, names: TableNames, value: bigint): Promise<void> {
  if (value < SEQUENCE_MIN) throw new StoreError(`minimal sequence value ${value} is below the minimum ${SEQUENCE_MIN}`);
  if (kind === 'table') {
    await exec(`UPDATE ${dialect === 'sqlite' ? 'Sequences' : names.get('sequences')} SET seq = ${value} WHERE name = 'RUNSEQ'`);
  } else if (dialect === 'postgresql') {
    await exec(`ALTER SEQUENCE RUNSEQ MINVALUE ${SEQUENCE_MIN} RESTART WITH ${value}`);
  } else {
    await exec(`ALTER SEQUENCE ${names.get('runseq')} MINVALUE ${SEQUENCE_MIN} RESTART WITH ${value}`);
  }
}
