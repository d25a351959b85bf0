/**
 * Cluster benchmark (issue 27 item 5), run on its own:
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist/bench/cluster/cluster-bench.js [--members 1,2,3] [--files N] [--url postgres://root@127.0.0.1:5432/test]
 *
 * For each member count: a fresh PostgreSQL database, hosta = that many real svc servers (one
 * process each, same host id, multiplemonitors = the count, shared directories), hostb one server
 * on SQLite. `svc-r66client masend` submits N small files (default 1000 of 4 KB) into the shared
 * database; the members' schedulers claim and send them. Prints transfers/s, CPU milliseconds per
 * transfer of each member and of hostb, the database time per transfer of each member (CPU of the
 * PostgreSQL backends serving it, db-time.ts) and of the whole database (pg_stat_database
 * active_time: statements' execution, waits included), the database's committed transactions per
 * transfer (pg_stat_database; each autocommit statement is one) and lock waits seen by sampling
 * pg_locks (issue 37 item 4: docs/cluster.md's model is computed from these figures).
 *
 * Before the files are submitted, the members run idle for IDLE_MS: their scans and heartbeats, and
 * their backends', cost CPU every second whatever the load. That rate is printed apart, and the
 * per-transfer figures are also given net of it (total minus idle rate x duration), so a slow run
 * on a shared machine does not read as a dearer transfer.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Child } from '../lib/child.js';
import { Monitor } from '../lib/proc.js';
import { writeHomes, type Home } from '../svc/homes.js';
import { MemberDatabaseTime } from './db-time.js';
import { memberHome, onPostgres } from './members.js';
import { runCli, startServer } from '../svc/hosts.js';

/** The idle window before the submission. */
const IDLE_MS = 5000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
}

const log = (line: string): void => void process.stderr.write(`[cluster-bench] ${line}\n`);

interface Row {
  members: number;
  files: number;
  seconds: number;
  perSecond: number;
  cpuPerTransferMs: number[];
  hostbCpuPerTransferMs: number;
  /** CPU of the PostgreSQL backends serving each member, ms per transfer. */
  dbCpuPerTransferMs: number[];
  /** The database's active time (all members), ms per transfer. */
  dbActivePerTransferMs: number;
  /** Idle members: CPU ms per second of each member, and of the backends serving it. */
  idleCpuMsPerSecond: number[];
  idleDbCpuMsPerSecond: number[];
  /** The per-transfer CPU figures net of the idle rate over the run's duration. */
  netCpuPerTransferMs: number[];
  netDbCpuPerTransferMs: number[];
  xactPerTransfer: number;
  lockWaitSamples: number;
  /** Exactly once: requests hostb received (its RUNNER rows) and hosta rows not DONE at the end. */
  rowsAtHostb: number;
  notDone: number;
}

async function pgQuery<R>(url: string, text: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows as R[];
  } finally {
    await c.end();
  }
}

/** CPU ms per second of each idle member and of the backends serving it, over IDLE_MS. */
async function idleRates(url: string, memberPids: number[]): Promise<{ cpu: number[]; db: number[] }> {
  const monitor = new Monitor();
  memberPids.forEach((pid, i) => monitor.watch(pid, `member ${i + 1}`));
  const dbTime = await MemberDatabaseTime.open(url, memberPids);
  await dbTime.start();
  const t0 = performance.now();
  while (performance.now() - t0 < IDLE_MS) {
    await new Promise((r) => setTimeout(r, 200));
    await dbTime.sample();
  }
  const seconds = (performance.now() - t0) / 1000;
  const usage = monitor.finish();
  const db = await dbTime.finish();
  return { cpu: usage.map((u) => (u.cpuSeconds * 1000) / seconds), db: db.backendCpuMs.map((ms) => ms / seconds) };
}

async function runOnce(members: number, files: number, baseUrl: string): Promise<Row> {
  const root = mkdtempSync(join(tmpdir(), 'svc-cluster-bench-'));
  const dbName = `svc_cluster_${members}_${process.pid}`;
  await pgQuery(baseUrl, `CREATE DATABASE ${dbName}`);
  const url = new URL(baseUrl);
  url.pathname = `/${dbName}`;
  const jdbc = `jdbc:postgresql://${url.host}/${dbName}`;
  const children: Child[] = [];
  try {
    const { a, b, run } = await writeHomes(root, { runLimit: 16, digest: 5 });
    onPostgres(join(a.confDir, 'server.xml'), jdbc, members);
    onPostgres(a.submitXml, jdbc, members);
    for (const c of run) if (!(c.home === a && c.side === 'client')) await runCli(c.side, c.home, c.args);
    const homes: Home[] = [];
    for (let k = 1; k <= members; k++) homes.push(await memberHome(a, k));
    const serverB = await startServer(b);
    children.push(serverB);
    for (const h of homes) children.push(await startServer(h));
    for (let i = 0; i < files; i++) writeFileSync(join(a.outDir, `bench-${i}.dat`), Buffer.alloc(4096, i % 251));
    const before = (await pgQuery<{ n: string }>(url.toString(), 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()'))[0]?.n ?? '0';
    const memberPids = children.slice(1).map((c) => c.pid);
    const idle = await idleRates(url.toString(), memberPids);
    const monitor = new Monitor();
    children.slice(1).forEach((c, i) => monitor.watch(c.pid, `member ${i + 1}`));
    monitor.watch(serverB.pid, 'host-b');
    const dbTime = await MemberDatabaseTime.open(url.toString(), memberPids);
    await dbTime.start();
    const t0 = performance.now();
    await runCli('client', a, ['masend', a.submitXml, '-to', b.id, '-rule', 'send', '-file', 'bench-*.dat']);
    let lockWaits = 0;
    for (;;) {
      const got = readdirSync(b.inDir).filter((f) => f.includes('bench-')).length;
      if (got >= files) break;
      if (performance.now() - t0 > 15 * 60_000) throw new Error(`stalled at ${got}/${files}`);
      lockWaits += Number((await pgQuery<{ n: string }>(url.toString(), "SELECT count(*) AS n FROM pg_locks WHERE NOT granted"))[0]?.n ?? 0);
      await dbTime.sample();
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - t0) / 1000;
    const usage = monitor.finish();
    const after = (await pgQuery<{ n: string }>(url.toString(), 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()'))[0]?.n ?? '0';
    // hosta's rows reach DONE shortly after hostb has the file: wait for them (bounded).
    let notDone = files;
    for (let i = 0; i < 100 && notDone > 0; i++) {
      notDone = Number((await pgQuery<{ n: string }>(url.toString(), 'SELECT count(*) AS n FROM runner WHERE updatedinfo <> 6'))[0]?.n ?? files);
      if (notDone > 0) await new Promise((r) => setTimeout(r, 100));
    }
    // After the rows reached DONE: their last writes count as the transfers' database time.
    const db = await dbTime.finish();
    const hostbDb = new Database(join(b.confDir, 'server.sqlite'), { readonly: true, timeout: 10_000 });
    const rowsAtHostb = (hostbDb.prepare('SELECT count(*) AS n FROM runner').get() as { n: number }).n;
    hostbDb.close();
    const cpu = (role: string): number => ((usage.find((u) => u.role === role)?.cpuSeconds ?? 0) * 1000) / files;
    const cpuPerTransferMs = homes.map((_, i) => cpu(`member ${i + 1}`));
    const dbCpuPerTransferMs = db.backendCpuMs.map((ms) => ms / files);
    const net = (perTransfer: number[], idlePerSecond: number[]): number[] => perTransfer.map((v, i) => v - ((idlePerSecond[i] ?? 0) * seconds) / files);
    return {
      members, files, seconds, perSecond: files / seconds,
      cpuPerTransferMs, hostbCpuPerTransferMs: cpu('host-b'), dbCpuPerTransferMs, dbActivePerTransferMs: db.activeMs / files,
      idleCpuMsPerSecond: idle.cpu, idleDbCpuMsPerSecond: idle.db,
      netCpuPerTransferMs: net(cpuPerTransferMs, idle.cpu), netDbCpuPerTransferMs: net(dbCpuPerTransferMs, idle.db),
      xactPerTransfer: (Number(after) - Number(before)) / files, lockWaitSamples: lockWaits, rowsAtHostb, notDone,
    };
  } finally {
    for (const c of children.reverse()) await c.stop('SIGTERM').catch(() => undefined);
    await pgQuery(baseUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}

const counts = arg('members', '1,2,3').split(',').map(Number);
const files = Number(arg('files', '1000'));
const baseUrl = arg('url', process.env.SVC_TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432/test');
const rows: Row[] = [];
for (const m of counts) {
  log(`${m} member(s), ${files} files...`);
  const row = await runOnce(m, files, baseUrl);
  rows.push(row);
  log(JSON.stringify(row));
}
const perMember = (ms: number[]): string => ms.map((c) => c.toFixed(2)).join(' / ');
console.log('members  transfers/s  CPU ms/transfer per member  DB CPU ms/transfer per member  DB active ms/transfer  hostb CPU ms/transfer  DB xacts/transfer  lock-wait samples  rows at hostb  not DONE');
for (const r of rows) {
  console.log(`${String(r.members).padStart(7)}  ${r.perSecond.toFixed(1).padStart(11)}  ${perMember(r.cpuPerTransferMs).padStart(26)}  ${perMember(r.dbCpuPerTransferMs).padStart(29)}  ${r.dbActivePerTransferMs.toFixed(2).padStart(21)}  ${r.hostbCpuPerTransferMs.toFixed(2).padStart(21)}  ${r.xactPerTransfer.toFixed(1).padStart(17)}  ${String(r.lockWaitSamples).padStart(17)}  ${String(r.rowsAtHostb).padStart(13)}  ${String(r.notDone).padStart(8)}`);
}
console.log('\nidle (before the submission) and net of it (per transfer, minus the idle rate over the run):');
console.log('members  idle CPU ms/s per member  idle DB CPU ms/s per member  net CPU ms/transfer per member  net DB CPU ms/transfer per member');
for (const r of rows) {
  console.log(`${String(r.members).padStart(7)}  ${perMember(r.idleCpuMsPerSecond).padStart(24)}  ${perMember(r.idleDbCpuMsPerSecond).padStart(27)}  ${perMember(r.netCpuPerTransferMs).padStart(30)}  ${perMember(r.netDbCpuPerTransferMs).padStart(33)}`);
}
