// asend and masend: submitted RUNNER rows for the server's scheduler (cli.md §3.3, §3.5, database.md §9.1).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteRows } from './cli-helpers.js';
import { jsonResult, pairForFile } from './client-harness.js';

const pair = pairForFile({
  a: { 'a1.txt': '12345', 'a2.txt': '1' },
  b: { 'remote-1.dat': 'r1', 'remote-2.dat': 'r2' },
});

interface Row {
  specialid: number | bigint;
  ownerreq: string;
  requester: string;
  requested: string;
  idrule: string;
  modetrans: number;
  filename: string;
  originalname: string;
  fileinfo: string;
  transferinfo: string;
  blocksz: number;
  retrievemode: number;
  updatedinfo: number;
  starttrans: string;
  globalstep: number;
  step: number;
  rank: number;
  stepstatus: string;
  infostatus: string;
}

async function rowsOf(where = '1=1'): Promise<Row[]> {
  return sqliteRows<Row>(pair.a.sqliteFile, `SELECT * FROM runner WHERE ${where} ORDER BY specialid`);
}

describe('asend (cli.md §3.3)', () => {
  it('inserts a TOSUBMIT row with the rule mode, size, follow id and planned start', async () => {
    const r = await pair.client(['asend', '-to', 'hostb', '-rule', 'send', '-file', 'a1.txt', '-info', 'my info', '-md5', '-block', '1024', '-start', '20991231235959']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('[SubmitTransfer] Prepare transfer in       SUCCESS ');
    const res = jsonResult(r.stdout);
    const [row] = await rowsOf(`specialid = ${String(res.specialid)}`);
    expect(row).toMatchObject({
      ownerreq: 'hosta', requester: 'hosta', requested: 'hostb', idrule: 'send', modetrans: 3, filename: 'a1.txt', originalname: 'a1.txt',
      blocksz: 1024, updatedinfo: 3, globalstep: 0, step: -1, rank: 0,
    });
    expect(row?.stepstatus.trim()).toBe('-');
    expect(row?.fileinfo).toMatch(/^my info \{"follow":-?\d+\}$/);
    expect(row?.transferinfo).toBe('{"ORIGINALSIZE":5}'); // the follow id in FILEINFO only, as the Java client writes it
    expect(String(row?.starttrans)).toContain('2099-12-31');
    expect(res).toMatchObject({ command: 'SubmitTransfer', status: 0, remote: 'hostb', ruleid: 'send', requester: 'hosta', originalSize: 5 });
  });

  it('-nofollow keeps the information as given; -delay +MS plans from now', async () => {
    const before = Date.now();
    const r = await pair.client(['asend', '-to', 'hostb', '-rule', 'recv', '-file', 'remote.bin', '-nofollow', '-delay', '+3600000', '-quiet']);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    const rows = await rowsOf(`filename = 'remote.bin'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ fileinfo: 'noinfo', transferinfo: '{"ORIGINALSIZE":-1}', retrievemode: 0, modetrans: 2 });
    expect(new Date(String(rows[0]?.starttrans).replace(' ', 'T')).getTime()).toBeGreaterThan(before + 3_000_000);
  });

  it('-id resets a failed row for resubmission; a finished one is refused', async () => {
    const r = await pair.client(['asend', '-to', 'hostb', '-rule', 'send', '-file', 'a2.txt']);
    const id = String(jsonResult(r.stdout).specialid);
    const BetterSqlite = (await import('better-sqlite3')).default;
    const db = new BetterSqlite(pair.a.sqliteFile);
    db.prepare(`UPDATE runner SET updatedinfo = 4, globalstep = 5, globallaststep = 2, rank = 7, stepstatus = 'T', infostatus = 'T' WHERE specialid = ${id}`).run();
    const again = await pair.client(['asend', '-to', 'hostb', '-id', id]);
    expect(again.code).toBe(0);
    const [row] = await rowsOf(`specialid = ${id}`);
    expect(row).toMatchObject({ updatedinfo: 3, globalstep: 2, rank: 7 });
    expect(row?.infostatus.trim()).toBe('B');
    db.prepare(`UPDATE runner SET updatedinfo = 6, globalstep = 4, globallaststep = 4 WHERE specialid = ${id}`).run();
    db.close();
    const done = await pair.client(['asend', '-to', 'hostb', '-id', id]);
    expect(done.code).toBe(22);
    expect(jsonResult(done.stdout)).toMatchObject({ status: 2, error: expect.stringContaining('QueryAlreadyFinished') });
  });

  it('wrong arguments and an unknown partner', async () => {
    const missing = await pair.client(['asend', '-to', 'hostb', '-rule', 'send']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not all parameters are set');
    expect((await pair.client(['asend', '-to', 'hostb', '-rule', 'send', '-file', 'x', '-start', '2020', '-quiet'])).code).toBe(1);
    expect((await pair.client(['asend', '-to', 'hostb', '-rule', 'send', '-file', 'x', '-block', '99'])).code).toBe(1);
    expect((await pair.client(['asend', '-to', 'hostb', '-rule', 'send', '-file', 'x', '-start', '20990101000000', '-delay', '+5'])).code).toBe(1);
    expect((await pair.client(['asend', '-to', 'nobody', '-rule', 'send', '-file', 'x'])).code).toBe(24);
  });
});

describe('masend (cli.md §3.5)', () => {
  it('expands local wildcards of a send rule for each partner, one block each and a summary', async () => {
    const r = await pair.client(['masend', '-to', 'hostb', '-rule', 'send', '-file', 'a§.txt', '-nofollow', '-info', 'batch']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => l === '[MultipleSubmitTransfer] Prepare transfer in       SUCCESS ')).toHaveLength(2);
    expect(lines).toContain('[Unique MultipleSubmitTransfer] Prepare transfer in       SUCCESS ');
    expect(jsonResult(r.stdout, 2)).toMatchObject({ ok: 2, ko: 0 });
    const rows = await rowsOf(`fileinfo = 'batch'`);
    expect(rows.map((x) => x.filename)).toEqual([join(pair.a.serverHome, 'out', 'a1.txt'), join(pair.a.serverHome, 'out', 'a2.txt')]);
  });

  it('receive rule: names as given, or the partner list with -client', async () => {
    const plain = await pair.client(['masend', '-to', 'hostb', '-rule', 'recv', '-file', 'remote-§.dat', '-info', 'plain', '-nofollow', '-quiet']);
    expect(plain.code).toBe(0);
    expect((await rowsOf(`fileinfo = 'plain'`)).map((x) => x.filename)).toEqual(['remote-*.dat']);
    const client = await pair.client(['masend', '-to', 'hostb', '-rule', 'recv', '-file', 'remote-§.dat', '-info', 'listed', '-nofollow', '-client']);
    expect(client.code).toBe(0);
    expect((await rowsOf(`fileinfo = 'listed'`)).map((x) => x.filename).sort()).toEqual(['remote-1.dat', 'remote-2.dat']);
  });

  it('300 files: every file its own row and result, in order, with distinct ids (rows written in batches)', async () => {
    const dir = join(pair.a.serverHome, 'out', 'many');
    mkdirSync(dir);
    const names = Array.from({ length: 300 }, (_, i) => `m${String(i).padStart(3, '0')}.dat`);
    names.forEach((n, i) => writeFileSync(join(dir, n), 'x'.repeat(i)));
    // Planned far ahead: the running server's scheduler leaves them alone.
    const r = await pair.client(['masend', '-to', 'hostb', '-rule', 'send', '-file', 'many/§.dat', '-info', 'many', '-nofollow', '-start', '20991231235959']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const results = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results).toHaveLength(301);
    expect(r.stdout.split('\n').filter((l) => l === '[MultipleSubmitTransfer] Prepare transfer in       SUCCESS ')).toHaveLength(300);
    expect(results[300]).toMatchObject({ command: 'Unique MultipleSubmitTransfer', ok: 300, ko: 0 });
    const perFile = results.slice(0, 300);
    expect(perFile.map((x) => x.finalPath)).toEqual(names.map((n) => join(dir, n)));
    expect(perFile.map((x) => x.originalSize)).toEqual(names.map((_, i) => i));
    const rows = await rowsOf(`fileinfo = 'many'`);
    expect(rows.map((x) => x.filename)).toEqual(names.map((n) => join(dir, n)));
    expect(new Set(rows.map((x) => String(x.specialid))).size).toBe(300);
    expect(perFile.map((x) => String(x.specialid))).toEqual(rows.map((x) => String(x.specialid)));
    expect(rows.map((x) => x.transferinfo)).toEqual(names.map((_, i) => `{"ORIGINALSIZE":${i}}`));
    expect(rows.every((x) => x.updatedinfo === 3 && x.requested === 'hostb' && x.requester === 'hosta' && x.ownerreq === 'hosta')).toBe(true);
  });

  it('a row that cannot be written fails for its file alone; the other files of its batch are submitted', async () => {
    const dir = join(pair.a.serverHome, 'out', 'dup');
    mkdirSync(dir);
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, `d${i}.dat`), 'd');
    // The third file's id (the Sequences table gives the next ones in order) is already in RUNNER.
    const [seq] = await sqliteRows<{ seq: number }>(pair.a.sqliteFile, "SELECT seq FROM Sequences WHERE name = 'RUNSEQ'");
    const taken = BigInt(seq!.seq) + 2n;
    const BetterSqlite = (await import('better-sqlite3')).default;
    const db = new BetterSqlite(pair.a.sqliteFile);
    db.prepare(`INSERT INTO runner (specialid, globalstep, globallaststep, step, rank, blocksz, modetrans, updatedinfo, stepstatus, infostatus, retrievemode, ismoved,
      starttrans, stoptrans, ownerreq, requester, requested, idrule, filename, originalname, fileinfo, transferinfo)
      VALUES (${taken}, 4, 4, 0, 0, 65536, 1, 6, 'O  ', 'O  ', 1, 0, '2020-01-01 00:00:00.000', '2020-01-01 00:00:00.000', 'hosta', 'hosta', 'hostb', 'send', 'old', 'old', 'old', '{}')`).run();
    db.close();
    const r = await pair.client(['masend', '-to', 'hostb', '-rule', 'send', '-file', 'dup/§.dat', '-info', 'dup', '-nofollow', '-start', '20991231235959']);
    expect(r.code).toBe(1);
    const results = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results.map((x) => x.status)).toEqual([0, 0, 2, 0, 0, 2]);
    expect(results[2]).toMatchObject({ remote: 'hostb', error: expect.stringMatching(/^Internal: cannot record the transfer: .*already exists/) });
    expect(results[5]).toMatchObject({ ok: 4, ko: 1 });
    const rows = await rowsOf(`fileinfo = 'dup'`);
    expect(rows.map((x) => x.filename)).toEqual([0, 1, 3, 4].map((i) => join(dir, `d${i}.dat`)));
    expect(rows.map((x) => BigInt(x.specialid))).toEqual([0n, 1n, 3n, 4n].map((i) => taken - 2n + i));
  });

  it('unknown rule: exit 2; failed submissions counted in the exit code', async () => {
    expect((await pair.client(['masend', '-to', 'hostb', '-rule', 'nope', '-file', 'x'])).code).toBe(2);
    const r = await pair.client(['masend', '-to', 'hostb,nobody,ghost', '-rule', 'send', '-file', 'a1.txt']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('[Unique MultipleSubmitTransfer] Prepare transfer in       FAILURE ');
  });
});
