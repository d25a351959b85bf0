/**
 * How kysely runs statements on SQLite (better-sqlite3): one connection, prepared statements kept
 * by SQL text, and row changes written in groups (decision 0018).
 *
 * Group commit: an INSERT, UPDATE or DELETE run outside a transaction is not committed on its own.
 * It waits in a queue until the event loop's check phase (setImmediate); then every queued change
 * runs in one transaction, and each caller's promise settles after the COMMIT. A transfer's RUNNER
 * writes are therefore still committed before the packet that depends on them (design.md §4),
 * while 16 transfers in flight write 5 to 15 changes per loop turn: one commit, its locks and its
 * WAL frames instead of one per statement (4 times less CPU for the same changes, measured with
 * better-sqlite3 on the RUNNER table and its indexes). The write lock is held only while the
 * queue is written, synchronously, so another connection (another process, a test) never waits
 * for this one across a loop turn.
 *
 * Reads are never delayed: a read of a table with queued changes first writes what is queued, so
 * it sees every change made before it, as it did when each statement was committed at once. A read
 * that names none of those tables leaves the queue to its group: the requester reads its partner
 * in HOSTS for every transfer, and that read committed the RUNNER changes of the transfers in flight
 * early, in groups of two or three instead of the whole turn's (docs/performance.md, "Tenth
 * pass"). Explicit transactions
 * (`db.transaction()`) have the connection to themselves: queued changes are written before
 * BEGIN, and other queries wait until COMMIT or ROLLBACK.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { SqliteDialect, SelectQueryNode } from '../kysely.js';
import type { DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';
import { SqliteFileGuard } from './sqlite-guard.js';

/**
 * The rows of a read as objects keyed by lower-case column names, the names the repositories use.
 * better-sqlite3 would build each row keyed by the names as declared (`SPECIALID`) and the store's
 * plugin (connect.ts) would then copy it with lower-case keys: two objects a row, the copy through
 * Object.entries and Object.fromEntries, 10 µs of a RUNNER row's 20 (push monitoring reads hundreds
 * a second). Raw arrays, named here, make one object a row and nothing left for the plugin to do.
 * The names come from {@link StatementCache.columnNames}; a read that finds nothing needs none.
 */
function readRows(statements: StatementCache, stmt: SqliteDatabase.Statement, parameters: readonly unknown[]): Record<string, unknown>[] {
  const arrays = stmt.raw(true).all(parameters) as unknown[][];
  if (arrays.length === 0) return [];
  const width = (arrays[0] as unknown[]).length;
  const names = statements.columnNames(stmt, width);
  const rows = new Array<Record<string, unknown>>(arrays.length);
  for (let r = 0; r < arrays.length; r++) {
    const values = arrays[r]!;
    const row: Record<string, unknown> = {};
    for (let c = 0; c < width; c++) row[names[c]!] = values[c];
    rows[r] = row;
  }
  return rows;
}

/** How many prepared SQLite statements are kept (by SQL text); beyond that the oldest goes. */
const STATEMENT_CACHE = 200;

/**
 * Prepared statements by SQL text: kysely's own SQLite driver prepares every statement each time
 * it runs it, which was 5-7% of a small transfer's CPU (decision 0014). A statement still
 * iterating is not handed out again. SQLite re-prepares a kept statement after a schema change.
 */
export class StatementCache {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();
  /** Column names by statement (columnNames()). */
  private names = new WeakMap<SqliteDatabase.Statement, readonly string[]>();
  /** Watches the database's files: the driver asks it before any statement (sqlite-guard.ts). */
  readonly guard: SqliteFileGuard;

  constructor(readonly database: SqliteDatabase.Database) {
    this.guard = new SqliteFileGuard(database.memory ? ':memory:' : database.name);
  }

  /**
   * The lower-case column names of a reader, asked once per statement: `stmt.columns()` builds an
   * object per column at each call, 10 µs for HOSTS and 35 µs for RUNNER's 25 columns where the
   * read itself takes 8 (better-sqlite3 on this machine), and a small transfer reads RUNNER, RULES
   * and HOSTS. SQLite re-prepares a kept `select *` after a schema change, so the names are asked
   * again when a row's width is not theirs (a column added or dropped, by any process) and after
   * any statement of this connection that may change the schema (forgetColumnNames()). A column
   * renamed by another process is not seen: the schema (the original's tables, and svc's added
   * columns and indexes) has no renames.
   */
  columnNames(stmt: SqliteDatabase.Statement, width: number): readonly string[] {
    const kept = this.names.get(stmt);
    if (kept !== undefined && kept.length === width) return kept;
    const names = stmt.columns().map((c) => c.name.toLowerCase());
    this.names.set(stmt, names);
    return names;
  }

  /** A statement that may change the schema ran here: every reader's names are asked again. */
  forgetColumnNames(): void {
    this.names = new WeakMap();
  }

  prepare(sqlText: string): SqliteDatabase.Statement {
    const kept = this.statements.get(sqlText);
    if (kept !== undefined && !kept.busy) return kept;
    const stmt = this.database.prepare(sqlText);
    if (kept === undefined) {
      if (this.statements.size >= STATEMENT_CACHE) {
        const oldest = this.statements.keys().next();
        if (!oldest.done) this.statements.delete(oldest.value);
      }
      this.statements.set(sqlText, stmt);
    }
    return stmt;
  }

  close(): void {
    this.statements.clear();
    // Closing checkpoints through the -shm mapping: with a file that cannot be written that is a
    // SIGBUS (sqlite-guard.ts). Left to the process's exit; the WAL is recovered at the next open.
    if (this.guard.unwritable) return;
    this.database.close();
  }
}

/** A row change that may wait for the group: plain DML without RETURNING. */
const GROUPABLE = /^\s*(insert|update|delete|replace)\b/i;

/** Where a groupable change names its table: `"runner"`, `runner`, `main.runner`, `"main"."runner"`. */
const CHANGED_TABLE = /^\s*(?:(?:insert|replace)(?:\s+or\s+\w+)?\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+([^\s(]+)/i;

/** The table (lower case, without schema or quotes) a groupable change writes; undefined if not told. */
function changedTable(changeSql: string): string | undefined {
  const target = CHANGED_TABLE.exec(changeSql)?.[1];
  const name = target?.split('.').pop()?.replace(/["`[\]]/g, '').toLowerCase();
  return name !== undefined && /^[\w$]+$/.test(name) ? name : undefined;
}

/** A plain read: the only statement that may run while changes wait in the queue. */
const PLAIN_READ = /^\s*select\b/i;

/**
 * Whether `readSql` may read one of `tables` (lower case): any mention of the name as a word,
 * quoted or not, counts (a column of the same name too: a needless flush, never a missed one).
 */
function mayRead(readSql: string, tables: ReadonlySet<string>): boolean {
  const text = readSql.toLowerCase();
  for (const table of tables) {
    let at = text.indexOf(table);
    while (at >= 0) {
      const before = at === 0 ? '' : text[at - 1] as string;
      const after = text[at + table.length] ?? '';
      if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return true;
      at = text.indexOf(table, at + 1);
    }
  }
  return false;
}

interface QueuedChange {
  stmt: SqliteDatabase.Statement;
  parameters: readonly unknown[];
  resolve(result: QueryResult<never>): void;
  reject(err: unknown): void;
}

/** kysely's SQLite dialect with the driver below. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(private readonly statements: StatementCache) {
    super({ database: statements.database });
  }

  override createDriver(): Driver {
    return new GroupCommitDriver(this.statements);
  }
}

class GroupCommitDriver implements Driver {
  private queue: QueuedChange[] = [];
  /** Tables the queued changes write (lower case); null: one of them could not be told. */
  private queuedTables: Set<string> | null = new Set();
  private flushScheduled = false;
  /** The connection handle inside BEGIN ... COMMIT, if any. */
  private owner: Handle | null = null;
  /** Queries (and transactions) waiting for the current transaction to end, in order. */
  private waiting: Array<() => void> = [];
  private closed = false;

  constructor(private readonly statements: StatementCache) {}

  async init(): Promise<void> {}

  /** Each caller gets its own handle, so the driver knows which one owns a transaction. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Handle(this);
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await this.turn(connection as Handle);
    this.statements.guard.check();
    this.flush();
    this.owner = connection as Handle;
    try {
      this.statements.database.exec('begin');
    } catch (err) {
      this.endTransaction();
      throw err;
    }
  }

  async commitTransaction(): Promise<void> {
    try {
      this.statements.database.exec('commit');
    } finally {
      if (!this.statements.database.inTransaction) this.endTransaction();
    }
  }

  async rollbackTransaction(): Promise<void> {
    try {
      if (this.statements.database.inTransaction) this.statements.database.exec('rollback');
    } finally {
      this.endTransaction();
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // kysely ends its transactions before releasing; a handle dropped inside one must not keep
    // the connection from everyone else.
    if (this.owner === connection) await this.rollbackTransaction();
  }

  async destroy(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    this.statements.close();
  }

  /** Runs one query for `handle` (see the module comment). */
  async execute<R>(handle: Handle, query: CompiledQuery): Promise<QueryResult<R>> {
    await this.turn(handle);
    this.statements.guard.check();
    const stmt = this.statements.prepare(query.sql);
    const parameters = query.parameters;
    if (this.owner === null && !stmt.reader && GROUPABLE.test(query.sql)) {
      return new Promise<QueryResult<R>>((resolve, reject) => {
        this.queue.push({ stmt, parameters, resolve: resolve as (r: QueryResult<never>) => void, reject });
        const table = changedTable(query.sql);
        if (table === undefined) this.queuedTables = null;
        else this.queuedTables?.add(table);
        this.scheduleFlush();
      });
    }
    // Anything else sees, and comes after, every change queued before it; a read of other tables
    // has nothing to see there.
    if (this.owner === null && !this.readsAround(query.sql, stmt)) this.flush();
    if (stmt.reader) return { rows: readRows(this.statements, stmt, parameters) as R[] };
    // Neither a read nor a row change: DDL, PRAGMA, a change with RETURNING (harmless here).
    if (!GROUPABLE.test(query.sql)) this.statements.forgetColumnNames();
    return runResult(stmt.run(parameters));
  }

  /** Whether `sql` is a read that no queued change can alter: it may run before the queue's commit. */
  private readsAround(sql: string, stmt: SqliteDatabase.Statement): boolean {
    if (this.queue.length === 0) return true;
    return stmt.reader && this.queuedTables !== null && PLAIN_READ.test(sql) && !mayRead(sql, this.queuedTables);
  }

  /** Waits while another handle's transaction is open. */
  private async turn(handle: Handle): Promise<void> {
    while (this.owner !== null && this.owner !== handle) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private endTransaction(): void {
    this.owner = null;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
    if (this.queue.length > 0) this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      // Inside an explicit transaction the queue waits for its end (endTransaction reschedules).
      if (this.owner === null) this.flush();
    });
  }

  /**
   * Writes the queued changes in one transaction. A change that fails (a constraint) is undone
   * alone, by SQLite's statement rollback, and only its caller gets the error; a failed BEGIN or
   * COMMIT fails every caller of the group, none of whose changes is then kept.
   */
  private flush(): void {
    if (this.queue.length === 0) return;
    const group = this.queue;
    this.queue = [];
    this.queuedTables = new Set();
    const db = this.statements.database;
    if (this.closed && !db.open) {
      for (const c of group) c.reject(new Error('the database is closed'));
      return;
    }
    try {
      this.statements.guard.check();
    } catch (err) {
      for (const c of group) c.reject(err);
      return;
    }
    const done: Array<[QueuedChange, QueryResult<never>]> = [];
    try {
      if (group.length > 1) db.exec('begin immediate');
      for (const change of group) {
        try {
          done.push([change, runResult(change.stmt.run(change.parameters))]);
        } catch (err) {
          change.reject(err);
        }
      }
      if (group.length > 1) db.exec('commit');
    } catch (err) {
      // A failed rollback (I/O error) must not throw out of the check phase: the callers get `err`.
      if (db.inTransaction) {
        try {
          db.exec('rollback');
        } catch {
          // SQLite rolls a transaction back itself on the errors where ROLLBACK fails.
        }
      }
      // Nothing of the group is kept (a caller whose own change failed already has its error).
      for (const change of group) change.reject(err);
      return;
    }
    for (const [change, result] of done) change.resolve(result);
  }
}

class Handle implements DatabaseConnection {
  constructor(private readonly driver: GroupCommitDriver) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, query);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite only streams select queries');
    const result = await this.driver.execute<R>(this, query);
    for (const row of result.rows) yield { rows: [row] };
  }
}

function runResult(info: SqliteDatabase.RunResult): QueryResult<never> {
  return {
    numAffectedRows: BigInt(info.changes),
    insertId: info.lastInsertRowid === undefined || info.lastInsertRowid === null ? undefined : BigInt(info.lastInsertRowid),
    rows: [],
  };
}
