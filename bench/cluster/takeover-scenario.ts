/**
 * The take-over run of issue 27 item 3, shared by `npm run cluster-takeover` (the full run:
 * bench/cluster/takeover-run.ts) and test/cluster/kill.test.ts (its CI size):
 *
 * hosta = `members` real svc server processes (same host id, multiplemonitors = members,
 * clustertakeover = takeoverMs, shared directories) on one PostgreSQL schema, hostb one server on
 * SQLite. `svc-r66client masend` submits `small` small files and `large` large ones into the shared
 * database; the members claim and send them. A member is killed with SIGKILL each time the number
 * of files arrived at hostb passes a fraction of `kills` (member 1, then 2...), and started again
 * at once (a new process, a new member number: its old rows are taken over by the others). At the end every hosta row must
 * be DONE and every file at hostb exactly once, byte-identical (SHA-256 of source and copy).
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Child } from '../lib/child.js';
import { writeHomes, type Home } from '../svc/homes.js';
import { memberHome, onPostgres } from './members.js';

export interface TakeoverProcesses {
  /** Runs a command of `home` to its end (throws when it fails). */
  run(side: 'server' | 'client', home: Home, args: string[]): Promise<unknown>;
  /** Starts the server of `home` and resolves once it runs. */
  start(home: Home): Promise<Child>;
}

export interface TakeoverRunOptions {
  /** The shared database as server.xml names it (jdbc:postgresql://...?currentSchema=...). */
  jdbc: string;
  /** SQL on that database (rows and heartbeats are read from it). */
  query<R>(text: string): Promise<R[]>;
  procs: TakeoverProcesses;
  members: number;
  small: number;
  smallBytes: number;
  large: number;
  largeBytes: number;
  takeoverMs: number;
  runLimit: number;
  /** Fractions of the files arrived at hostb at which a member is killed (and restarted): member 1, 2... */
  kills: number[];
  /** Longest wait for the last rows after the last kill. */
  finishTimeoutMs: number;
  log?: (line: string) => void;
  /** Keep the homes (for a look after a failure). */
  keep?: boolean;
}

export interface TakeoverKill {
  /** Which member (1..members) was killed. */
  member: number;
  /** Files at hostb when member 1 was killed. */
  arrivedAtKill: number;
  /** Rows the killed member had RUNNING at the kill. */
  runningAtKill: number;
  /** ms from the kill until none of them was RUNNING for it any more (handed back by another member). */
  handedBackMs: number;
}

export interface TakeoverRunResult {
  files: number;
  bytes: number;
  seconds: number;
  kills: TakeoverKill[];
  /** hosta rows not DONE at the end. */
  notDone: number;
  /** Files missing at hostb, present more than once, or with other bytes. */
  missing: string[];
  duplicated: string[];
  differing: string[];
  /** Files at hostb that were not sent. */
  unexpected: string[];
  /** Rows hostb holds (one per transfer id it was asked for). */
  hostbRows: number;
  ok: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Distinct bytes per file: a counter pattern seeded by the index (large files are written in 1 MiB slices). */
function fileBytes(size: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  let x = (seed * 2654435761) >>> 0;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

async function sha256(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Member numbers of hosta's live heartbeat rows. */
async function memberNumbers(o: TakeoverRunOptions): Promise<Set<string>> {
  const rows = await o.query<{ hostid: string }>("SELECT hostid FROM multiplemonitor WHERE hostid LIKE 'member:%'");
  return new Set(rows.map((r) => r.hostid.split(':')[2] ?? ''));
}

async function runningOf(o: TakeoverRunOptions, member: string): Promise<number> {
  const rows = await o.query<{ n: string }>(`SELECT count(*) AS n FROM runner WHERE updatedinfo = 5 AND transferinfo LIKE '%"CLUSTERMEMBER":${member}%'`);
  return Number(rows[0]?.n ?? 0);
}

export async function runTakeoverScenario(o: TakeoverRunOptions): Promise<TakeoverRunResult> {
  const log = o.log ?? ((): void => undefined);
  const root = mkdtempSync(join(tmpdir(), 'svc-cluster-takeover-'));
  const children: Child[] = [];
  try {
    const { a, b, run } = await writeHomes(root, { runLimit: o.runLimit, digest: 5 });
    onPostgres(join(a.confDir, 'server.xml'), o.jdbc, o.members, o.takeoverMs);
    onPostgres(a.submitXml, o.jdbc, o.members);
    for (const c of run) if (!(c.home === a && c.side === 'client')) await o.procs.run(c.side, c.home, c.args);
    const homes: Home[] = [];
    for (let k = 1; k <= o.members; k++) homes.push(await memberHome(a, k));
    children.push(await o.procs.start(b));
    // Each member's number: the server prints it at its start ("cluster member N of hosta").
    const numbers: string[] = [];
    const members: Child[] = [];
    const startMember = async (k: number): Promise<void> => {
      const child = await o.procs.start(homes[k] as Home);
      children.push(child);
      members[k] = child;
      const n = /cluster member (\d+) of/.exec(child.stdout())?.[1];
      if (n === undefined || !(await memberNumbers(o)).has(n)) throw new Error(`member ${k + 1}: no cluster member number in its start output`);
      numbers[k] = n;
    };
    for (let k = 0; k < o.members; k++) await startMember(k);

    const names: string[] = [];
    let bytes = 0;
    for (let i = 0; i < o.small; i++) names.push(`s${i}.dat`);
    for (let i = 0; i < o.large; i++) names.push(`large${i}.dat`);
    const sums = new Map<string, string>();
    for (const [i, n] of names.entries()) {
      const size = n.startsWith('large') ? o.largeBytes : o.smallBytes + (i % 97);
      const data = fileBytes(size, i + 1);
      writeFileSync(join(a.outDir, n), data);
      sums.set(n, createHash('sha256').update(data).digest('hex'));
      bytes += size;
    }
    log(`${o.members} members, ${o.small} files of ~${o.smallBytes} B and ${o.large} of ${o.largeBytes} B; kills at ${o.kills.map((k) => `${k * 100}%`).join(', ')} of the files`);
    const t0 = Date.now();
    await o.procs.run('client', a, ['masend', a.submitXml, '-to', b.id, '-rule', 'send', '-file', '*.dat']);
    const arrived = (): string[] => readdirSync(b.inDir).filter((f) => f.endsWith('.dat'));

    // Kill i hits member (i mod members) + 1, which is started again at once (in the background,
    // as its take-over is watched): a member killed twice in a run of 3 members is member 1 only
    // with 4 kills; with 2 kills, members 1 and 2 each die once in the middle of their transfers.
    const watches: Array<Promise<TakeoverKill>> = [];
    const restarts: Array<Promise<void>> = [];
    for (const [i, fraction] of o.kills.entries()) {
      const k = i % o.members;
      const target = Math.floor(names.length * fraction);
      for (let waited = 0; arrived().length < target; waited += 50) {
        if (waited > o.finishTimeoutMs) throw new Error(`stalled at ${arrived().length}/${names.length} files before a kill`);
        await sleep(50);
      }
      await restarts[i - o.members];
      const victim = numbers[k] as string;
      // The victim must be in the middle of transfers of its own: at the mark it may hold none for
      // a moment (its slots just freed, the other members' schedulers quicker to take the next
      // rows), which made the kill test nothing on a fast machine. Wait for it to run one.
      let runningAtKill = await runningOf(o, victim);
      for (let waited = 0; runningAtKill === 0; waited += 20) {
        if (waited > o.finishTimeoutMs || arrived().length === names.length) throw new Error(`member ${k + 1} ran no transfer from ${target} files on (${arrived().length}/${names.length} arrived)`);
        await sleep(20);
        runningAtKill = await runningOf(o, victim);
      }
      const arrivedAtKill = arrived().length;
      const killedAt = Date.now();
      await members[k]?.stop('SIGKILL');
      log(`member ${k + 1} (${victim}) killed at ${arrivedAtKill}/${names.length} files, ${runningAtKill} transfers running on it`);
      restarts.push(startMember(k).then(() => log(`member ${k + 1} started again as ${numbers[k]}`)));
      watches.push((async () => {
        // The killed member's rows: handed back by the take-over member, then resumed.
        while ((await runningOf(o, victim)) > 0) {
          if (Date.now() - killedAt > o.finishTimeoutMs) throw new Error(`the killed member's rows were not taken over within ${o.finishTimeoutMs} ms`);
          await sleep(100);
        }
        const handedBackMs = Date.now() - killedAt;
        log(`member ${victim}: its ${runningAtKill} transfers handed back ${handedBackMs} ms after the kill`);
        return { member: k + 1, arrivedAtKill, runningAtKill, handedBackMs };
      })());
    }
    await Promise.all(restarts);
    const kills = await Promise.all(watches);

    let notDone = names.length;
    for (const t = Date.now(); ; await sleep(200)) {
      notDone = Number((await o.query<{ n: string }>('SELECT count(*) AS n FROM runner WHERE updatedinfo <> 6'))[0]?.n ?? names.length);
      const rows = Number((await o.query<{ n: string }>('SELECT count(*) AS n FROM runner'))[0]?.n ?? 0);
      if (notDone === 0 && rows === names.length) break;
      if (Date.now() - t > o.finishTimeoutMs) break;
    }
    const seconds = (Date.now() - t0) / 1000;
    const got = arrived();
    const missing: string[] = [];
    const duplicated: string[] = [];
    const differing: string[] = [];
    const matched = new Set<string>();
    for (const n of names) {
      const copies = got.filter((f) => f === n || f.endsWith(`_${n}`));
      copies.forEach((f) => matched.add(f));
      if (copies.length === 0) missing.push(n);
      else if (copies.length > 1) duplicated.push(n);
      else if ((await sha256(join(b.inDir, copies[0] as string))) !== sums.get(n)) differing.push(n);
    }
    const unexpected = got.filter((f) => !matched.has(f));
    const hostbRows = await hostbRowCount(b);
    const ok = notDone === 0 && missing.length === 0 && duplicated.length === 0 && differing.length === 0 && unexpected.length === 0;
    return { files: names.length, bytes, seconds, kills, notDone, missing, duplicated, differing, unexpected, hostbRows, ok };
  } finally {
    for (const c of children.reverse()) await c.stop('SIGTERM').catch(() => undefined);
    if (o.keep !== true) rmSync(root, { recursive: true, force: true });
  }
}

/** hostb's RUNNER rows (its SQLite database). */
async function hostbRowCount(b: Home): Promise<number> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(b.confDir, 'server.sqlite'), { readonly: true, timeout: 10_000 });
  try {
    return (db.prepare('SELECT count(*) AS n FROM runner').get() as { n: number }).n;
  } finally {
    db.close();
  }
}
