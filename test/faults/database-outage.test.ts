/**
 * A host whose database server stops while transfers run (issue 32 item 1): the server process used
 * to exit ("unexpected error: Disconnection: local channel closed", from the unhandled-rejection
 * handler). Here hosta (the sender, its scheduler running 60 transfers at once) and hostb (the
 * receiver) keep their rows on a PostgreSQL or MariaDB server of the test's own (db-instance.ts,
 * never the shared one), which is stopped hard three times in the middle of the transfers and
 * started again. Both processes must live through it, and once the database is back every file
 * arrives at hostb exactly once, byte-identical, and every row of hosta ends DONE.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Child } from '../../bench/lib/child.js';
import { writeHomes } from '../../bench/svc/homes.js';
import { runSvc, startSvcServer } from '../cluster/processes.js';
import { waitFor } from '../helpers/wait.js';
import { canMake, makeDbInstance, type DbInstance } from './db-instance.js';

const FILES = 120;
const CONCURRENT = 60;
const STOPS = [0.15, 0.45, 0.75];
/** How long the database stays down once hosta noticed it. */
const DOWN_MS = 3_000;

/** Points a server.xml or client.xml at `jdbc` on `db`. */
function pointAt(file: string, db: DbInstance, jdbc: string): void {
  const xml = readFileSync(file, 'utf8').replace(/<db>.*?<\/db>/s,
    `<db><dbdriver>${db.driver}</dbdriver><dbserver>${jdbc}</dbserver><dbuser>${db.user}</dbuser><dbpasswd>${db.password}</dbpasswd></db>`);
  writeFileSync(file, xml);
}

/** A session bandwidth limit: each transfer lasts a few seconds, so stops find 60 of them running. */
function limitSessions(file: string, bytesPerSecond: number): void {
  writeFileSync(file, readFileSync(file, 'utf8').replace('<limit>', `<limit><sessionlimit>${bytesPerSecond}</sessionlimit>`));
}

const dialects = (['postgresql', 'mariadb'] as const).filter((d) => {
  if (canMake(d)) return true;
  // CI installs them (.ci/run): there a missing server is a failure, not a skip.
  if (process.env.SVC_TEST_REQUIRE_DBS === '1') throw new Error(`test/faults/database-outage.test.ts: the ${d} server binaries are not installed`);
  console.log(`test/faults/database-outage.test.ts: ${d} skipped (its server binaries are not installed)`);
  return false;
});

describe.each(dialects)('a host on %s whose database stops three times under 60 transfers', (dialect) => {
  let db: DbInstance;
  let root: string;
  const children: Child[] = [];

  beforeAll(async () => {
    db = await makeDbInstance(dialect);
    root = mkdtempSync(join(tmpdir(), 'svc-outage-'));
  }, 60_000);
  afterAll(async () => {
    for (const c of children) await c.stop('SIGKILL').catch(() => undefined);
    await db?.destroy();
    if (process.env.SVC_TEST_VERBOSE === '1') console.log(`database-outage: homes kept in ${root}`);
    else rmSync(root, { recursive: true, force: true });
  });

  it('both hosts stay up; after the database returns every file arrives once, identical', async () => {
    const t0 = Date.now();
    const steps: string[] = [];
    const mark = (what: string): void => {
      steps.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)}s`);
      if (process.env.SVC_TEST_VERBOSE === '1') console.log(`database-outage (${dialect}): ${steps.at(-1)}`);
    };
    const { a, b, run } = await writeHomes(root, { runLimit: CONCURRENT, digest: 5 });
    const aJdbc = await db.makeDatabase('svc_a');
    const bJdbc = await db.makeDatabase('svc_b');
    pointAt(join(a.confDir, 'server.xml'), db, aJdbc);
    pointAt(a.submitXml, db, aJdbc);
    pointAt(join(b.confDir, 'server.xml'), db, bJdbc);
    limitSessions(join(a.confDir, 'server.xml'), 160_000);
    for (const c of run) if (!(c.home === a && c.side === 'client')) await runSvc(c.side, c.home, c.args);
    const hostb = await startSvcServer(b);
    children.push(hostb);
    const hosta = await startSvcServer(a);
    children.push(hosta);
    // The last-resort lines, looked for in the whole output as it comes (Child keeps only its last
    // 4 MiB, and a host logs every transfer).
    const lastResort: string[] = [];
    for (const [name, c] of [['hosta', hosta], ['hostb', hostb]] as const) {
      for (const stream of [c.proc.stdout, c.proc.stderr]) {
        let tail = '';
        stream?.on('data', (d: string | Buffer) => {
          const text = tail + String(d);
          const m = /[^\n]*(unhandled promise rejection|unexpected error)[^\n]*/.exec(text);
          if (m) lastResort.push(`${name}: ${m[0].slice(0, 500)}`);
          tail = text.slice(-64);
        });
      }
    }

    const sums = new Map<string, string>();
    for (let i = 0; i < FILES; i++) {
      const data = randomBytes(150_000 + i * 1000);
      const name = `f${i}.dat`;
      writeFileSync(join(a.outDir, name), data);
      sums.set(name, createHash('sha256').update(data).digest('hex'));
    }
    mark('started');
    await runSvc('client', a, ['masend', a.submitXml, '-to', b.id, '-rule', 'send', '-file', '*.dat']);
    const arrived = (): string[] => readdirSync(b.inDir).filter((f) => f.endsWith('.dat'));
    const alive = (): void => {
      for (const [name, c] of [['hosta', hosta], ['hostb', hostb]] as const) {
        if (c.proc.exitCode !== null || c.proc.signalCode !== null) {
          throw new Error(`${name} exited (${c.proc.exitCode ?? c.proc.signalCode}):\n${c.stderr().slice(-3000)}\n${c.stdout().slice(-3000)}`);
        }
      }
    };
    const errorsLogged = (c: Child): number => c.stdout().split('"level":50').length - 1;
    // waitFor, failing at once when a host died (waitFor would take the throw for a retry).
    const until = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> => {
      let died: Error | undefined;
      await waitFor(async () => {
        try {
          alive();
        } catch (err) {
          died = err as Error;
          return true;
        }
        return check();
      }, { what, timeoutMs, intervalMs: 50 });
      if (died) throw died;
    };

    for (const fraction of STOPS) {
      await until(() => arrived().length >= FILES * fraction, `${fraction * 100}% of the files at hostb`, 60_000);
      const errorsBefore = errorsLogged(hosta);
      mark(`stop at ${arrived().length} files`);
      await db.kill();
      // Down until hosta noticed (its transfers fail at their next state write, its scans fail).
      await until(() => errorsLogged(hosta) > errorsBefore, 'hosta to see the database gone', 20_000);
      alive();
      mark('noticed');
      // Down long enough for every running transfer to reach a state write and the scheduler to
      // scan into the outage (a restart within a second spared most of them the failure).
      const downUntil = Date.now() + DOWN_MS;
      await until(() => Date.now() >= downUntil, `the database down for ${DOWN_MS} ms`, DOWN_MS + 5_000);
      mark(`down ${DOWN_MS} ms, ${arrived().length} files`);
      await db.start();
      mark('database back');
    }

    const notDone = async (): Promise<number> =>
      Number((await db.query<{ n: string | number }>(`SELECT count(*) AS n FROM svc_a.${dialect === 'mariadb' ? 'RUNNER' : 'runner'} WHERE updatedinfo <> 6`))[0]?.n);
    try {
      await until(async () => (await notDone()) === 0 && arrived().length >= FILES, 'every transfer DONE', 60_000);
    } catch (err) {
      // What was left: hosta's rows by state, the last warnings of both hosts.
      const table = (h: string): string => `svc_${h}.${dialect === 'mariadb' ? 'RUNNER' : 'runner'}`;
      const states = await db.query(`SELECT updatedinfo, infostatus, count(*) AS n FROM ${table('a')} GROUP BY updatedinfo, infostatus`).catch((e: Error) => e.message);
      const warnings = (c: Child): string => c.stdout().split('\n').filter((l) => /"level":(40|50)/.test(l)).slice(-15).join('\n');
      throw new Error(`${(err as Error).message}; ${arrived().length} files arrived; hosta rows: ${JSON.stringify(states)}\nhosta:\n${warnings(hosta)}\nhostb:\n${warnings(hostb)}`);
    }
    alive();
    mark('all done');
    console.log(`database-outage (${dialect}): ${steps.join(', ')}`);

    const got = arrived();
    expect(got.length).toBe(FILES);
    const differing: string[] = [];
    for (const [name, sum] of sums) {
      const copies = got.filter((f) => f === name || f.endsWith(`_${name}`));
      if (copies.length !== 1 || createHash('sha256').update(readFileSync(join(b.inDir, copies[0] as string))).digest('hex') !== sum) differing.push(name);
    }
    expect(differing).toEqual([]);
    // Every failure was handled where it happened: none reached the last-resort handler.
    expect(lastResort).toEqual([]);
    for (const c of [hosta, hostb]) {
      await c.stop('SIGTERM');
      expect((await c.exited).code).toBe(0);
    }
  }, 400_000);
});
