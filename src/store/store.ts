import { existsSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { sql } from './kysely.js';
import { connect, type Connection } from './connect.js';
import type { Database } from './db-types.js';
import { StoreError } from './errors.js';
import type { DialectAdapter } from './dialects/adapter.js';
import type { DbConnectionSettings, DialectName } from './jdbc-url.js';
import type { QueryShapes } from './query-shapes.js';
import { SqlHostConfigRepository } from './repositories/host-configs.js';
import { SqlHostRepository } from './repositories/hosts.js';
import { SqlLimitsRepository } from './repositories/limits.js';
import { SqlMultipleMonitorRepository } from './repositories/multiple-monitors.js';
import { SqlRuleRepository } from './repositories/rules.js';
import { SqlRunnerRepository } from './repositories/runner.js';
import type { Repositories } from './repository-types.js';
import { createSchema, readSchemaVersion, upgradeSchema, type InitSchemaOptions, type UpgradeResult } from './schema.js';
import { IdBlock } from './id-block.js';
import { nextId, nextIds, resetSequence, type SequenceKind } from './sequence.js';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** Receives warnings (e.g. H2 mapped to SQLite). Never receives a password. */
  logger?: (msg: string) => void;
  /** Own host id: default for {@link Store.schemaVersion} and {@link Store.upgradeSchema}. */
  hostId?: string;
}

/** The repositories of one transaction, plus id generation inside it. */
export interface TransactionScope extends Repositories {
  /** Straight from the sequence, inside the transaction (never from the block of the store). */
  nextTransferId(): Promise<bigint>;
  nextTransferIds(n: number): Promise<bigint[]>;
}

/** An open database: one repository per table, schema management, id generation. */
export interface Store extends Repositories {
  /** `'none'` for the no-database mode (see openNoDatabaseStore); for messages, not for branching. */
  readonly dialect: DialectName | 'none';
  /**
   * True when the rows live in this process only (the no-database mode): no other process shares
   * them, so this process may rewrite them at will and holds every lease alone.
   */
  readonly inProcess: boolean;
  /** initdb (database.md §8.2): create what is missing, upgrade, -minimalSeq; all or nothing. */
  initSchema(opts: InitSchemaOptions): Promise<void>;
  /** -upgradeDb / autoUpgrade (database.md §8.3) for `hostId` (default: the store's host id). */
  upgradeSchema(hostId?: string, onStatement?: (statement: string) => void): Promise<UpgradeResult>;
  /** Version recorded in HOSTCONFIG.OTHERS for `hostId` (1.1.0 when missing). */
  schemaVersion(hostId?: string): Promise<string>;
  /** True when the original's tables exist (a start without them only warns, §8.3). */
  isInitialised(): Promise<boolean>;
  /**
   * A new transfer id (signed 64-bit, may be negative). A process asking for many ids in a row gets
   * them from a small block reserved in advance (id-block.ts, decision 0015).
   */
  nextTransferId(): Promise<bigint>;
  /**
   * `n` (at most 10000) new transfer ids, ascending, reserved in one statement: consecutive on the
   * Sequences table (SQLite, MySQL); on a real sequence (PostgreSQL, MariaDB) consecutive unless
   * another session draws at the same instant (sequence.ts nextIds).
   */
  nextTransferIds(n: number): Promise<bigint[]>;
  /** `initdb -minimalSeq N`. */
  resetTransferIdSequence(value: bigint): Promise<void>;
  /** Runs `fn` in one database transaction; rolled back when it throws. */
  transaction<T>(fn: (tx: TransactionScope) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Opens the database described by `settings` (see parseJdbcUrl) and checks the connection.
 * Throws StoreError with the URL (without password) when it cannot connect.
 */
export async function openStore(settings: DbConnectionSettings, opts: OpenStoreOptions = {}): Promise<Store> {
  refuseBesideJavaH2(settings);
  for (const warning of settings.warnings) opts.logger?.(warning);
  const conn = await connect(settings);
  return new SqlStore(conn, opts);
}

/**
 * An H2 URL whose H2 file exists (a Java host not migrated yet) and whose SQLite stand-in does not:
 * refused, not opened (opening would create a second, empty database beside the Java one and lead
 * to initdb). svc-r66server migrate copies the H2 file instead (docs/migration.md, issue 34).
 */
function refuseBesideJavaH2(settings: DbConnectionSettings): void {
  if (settings.dialect !== 'sqlite' || settings.javaH2Base === undefined || existsSync(settings.filename)) return;
  const h2 = ['.mv.db', '.h2.db'].map((suffix) => settings.javaH2Base + suffix).find((f) => existsSync(f));
  if (h2 === undefined) return;
  throw new StoreError(`database ${settings.displayUrl}: ${h2} is a Java R66 host's H2 database, which svc-r66 does not read: take the host over with svc-r66server migrate -from <its server.xml> (docs/migration.md); no empty database was made beside it`);
}

function repositories(db: Kysely<Database>, dialect: DialectAdapter, shapes?: QueryShapes): Repositories {
  const ctx = { db, dialect, shapes };
  return {
    hosts: new SqlHostRepository(ctx),
    rules: new SqlRuleRepository(ctx),
    runner: new SqlRunnerRepository(ctx),
    hostConfigs: new SqlHostConfigRepository(ctx),
    limits: new SqlLimitsRepository(ctx),
    multipleMonitors: new SqlMultipleMonitorRepository(ctx),
  };
}

class SqlStore implements Store {
  readonly dialect: DialectName;
  readonly inProcess = false;
  readonly hosts;
  readonly rules;
  readonly runner;
  readonly hostConfigs;
  readonly limits;
  readonly multipleMonitors;
  private sequenceKind: SequenceKind | undefined;
  private closed = false;
  private readonly idBlock = new IdBlock((n) => this.nextTransferIds(n));

  constructor(private readonly conn: Connection, private readonly opts: OpenStoreOptions) {
    this.dialect = conn.dialect.name;
    const repos = repositories(conn.db, conn.dialect, conn.shapes);
    this.hosts = repos.hosts;
    this.rules = repos.rules;
    this.runner = repos.runner;
    this.hostConfigs = repos.hostConfigs;
    this.limits = repos.limits;
    this.multipleMonitors = repos.multipleMonitors;
  }

  async initSchema(opts: InitSchemaOptions): Promise<void> {
    try {
      this.sequenceKind = await createSchema(this.conn, opts);
    } finally {
      // -minimalSeq may have restarted the sequence.
      this.idBlock.clear();
    }
  }

  upgradeSchema(hostId?: string, onStatement?: (statement: string) => void): Promise<UpgradeResult> {
    return upgradeSchema(this.conn, this.ownHost(hostId), onStatement);
  }

  schemaVersion(hostId?: string): Promise<string> {
    return readSchemaVersion(this.conn.db, this.conn.dialect, this.ownHost(hostId));
  }

  async isInitialised(): Promise<boolean> {
    const tables = await this.conn.dialect.listTables(this.conn.db);
    return tables.has('runner') && tables.has('hosts') && tables.has('rules');
  }

  nextTransferId(): Promise<bigint> {
    return this.idBlock.take();
  }

  async nextTransferIds(n: number): Promise<bigint[]> {
    return nextIds(this.conn.db, this.conn.dialect, await this.kind(), this.conn.tableNames, false, n);
  }

  async resetTransferIdSequence(value: bigint): Promise<void> {
    try {
      await resetSequence(async (s) => { await sql.raw(s).execute(this.conn.db); }, await this.kind(), this.conn.tableNames, value);
    } finally {
      this.idBlock.clear();
    }
  }

  async transaction<T>(fn: (tx: TransactionScope) => Promise<T>): Promise<T> {
    const kind = await this.kind();
    return this.conn.db.transaction().execute(async (trx) => {
      const scope: TransactionScope = {
        ...repositories(trx, this.conn.dialect, this.conn.shapes),
        nextTransferId: () => nextId(trx, this.conn.dialect, kind, this.conn.tableNames, true),
        nextTransferIds: (n) => nextIds(trx, this.conn.dialect, kind, this.conn.tableNames, true, n),
      };
      return fn(scope);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.conn.db.destroy();
  }

  private ownHost(hostId: string | undefined): string {
    const id = hostId ?? this.opts.hostId;
    if (!id) throw new StoreError('no host id given: the schema version is kept per host (HOSTCONFIG row of the own host id)');
    return id;
  }

  /** Which sequence object this database uses, looked up once. */
  private async kind(): Promise<SequenceKind> {
    if (this.sequenceKind) return this.sequenceKind;
    const tables = await this.conn.dialect.listTables(this.conn.db);
    if (tables.has('runseq')) this.sequenceKind = 'sequence';
    else if (tables.has('sequences')) this.sequenceKind = 'table';
    else throw new StoreError(`database ${this.conn.settings.displayUrl}: no transfer id sequence (RUNSEQ): run initdb`);
    return this.sequenceKind;
  }
}
