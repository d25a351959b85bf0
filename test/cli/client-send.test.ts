// send, msend and transfer end to end: the client's own engine towards hostb (cli.md §3.2, §3.4, §3.6).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasNoStack, sqliteRows } from './cli-helpers.js';
import { jsonResult, pairForFile } from './client-harness.js';

const pair = pairForFile({
  a: { 'hello.txt': 'hello world\n', 'm1.dat': 'one', 'm2.dat': 'two', ...Object.fromEntries([1, 2, 3, 4, 5].map((i) => [`q${i}.dat`, `file ${i}`])) },
  b: { 'remote.txt': 'from b' },
});

describe('send (cli.md §3.2)', () => {
  it('sends a file, prints the DirectTransfer result, exit 0; the partner has the file', async () => {
    const r = await pair.client(['send', '-to', 'hostb', '-rule', 'send', '-file', 'hello.txt', '-info', 'greeting']);
    expect(hasNoStack(r.stderr)).toBe(true);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('[DirectTransfer] Transfer in status:       SUCCESS ');
    const res = jsonResult(r.stdout);
    expect(res).toMatchObject({ command: 'DirectTransfer', status: 0, remote: 'hostb', ruleid: 'send', statusCode: 'O', requester: 'hosta', requested: 'hostb', originalSize: 12 });
    expect(String(res.fileInformation)).toMatch(/^greeting \{"follow":-?\d+\}$/);
    expect(typeof res.delay).toBe('number');
    expect(received(pair.b.serverHome, 'hello.txt')).toBe('hello world\n');
    const rows = await sqliteRows<{ updatedinfo: number }>(pair.a.sqliteFile, `SELECT updatedinfo FROM runner WHERE specialid = ${String(res.specialid)}`);
    expect(rows).toEqual([{ updatedinfo: 6 }]);
  });

  it('sends an absolute file outside the host\'s directories: the user\'s own file, as cli.md §3 allows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-own-file-'));
    try {
      writeFileSync(join(dir, 'own.txt'), 'my own file\n');
      const r = await pair.client(['send', '-to', 'hostb', '-rule', 'send', '-file', join(dir, 'own.txt')]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(received(pair.b.serverHome, 'own.txt')).toBe('my own file\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('receives a file with a receive rule; -nolog removes the local record', async () => {
    const r = await pair.client(['send', '-to', 'hostb', '-rule', 'recv', '-file', 'remote.txt', '-nolog', '-property']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(received(pair.a.serverHome, 'remote.txt')).toBe('from b');
    const id = /\nspecialid=(-?\d+)\n/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    expect(await sqliteRows(pair.a.sqliteFile, `SELECT * FROM runner WHERE specialid = ${id}`)).toEqual([]);
  });

  it('a missing remote file fails with the ordinal of the final code', async () => {
    const r = await pair.client(['send', '-to', 'hostb', '-rule', 'recv', '-file', 'absent.txt']);
    expect(r.code).toBeGreaterThan(2);
    const res = jsonResult(r.stdout);
    expect(res).toMatchObject({ status: 2, statusTxt: 'Transfer in status:       FAILURE ', error: expect.any(String) });
    expect(r.code).toBe(errorOrdinal(String(res.statusCode)));
  });

  it('an unreachable partner: exit 5 (ConnectionImpossible)', async () => {
    const r = await pair.client(['send', '-to', 'hostc', '-rule', 'send', '-file', 'hello.txt', '-quiet']);
    expect(r).toMatchObject({ code: 5, stdout: '' });
  });

  it('wrong arguments: "wrong initialization" line, exit 2', async () => {
    const r = await pair.client(['send', '-to', 'hostb', '-file', 'hello.txt']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('[DirectTransfer] Wrong initialization\n');
    expect(r.stderr).toContain('not all parameters are set');
  });
});

describe('msend (cli.md §3.4)', () => {
  it('sends every file matching the pattern: summary block then one block per transfer', async () => {
    const r = await pair.client(['msend', '-to', 'hostb', '-rule', 'send', '-file', 'm?.dat', '-csv']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('[MultipleDirectTransfer] Multiple Transfer in status:       SUCCESS ');
    expect(lines[1]).toBe('command;args;status;statusTxt;remote;ok;delay');
    expect(lines[2]).toMatch(/^MultipleDirectTransfer;.*;0;Multiple Transfer in status: {7}SUCCESS ;hostb;2;\d+$/);
    expect(lines.filter((l) => l === '[Unique MultipleDirectTransfer] Transfer in status:       SUCCESS ')).toHaveLength(2);
    expect(received(pair.b.serverHome, 'm1.dat')).toBe('one');
    expect(received(pair.b.serverHome, 'm2.dat')).toBe('two');
  });

  // The next file starts once the previous one's EndRequest is sent: its answer and the last
  // row write run beside the next Request. Every result still comes in order, every row ends done.
  it('reports the files in order, each done on both hosts with its own content', async () => {
    const r = await pair.client(['msend', '-to', 'hostb', '-rule', 'send', '-file', 'q?.dat']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(jsonResult(r.stdout)).toMatchObject({ ok: 5 });
    expect(jsonResult(r.stdout)).not.toHaveProperty('ko');
    const blocks = [1, 2, 3, 4, 5].map((i) => jsonResult(r.stdout, i));
    expect(blocks.map((b) => String(b.originalPath).split('/').pop())).toEqual(['q1.dat', 'q2.dat', 'q3.dat', 'q4.dat', 'q5.dat']);
    expect(blocks.every((b) => b.statusCode === 'O')).toBe(true);
    const ids = blocks.map((b) => String(b.specialid)).join(',');
    for (const file of [pair.a.sqliteFile, pair.b.sqliteFile]) {
      const rows = await sqliteRows<{ updatedinfo: number; n: number }>(file, `SELECT updatedinfo, COUNT(*) AS n FROM runner WHERE specialid IN (${ids}) GROUP BY updatedinfo`);
      expect(rows, file).toEqual([{ updatedinfo: 6, n: 5 }]);
    }
    for (const i of [1, 2, 3, 4, 5]) expect(received(pair.b.serverHome, `q${i}.dat`)).toBe(`file ${i}`);
  });

  it('counts the failed transfers in the exit code', async () => {
    const r = await pair.client(['msend', '-to', 'hostb,hostc', '-rule', 'send', '-file', 'm1.dat', '-quiet']);
    expect(r.code).toBe(1);
  });
});

describe('transfer (cli.md §3.6)', () => {
  it('prints a local record; an unknown id is asked to the partner and fails', async () => {
    const sent = await pair.client(['send', '-to', 'hostb', '-rule', 'send', '-file', 'hello.txt']);
    const id = String(jsonResult(sent.stdout).specialid);
    const r = await pair.client(['transfer', '-id', id, '-to', 'hostb']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('[RequestTransfer] Request Transfer in status:       SUCCESS ');
    expect(r.stdout).toContain(`"specialid":${id},`);
    expect(jsonResult(r.stdout)).toMatchObject({ statusCode: 'O', ruleid: 'send' });
    const unknown = await pair.client(['transfer', '-id', '12345', '-to', 'hostb']);
    expect(unknown.code).not.toBe(0);
    expect(jsonResult(unknown.stdout)).toMatchObject({ status: 2 });
  });

  it('-stop, -cancel and -restart are exclusive; -id is required', async () => {
    expect((await pair.client(['transfer', '-id', '1', '-to', 'hostb', '-stop', '-cancel'])).code).toBe(1);
    expect((await pair.client(['transfer', '-to', 'hostb', '-stop', '-quiet'])).code).toBe(1);
  });

  it('-cancel of a finished transfer asked to the requester (this host): not done, exit 3 or 4', async () => {
    const sent = await pair.client(['send', '-to', 'hostb', '-rule', 'send', '-file', 'hello.txt']);
    const id = String(jsonResult(sent.stdout).specialid);
    const r = await pair.client(['transfer', '-id', id, '-to', 'hostb', '-cancel']);
    expect([0, 3, 4]).toContain(r.code);
  });
});

/** Content of the file received as `name` in the `in` directory (the receiver may prefix the name with the transfer id). */
function received(serverHome: string, name: string): string {
  const dir = join(serverHome, 'in');
  const found = readdirSync(dir).filter((f) => f === name || f.endsWith(`_${name}`));
  if (found.length === 0) throw new Error(`${name} not received in ${dir}: ${readdirSync(dir).join(', ')}`);
  return readFileSync(join(dir, found[0] as string), 'utf8');
}

function errorOrdinal(char: string): number {
  const order = 'iBXPOClAETMDrFUSRIHKW-QsNLufcpznad';
  return order.indexOf(char);
}
