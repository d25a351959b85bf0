/**
 * `svc-r66server migrate` (issue 34): takes a Java R66 host's files and database over in one
 * command. H2 (the original's embedded default) is copied table by table into svc's SQLite
 * database beside the configuration; PostgreSQL and MariaDB/MySQL are used in place (schema checked
 * and upgraded). The `<db>` sections then point at the result, the Java files kept as `*.bak`.
 *
 * The Java host's files are the source of truth on every run: a second (forced) run reads the
 * `*.bak` copies, so it repeats the first instead of migrating svc's own database.
 */
import { mkdir, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, loadClientConfig, loadServerConfig, type DbConfig, type ServerConfig } from '../../config/index.js';
import type { TransferRecord } from '../../model/transfer.js';
import { configuredDatabase, CURRENT_SCHEMA_VERSION, openStore, othersWithVersion, parseJdbcUrl, redactUrl, StoreError, type Store } from '../../store/index.js';
import type { CsvRecord } from './csv.js';
import { DbSectionError, exists, hasDbSection, originalText, pointDbSection } from './db-section.js';
import { chooseH2Jar, findH2Jars, H2ReadError, javaRunner, locateH2, readH2, type H2Content, type H2Table, type JavaRunner } from './h2-reader.js';
import { hostConfigOf, hostOf, limitsOf, multipleMonitorOf, RowError, ruleOf, transferOf } from './rows.js';

export interface MigrationOptions {
  /** The Java host's server.xml (rewritten in place; its original kept as server.xml.bak). */
  serverXml: string;
  clientXml?: string;
  h2Jar?: string;
  dryRun: boolean;
  force: boolean;
  env: NodeJS.ProcessEnv;
  /** Runs java; tests may pass their own. */
  java?: JavaRunner;
}

export interface TableReport {
  table: string;
  read: number;
  written: number;
  /** Reason -> rows skipped for it. */
  skipped: Map<string, number>;
}

export interface MigrationReport {
  hostId: string;
  dryRun: boolean;
  /** What was read: `H2 2.1.214 (jar) <file>` or the in-place database URL. */
  source: string;
  /** Where the data is now (or would be). */
  target: string;
  inPlace: boolean;
  tables: TableReport[];
  /** First transfer id svc will allocate (H2 only). */
  nextId?: bigint;
  /** Transfers this host had running or interrupted: svc resumes them at start. */
  inFlight: number;
  ignored: string[];
  /** What happened (or would happen) to each configuration file. */
  files: string[];
  next: string[];
}

/** A failure with the command's exit code: 1 refused/unusable input, 2 configuration, 3 database. */
export class MigrationError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2 | 3) {
    super(message);
    this.name = 'MigrationError';
  }
}

/** svc's default database of an instance: `db/svc-r66.sqlite` beside server.xml (as the embedded home). */
export function defaultSqliteFile(serverXml: string): string {
  return join(dirname(resolve(serverXml)), 'db', 'svc-r66.sqlite');
}

const describe = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function loadJavaServerConfig(path: string): Promise<ServerConfig> {
  try {
    return await loadServerConfig(path);
  } catch (err) {
    if (err instanceof ConfigError || (err as NodeJS.ErrnoException).code !== undefined) throw new MigrationError(`cannot read the Java server configuration: ${describe(err)}`, 2);
    throw err;
  }
}

type Converted = { table: TableReport; ok: unknown[] };

function convert<T>(table: string, records: CsvRecord[] | undefined, of: (r: CsvRecord) => T): { table: TableReport; ok: T[] } {
  const report: TableReport = { table, read: records?.length ?? 0, written: 0, skipped: new Map() };
  const ok: T[] = [];
  if (records === undefined) report.skipped.set('table absent from the H2 database', 0);
  for (const r of records ?? []) {
    try {
      ok.push(of(r));
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      report.skipped.set(err.message, (report.skipped.get(err.message) ?? 0) + 1);
    }
  }
  return { table: report, ok };
}

/** Ids this host allocated itself: its own rows where it was the requester (not partners' ids). */
function largestOwnId(transfers: readonly TransferRecord[], config: ServerConfig): bigint | undefined {
  const own = new Set([config.hostId, config.sslHostId].filter((x): x is string => x !== undefined));
  let max: bigint | undefined;
  for (const t of transfers) if (t.ownerReq === config.hostId && own.has(t.requester) && (max === undefined || t.specialId > max)) max = t.specialId;
  return max;
}

function inFlightOf(transfers: readonly TransferRecord[], hostId: string): number {
  return transfers.filter((t) => t.ownerReq === hostId && (t.updatedInfo === 5 || t.updatedInfo === 2 || t.updatedInfo === 3)).length;
}

async function copyInto(store: Store, hostId: string, data: { hosts: Converted; rules: Converted; limits: Converted; hostConfigs: Converted; monitors: Converted; runner: Converted }): Promise<void> {
  await store.transaction(async (tx) => {
    for (const h of data.hosts.ok as Parameters<typeof tx.hosts.upsert>[0][]) await tx.hosts.upsert(h);
    for (const r of data.rules.ok as Parameters<typeof tx.rules.upsert>[0][]) await tx.rules.upsert(r);
    for (const l of data.limits.ok as Parameters<typeof tx.limits.upsert>[0][]) await tx.limits.upsert(l);
    for (const c of data.hostConfigs.ok as Parameters<typeof tx.hostConfigs.upsert>[0][]) {
      // The tables are created at the current version here: say so in the own row.
      await tx.hostConfigs.upsert(c.hostId === hostId ? { ...c, others: othersWithVersion(c.others, CURRENT_SCHEMA_VERSION) } : c);
    }
    for (const m of data.monitors.ok as Parameters<typeof tx.multipleMonitors.upsert>[0][]) await tx.multipleMonitors.upsert(m);
    await tx.runner.insertMany(data.runner.ok as TransferRecord[]);
  });
  for (const c of Object.values(data)) c.table.written = c.ok.length;
}

async function fromH2(opts: MigrationOptions, config: ServerConfig, db: DbConfig, serverText: string, report: MigrationReport): Promise<void> {
  const target = defaultSqliteFile(opts.serverXml);
  const location = await locateH2(db.server, [process.cwd(), dirname(resolve(opts.serverXml))], opts.env.HOME || homedir());
  const jar = await chooseH2Jar(opts.h2Jar, await findH2Jars(opts.serverXml, opts.env), location);
  const content: H2Content = await readH2({ location, jar, user: db.user, password: db.password, run: opts.java ?? javaRunner(opts.env) });
  report.source = `H2 ${content.engineVersion} (${jar.path}) ${location.file}, read from a copy`;
  report.target = `SQLite ${target}`;
  const get = (t: H2Table): CsvRecord[] | undefined => content.tables.get(t);
  const data = {
    hosts: convert('HOSTS', get('HOSTS'), hostOf),
    rules: convert('RULES', get('RULES'), ruleOf),
    limits: convert('CONFIGURATION', get('CONFIGURATION'), limitsOf),
    hostConfigs: convert('HOSTCONFIG', get('HOSTCONFIG'), hostConfigOf),
    monitors: convert('MULTIPLEMONITOR', get('MULTIPLEMONITOR'), multipleMonitorOf),
    runner: convert('RUNNER', get('RUNNER'), transferOf),
  };
  report.tables = Object.values(data).map((c) => c.table);
  const transfers = data.runner.ok;
  const own = largestOwnId(transfers, config);
  // Above both what the sequence would give next and every id this host gave (a sequence may have
  // been reset below them); partners' ids (random in GUID mode) do not count.
  let nextId = content.nextSequenceValue ?? 1n;
  if (own !== undefined && own + 1n > nextId) nextId = own + 1n;
  report.nextId = nextId;
  report.inFlight = inFlightOf(transfers, config.hostId);
  if (opts.dryRun) {
    for (const c of Object.values(data)) c.table.written = c.ok.length;
    return;
  }
  for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(target + suffix, { force: true });
  await mkdir(dirname(target), { recursive: true });
  let store: Store | undefined;
  let done = false;
  try {
    store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${target}`), { hostId: config.hostId });
    await store.initSchema({ hostId: config.hostId, minimalSeq: nextId });
    await copyInto(store, config.hostId, data);
    done = true;
  } catch (err) {
    if (err instanceof StoreError) throw new MigrationError(`cannot write ${target}: ${err.message}`, 3);
    throw err;
  } finally {
    await store?.close().catch(() => undefined);
    if (!done) for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(target + suffix, { force: true });
  }
  const note = `was ${db.driver} ${redactUrl(db.server)}: moved by svc-r66server migrate, the Java file is ${opts.serverXml}.bak`;
  await pointDbSection(opts.serverXml, serverText, 'sqlite', `jdbc:sqlite:${target}`, note);
  report.files[0] = `${opts.serverXml}: <db> now jdbc:sqlite:${target} (Java original kept as ${opts.serverXml}.bak)`;
}

async function inPlace(opts: MigrationOptions, config: ServerConfig, db: DbConfig, report: MigrationReport): Promise<void> {
  let store: Store | undefined;
  try {
    const settings = parseJdbcUrl(db.driver, db.server, db.user, db.password);
    report.source = report.target = `${settings.dialect} ${settings.displayUrl} (in place)`;
    store = await openStore(settings, { hostId: config.hostId });
    if (!(await store.isInitialised())) throw new MigrationError(`${settings.displayUrl}: the original's tables are missing (RUNNER, HOSTS, RULES): is this the Java host's database?`, 3);
    const version = await store.schemaVersion();
    if (!opts.dryRun) {
      const up = await store.upgradeSchema(config.hostId);
      report.files.push(`schema ${up.from} -> ${CURRENT_SCHEMA_VERSION}`);
    } else {
      report.files.push(`schema ${version}${version === CURRENT_SCHEMA_VERSION ? ' (current)' : ` would be upgraded to ${CURRENT_SCHEMA_VERSION}`}`);
    }
    const inPlaceNote = 'used in place';
    const counts: Array<[string, number, string]> = [
      ['HOSTS', (await store.hosts.list()).length, inPlaceNote],
      ['RULES', (await store.rules.list()).length, inPlaceNote],
      ['CONFIGURATION', (await store.limits.list()).length, inPlaceNote],
      ['HOSTCONFIG', (await store.hostConfigs.list()).length, inPlaceNote],
      // Each cluster member keeps its own row: this host's is the one counted.
      ['MULTIPLEMONITOR', (await store.multipleMonitors.get(config.hostId)) === undefined ? 0 : 1, `this host's row, ${inPlaceNote}`],
      ['RUNNER', await store.runner.count(), inPlaceNote],
    ];
    report.tables = counts.map(([table, n, note]) => ({ table, read: n, written: 0, skipped: new Map([[note, n]]) }));
    report.inFlight = await store.runner.count({ ownerReq: config.hostId, updatedInfo: [2, 3, 5] });
  } catch (err) {
    if (err instanceof StoreError) throw new MigrationError(describe(err), 3);
    throw err;
  } finally {
    await store?.close().catch(() => undefined);
  }
}

/** client.xml: pointed at the same database as server.xml when it used the Java server's H2 file. */
async function migrateClient(opts: MigrationOptions, serverDb: DbConfig, report: MigrationReport): Promise<void> {
  const file = opts.clientXml;
  if (file === undefined) return;
  const { text, fromBackup } = await originalText(file);
  if (!hasDbSection(text)) {
    report.files.push(`${file}: no database (submit-only or no-database client): unchanged`);
    return;
  }
  let client;
  try {
    client = await loadClientConfig(fromBackup ? `${file}.bak` : file);
    report.ignored.push(...client.warnings);
  } catch (err) {
    throw new MigrationError(`cannot read the Java client configuration: ${describe(err)}`, 2);
  }
  if (client.db === null || !isJavaEmbeddedFile(client.db)) {
    report.files.push(`${file}: <db> ${client.db?.driver ?? 'none'}: unchanged`);
    return;
  }
  if (!isJavaEmbeddedFile(serverDb)) {
    report.files.push(`${file}: <db> is H2 while server.xml is not: point it at ${redactUrl(serverDb.server)} by hand`);
    return;
  }
  const target = defaultSqliteFile(opts.serverXml);
  if (!opts.dryRun) await pointDbSection(file, text, 'sqlite', `jdbc:sqlite:${target}`, `was ${client.db.driver} ${redactUrl(client.db.server)}: moved by svc-r66server migrate, the Java file is ${file}.bak`);
  report.files.push(`${file}: <db> ${opts.dryRun ? 'would be' : 'now'} jdbc:sqlite:${target}${opts.dryRun ? '' : ` (Java original kept as ${file}.bak)`}`);
}

/** The Java original's H2 file (svc-r66 copies it into SQLite), as opposed to a database both open. */
function isJavaEmbeddedFile(db: DbConfig): boolean {
  return configuredDatabase(db.driver, db.server).javaEmbeddedFile;
}

export async function migrateHost(opts: MigrationOptions): Promise<MigrationReport> {
  const serverXml = resolve(opts.serverXml);
  const o = { ...opts, serverXml, clientXml: opts.clientXml === undefined ? undefined : resolve(opts.clientXml) };
  if (!(await exists(serverXml))) throw new MigrationError(`-from ${opts.serverXml}: no such file`, 2);
  const { text, fromBackup } = await originalText(serverXml);
  const config = await loadJavaServerConfig(fromBackup ? `${serverXml}.bak` : serverXml);
  const db = config.db;
  if (db === null) throw new MigrationError(`${serverXml}: no <db> section (no-database mode): there is no database to migrate; start svc-r66server as it is`, 1);
  const report: MigrationReport = {
    hostId: config.hostId, dryRun: opts.dryRun, source: '', target: '', inPlace: !isJavaEmbeddedFile(db), tables: [], inFlight: 0,
    ignored: [...config.warnings],
    files: [], next: [],
  };
  try {
    if (isJavaEmbeddedFile(db)) {
      const target = defaultSqliteFile(serverXml);
      if ((fromBackup || (await exists(target))) && !opts.force) {
        throw new MigrationError(`this host was already migrated (${fromBackup ? `${serverXml}.bak` : target} exists): run again with -force to redo it from the Java files (${target} is then replaced)`, 1);
      }
      report.files.push(`${serverXml}: <db> would be jdbc:sqlite:${target}`);
      await fromH2(o, config, db, text, report);
    } else if (configuredDatabase(db.driver, db.server).svcEmbeddedFile) {
      throw new MigrationError(`${serverXml} already uses svc's SQLite database (${db.server}): nothing to migrate`, 1);
    } else {
      await inPlace(o, config, db, report);
      report.files.push(`${serverXml}: unchanged (same database)`);
    }
    await migrateClient(o, db, report);
  } catch (err) {
    if (err instanceof H2ReadError || err instanceof DbSectionError) throw new MigrationError(err.message, 1);
    throw err;
  }
  const confDir = dirname(serverXml);
  report.next = opts.dryRun
    ? [`svc-r66server migrate -from ${serverXml}${o.clientXml ? ` -client ${o.clientXml}` : ''}`]
    : [`CONFDIR=${confDir} svc-r66server start`];
  return report;
}
