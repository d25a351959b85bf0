// Issue 27 take-over with real processes: two svc servers of hosta (same host id, multiplemonitors
// 2, clustertakeover 3000) on one PostgreSQL schema and a shared home, hostb on SQLite. masend of
// 150 small and 2 larger files; member 1 is killed with SIGKILL in the middle; member 2 resumes
// its transfers: every file arrives at hostb once, byte-identical, and every row ends DONE.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberHome, onPostgres } from '../../bench/cluster/members.js';
import type { Child } from '../../bench/lib/child.js';
import { writeHomes, type Home } from '../../bench/svc/homes.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { patternBytes } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { runSvc, startSvcServer } from './processes.js';

const SMALL = 150;
const dialects = testDialects().filter((d) => d.name === 'postgresql');

describe.each(dialects)('kill -9 of a member on $name', (dbc) => {
  let db: TestDatabase | undefined;
  let root: string | undefined;
  const children: Child[] = [];
  let a: Home;
  let b: Home;

  beforeAll(async () => {
    db = await dbc.create();
    if (db === undefined) return;
    root = mkdtempSync(join(tmpdir(), 'svc-cluster-kill-'));
    const homes = await writeHomes(root, { runLimit: 8, digest: 5 });
    ({ a, b } = homes);
    const s = db.settings;
    if (s.dialect === 'sqlite') throw new Error('a server database is expected');
    const jdbc = `jdbc:postgresql://${s.host}:${s.port}/${s.database}?currentSchema=${db.name}`;
    onPostgres(join(a.confDir, 'server.xml'), jdbc, 2, 3000);
    onPostgres(a.submitXml, jdbc, 2);
    for (const c of homes.run) if (!(c.home === a && c.side === 'client')) await runSvc(c.side, c.home, c.args);
    const m2 = await memberHome(a, 2);
    children.push(await startSvcServer(b), await startSvcServer(a), await startSvcServer(m2));
  }, 120_000);
  afterAll(async () => {
    for (const c of children.reverse()) await c.stop('SIGTERM').catch(() => undefined);
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    await db?.drop();
  });

  it('the survivor resumes the killed member\'s transfers; each file arrives once', async (ctx) => {
    if (dbc.skip(ctx) || db === undefined) return;
    const names: string[] = [];
    for (let i = 0; i < SMALL; i++) names.push(`k${i}.dat`);
    names.push('big1.dat', 'big2.dat');
    for (const [i, n] of names.entries()) writeFileSync(join(a.outDir, n), patternBytes(n.startsWith('big') ? 8 << 20 : 6000 + i, i + 3));
    await runSvc('client', a, ['masend', a.submitXml, '-to', b.id, '-rule', 'send', '-file', '*.dat']);
    const arrived = (): string[] => readdirSync(b.inDir).filter((f) => f.endsWith('.dat'));
    await waitFor(() => arrived().length >= 30, { timeoutMs: 30_000, what: '30 files at hostb before the kill' });
    await children[1]?.stop('SIGKILL');
    await waitFor(async () => {
      const rows = await db!.query<{ n: string }>('SELECT count(*) AS n FROM runner WHERE updatedinfo <> 6');
      return Number(rows[0]?.n) === 0;
    }, { timeoutMs: 60_000, intervalMs: 250, what: 'every row DONE after the kill' });
    const got = arrived();
    expect(got).toHaveLength(names.length);
    for (const n of names) {
      const file = got.find((f) => f === n || f.endsWith(`_${n}`));
      expect(file, n).toBeDefined();
      expect(readFileSync(join(b.inDir, file as string)).equals(readFileSync(join(a.outDir, n))), n).toBe(true);
    }
    // Both members ran transfers: the killed one before its death, the survivor the rest.
    const members = await db.query<{ n: string }>("SELECT count(DISTINCT substring(transferinfo from '\"CLUSTERMEMBER\":([0-9]+)')) AS n FROM runner");
    expect(Number(members[0]?.n)).toBe(2);
  }, 120_000);
});
