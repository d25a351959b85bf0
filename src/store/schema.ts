import type { Kysely } from 'kysely';
import { sql } from './kysely.js';
import type { Connection } from './connect.js';
import type { Database } from './db-types.js';
import { createIndexSql, createTableSql, INDEXES, SVC_INDEXES, TABLES, type TableSpec } from './ddl.js';
import type { DialectAdapter } from './dialects/adapter.js';
import { describeCause, StoreError } from './errors.js';
import { passwordOf } from './jdbc-url.js';
import { CURRENT_SCHEMA_VERSION, DEFAULT_SCHEMA_VERSION, compareVersions, othersWithVersion, versionFromOthers } from './schema-version.js';
import { ensureSequence, initialSequenceValue, resetSequence, type Exec, type SequenceKind } from './sequence.js';

/** Options of {@link createSchema} (the `initdb` options that touch the database, cli.md §4). */
export interface InitSchemaOptions {
  /** Own host id: owner of the MULTIPLEMONITOR and HOSTCONFIG rows created. */
  hostId: string;
  /** `-minimalSeq N`: restart the transfer-id sequence at N afterwards. */
  minimalSeq?: bigint;
  /** Receives every DDL/DML statement before it runs (initdb echoes them). Throwing aborts. */
  onStatement?: (statement: string) => void;
}

/** Result of an upgrade. */
export interface UpgradeResult {
  /** Version found before. */
  from: string;
  /** Version recorded after (unchanged when nothing was done). */
  to: string;
  /** False when the tables do not exist ("database not initialised"). */
  initialised: boolean;
}

/**
 * Runs `work` so that a failure leaves no new object behind (the adapter's way: one transaction
 * where DDL is transactional, dropping what is new afterwards where every DDL statement commits).
 */
function atomically<T>(conn: Connection, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return conn.dialect.atomically(conn.db, conn.tableNames, work);
}

function executor(db: Kysely<Database>, onStatement?: (s: string) => void): Exec {
  return async (statement: string) => {
    onStatement?.(statement);
    await sql.raw(statement).execute(db);
  };
}

/** Version recorded for `hostId`, or 1.1.0 when HOSTCONFIG, the row or the element is missing. */
export async function readSchemaVersion(db: Kysely<Database>, dialect: DialectAdapter, hostId: string): Promise<string> {
  const tables = await dialect.listTables(db);
  if (!tables.has('hostconfig')) return DEFAULT_SCHEMA_VERSION;
  const row = await db.selectFrom('hostconfig').select('others').where('hostid', '=', hostId).executeTakeFirst();
  return row ? versionFromOthers(row.others) : DEFAULT_SCHEMA_VERSION;
}

/** Creates the own HOSTCONFIG row with the current version, or raises the version of the existing one. */
async function recordVersion(db: Kysely<Database>, hostId: string, onStatement?: (s: string) => void): Promise<void> {
  const row = await db.selectFrom('hostconfig').select('others').where('hostid', '=', hostId).executeTakeFirst();
  if (!row) {
    onStatement?.(`INSERT INTO HOSTCONFIG VALUES ('', '', '', '<root><version>${CURRENT_SCHEMA_VERSION}</version></root>', 0, '${hostId}')`);
    await db.insertInto('hostconfig').values({ business: '', roles: '', aliases: '', others: othersWithVersion('', CURRENT_SCHEMA_VERSION), updatedinfo: 0, hostid: hostId }).execute();
    return;
  }
  const others = othersWithVersion(row.others, CURRENT_SCHEMA_VERSION);
  if (others !== row.others) {
    onStatement?.(`UPDATE HOSTCONFIG SET OTHERS = '${others}' WHERE HOSTID = '${hostId}'`);
    await db.updateTable('hostconfig').set({ others }).where('hostid', '=', hostId).execute();
  }
}

/** Creates the missing indexes of database.md §3 and the svc-only ones (ddl.ts SVC_INDEXES). */
async function createIndexes(db: Kysely<Database>, dialect: DialectAdapter, exec: Exec): Promise<void> {
  const existing = dialect.createIndexIfNotExists ? new Set<string>() : await dialect.listIndexes(db);
  for (const index of [...INDEXES, ...SVC_INDEXES]) if (!existing.has(index.name.toLowerCase())) await exec(createIndexSql(dialect, index));
}

/**
 * The svc-only indexes missing from a schema already at the current version (a database made by the
 * original's tools or by an older svc-r66): created at start, each in its own statement.
 */
async function createMissingSvcIndexes(db: Kysely<Database>, dialect: DialectAdapter, exec: Exec): Promise<void> {
  const existing = await dialect.listIndexes(db);
  for (const index of SVC_INDEXES) {
    if (existing.has(index.name.toLowerCase())) continue;
    try {
      await exec(createIndexSql(dialect, index));
    } catch (err) {
      // Cluster members starting together: another one may have just created it.
      if (!(await dialect.listIndexes(db)).has(index.name.toLowerCase())) throw err;
    }
  }
}

/**
 * `initdb` (database.md §8.2): creates every missing table, index and the sequence, the own
 * MULTIPLEMONITOR and HOSTCONFIG rows; upgrades an older existing schema (initdb implies
 * -upgradeDb); applies -minimalSeq. All or nothing: on failure nothing new is left behind.
 * Returns the sequence kind now in use.
 */
export async function createSchema(conn: Connection, opts: InitSchemaOptions): Promise<SequenceKind> {
  const { dialect } = conn;
  validateHostId(opts.hostId);
  try {
    return await atomically(conn, async (db) => {
      const exec = executor(db, opts.onStatement);
      const existing = await dialect.listTables(db);
      const previousVersion = existing.has('runner') ? await readSchemaVersion(db, dialect, opts.hostId) : CURRENT_SCHEMA_VERSION;
      for (const table of TABLES) {
        await exec(createTableSql(dialect, table));
        if (table.name === 'MULTIPLEMONITOR') await ensureMonitorRow(db, opts);
      }
      if (existing.has('runner') && compareVersions(previousVersion, CURRENT_SCHEMA_VERSION) < 0) {
        await upgradeTables(db, dialect, previousVersion, exec);
      }
      await createIndexes(db, dialect, exec);
      const kind = await ensureSequence(exec, dialect, existing, initialSequenceValue());
      // -minimalSeq names the sequence as stored (MariaDB/MySQL keep the case of the new objects).
      await dialect.refreshStoredNames(db, conn.tableNames);
      await recordVersion(db, opts.hostId, opts.onStatement);
      if (opts.minimalSeq !== undefined) await resetSequence(exec, kind, conn.tableNames, opts.minimalSeq);
      return kind;
    });
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreError(`database ${conn.settings.displayUrl}: schema creation failed, nothing was created: ${describeCause(err, secretOf(conn))}`, { cause: err });
  }
}

async function ensureMonitorRow(db: Kysely<Database>, opts: InitSchemaOptions): Promise<void> {
  const row = await db.selectFrom('multiplemonitor').select('hostid').where('hostid', '=', opts.hostId).executeTakeFirst();
  if (row) return;
  opts.onStatement?.(`INSERT INTO MULTIPLEMONITOR VALUES (0, 0, 0, '${opts.hostId}')`);
  await db.insertInto('multiplemonitor').values({ countconfig: 0, counthost: 0, countrule: 0, hostid: opts.hostId }).execute();
}

function validateHostId(hostId: string): void {
  if (!hostId || hostId.length > 255) throw new StoreError(`host id "${hostId.slice(0, 40)}" must have 1 to 255 characters`);
}

function secretOf(conn: Connection): string | undefined {
  return passwordOf(conn.settings);
}

/**
 * Brings an existing schema to 3.1.0 (database.md §8.3). Does nothing when the version is current;
 * reports `initialised: false` when the tables do not exist. All or nothing like creation.
 */
export async function upgradeSchema(conn: Connection, hostId: string, onStatement?: (s: string) => void): Promise<UpgradeResult> {
  const { dialect } = conn;
  const from = await readSchemaVersion(conn.db, dialect, hostId);
  const tables = await dialect.listTables(conn.db);
  if (compareVersions(from, CURRENT_SCHEMA_VERSION) >= 0) {
    if (tables.has('runner')) {
      try {
        await createMissingSvcIndexes(conn.db, dialect, executor(conn.db, onStatement));
      } catch (err) {
        throw new StoreError(`database ${conn.settings.displayUrl}: creating the svc-r66 indexes failed: ${describeCause(err, secretOf(conn))}`, { cause: err });
      }
    }
    return { from, to: from, initialised: true };
  }
  if (!tables.has('runner') || !tables.has('hosts')) return { from, to: from, initialised: false };
  try {
    await atomically(conn, async (db) => {
      const exec = executor(db, onStatement);
      await upgradeTables(db, dialect, from, exec);
      await createIndexes(db, dialect, exec);
      await ensureSequence(exec, dialect, await dialect.listTables(db), initialSequenceValue());
      await recordVersion(db, hostId, onStatement);
    });
  } catch (err) {
    throw new StoreError(`database ${conn.settings.displayUrl}: upgrade from schema ${from} failed, database not up to date: ${describeCause(err, secretOf(conn))}`, { cause: err });
  }
  return { from, to: CURRENT_SCHEMA_VERSION, initialised: true };
}

const table = (name: string): TableSpec => {
  const spec = TABLES.find((t) => t.name === name);
  if (!spec) throw new Error(`no table ${name}`);
  return spec;
};

/** The DDL steps of database.md §8.3 for a schema at version `from` (probes = column checks). */
async function upgradeTables(db: Kysely<Database>, dialect: DialectAdapter, from: string, exec: Exec): Promise<void> {
  const tables = await dialect.listTables(db);
  if (compareVersions(from, '2.4.13') <= 0 && !tables.has('hostconfig')) {
    await exec(createTableSql(dialect, table('HOSTCONFIG')));
  }
  if (compareVersions(from, '2.4.17') <= 0) {
    const columns = await dialect.listColumns(db, 'RUNNER');
    if (!columns.has('transferinfo')) await execAll(exec, dialect.addColumnSql('RUNNER', 'TRANSFERINFO', dialect.types.TEXT, "'{}'"));
  }
  if (compareVersions(from, '2.4.23') <= 0) {
    const columns = await dialect.listColumns(db, 'HOSTS');
    if (!columns.has('isactive')) await execAll(exec, dialect.addColumnSql('HOSTS', 'ISACTIVE', dialect.types.BOOL, dialect.booleanLiteral(true)));
    if (!columns.has('isproxified')) await execAll(exec, dialect.addColumnSql('HOSTS', 'ISPROXIFIED', dialect.types.BOOL, dialect.booleanLiteral(false)));
  }
  if (compareVersions(from, '3.0.4') < 0) {
    // Retyping covers the 2.4.25 step (FILENAME/ORIGINALNAME) too.
    for (const spec of TABLES) await execAll(exec, dialect.retypeSql(spec));
    await dropOldIndexes(db, dialect, exec);
  }
}

async function execAll(exec: Exec, statements: readonly string[]): Promise<void> {
  for (const statement of statements) await exec(statement);
}

async function dropOldIndexes(db: Kysely<Database>, dialect: DialectAdapter, exec: Exec): Promise<void> {
  const indexes = await dialect.listIndexes(db);
  for (const name of ['idx_runner', 'gist_followid_idx']) {
    if (indexes.has(name)) await exec(dialect.dropIndexSql(name.toUpperCase(), 'RUNNER'));
  }
}
