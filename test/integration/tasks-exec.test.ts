/**
 * EXEC, EXECMOVE and EXECOUTPUT through real transfers between two hosts, with real programs:
 * exit codes 0, 1 and other, the time limit (`delay`), `#NOWAIT#`, output capture, arguments with
 * spaces, and file names that try to inject shell commands.
 */
import { existsSync } from 'node:fs';
import { chmod, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { closeHosts, type TestHost } from '../helpers/hosts.js';
import { addRulePair, at, journalEntries, makeTaskHosts, task, transferBetween } from '../helpers/task-transfers.js';
import { waitFor } from '../helpers/wait.js';

describe('EXEC family through real transfers', () => {
  let a: TestHost;
  let b: TestHost;
  let journal: string;
  let bin: string;

  async function script(name: string, body: string): Promise<string> {
    const file = path.join(bin, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
    return file;
  }

  beforeEach(async () => {
    ({ a, b, journal } = await makeTaskHosts());
    bin = b.dirs.conf;
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'payload');
  });
  afterEach(() => closeHosts(a, b));

  it('exit 0: arguments with spaces arrive as single arguments; a file name cannot inject commands', async () => {
    const args = at(b, 'args.txt');
    const rec = await script('record.sh', `out="$1"; shift; for x in "$@"; do printf '%s\\n' "$x"; done > "$out"`);
    const evil = 'in jection;touch pwned$(touch pwned2)`touch pwned3`.txt';
    await writeFile(path.join(a.dirs.out, evil), 'evil payload');
    await addRulePair([a, b], 'exec', journal, (h) => (h === b ? {
      rPostTasks: [task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#'), task('EXEC', `${rec} ${args} "two words" 'single quoted' #TRUEFULLPATH# #ORIGINALFILENAME# #TRANSFERID#`, 10_000)],
    } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'exec', file: evil });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    const lines = (await readFile(args, 'utf8')).split('\n').filter(Boolean);
    expect(lines).toEqual(['two words', 'single quoted', path.join(b.dirs.in, evil), evil, String(out.record.specialId)]);
    for (const dir of [b.home, a.home, process.cwd(), bin]) {
      expect((await readdir(dir)).filter((n) => n.startsWith('pwned'))).toEqual([]);
    }
    expect(requested.globalStep).toBe(TaskStep.ALLDONETASK);
  });

  it('a partner\'s -info with quotes reaches %s as sent, one argument each (issue 32)', async () => {
    const args = at(b, 'info-args.txt');
    const rec = await script('record-info.sh', `out="$1"; shift; for x in "$@"; do printf '%s\\n' "$x"; done > "$out"`);
    await addRulePair([a, b], 'exec', journal, (h) => (h === b ? { rPostTasks: [task('EXEC', `${rec} ${args} %s %s %s`, 10_000)] } : {}));
    const { out } = await transferBetween(a, b, { rule: 'exec', file: 'f.txt', fileInfo: `lot"42 it's #TRUEFULLPATH#` });
    expect(out.code, out.message).toBe(ErrorCode.CompleteOk);
    expect((await readFile(args, 'utf8')).split('\n').filter(Boolean)).toEqual(['lot"42', "it's", '#TRUEFULLPATH#']);
  });

  it('the error the partner receives names no program, argument or rule line of the receiver (issue 32)', async () => {
    await addRulePair([a, b], 'exec', journal, (h) => (h === b ? { rPostTasks: [task('EXEC', '/opt/hidden/svc-no-such-tool -pwd Hunter2 #TRUEFULLPATH#', 5000)] } : {}));
    const missing = await transferBetween(a, b, { rule: 'exec', file: 'f.txt' });
    expect(missing.out.code).toBe(ErrorCode.CommandNotFound);
    expect(missing.out.message).not.toMatch(/hidden|svc-no-such-tool|Hunter2/);
    await addRulePair([a, b], 'exec2', journal, (h) => (h === b ? { rPostTasks: [task('EXEC', '/bin/true /opt/hidden/x "unbalanced', 5000)] } : {}));
    const malformed = await transferBetween(a, b, { rule: 'exec2', file: 'f.txt' });
    expect(malformed.out.code).toBe(ErrorCode.CommandNotFound);
    expect(malformed.out.message).toContain('unbalanced quotes');
    expect(malformed.out.message).not.toMatch(/hidden|bin\/true/);
  });

  it('exit 1 is a success (warning in the log); the next task runs', async () => {
    const one = await script('one.sh', 'echo "minor issue" >&2; exit 1');
    await addRulePair([a, b], 'exec', journal, (h) => (h === b ? { rPostTasks: [task('EXEC', one, 5000), task('COPYRENAME', '#INPATH#/after-exit-1.txt')] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'exec', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(await readFile(path.join(b.dirs.in, 'after-exit-1.txt'), 'utf8')).toBe('payload');
    expect(requested.updatedInfo).toBe(UpdatedInfo.DONE);
  });

  it('another exit code fails the transfer with its status and standard error; error lists follow', async () => {
    const bad = await script('bad.sh', 'echo "database unreachable" >&2; exit 3');
    await addRulePair([a, b], 'exec', journal, (h) => (h === b ? { rPostTasks: [task('EXEC', bad, 5000), task('DELETE', '')] } : {}));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'exec', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(out.message).toContain('<STATUS>3</STATUS>');
    expect(out.message).toContain('database unreachable');
    expect(requested.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(requested.globalStep).toBe(TaskStep.ERRORTASK);
    expect(requested.globalLastStep).toBe(TaskStep.POSTTASK);
    expect(requester.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(existsSync(requested.filename)).toBe(true); // DELETE never ran
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-E', 'serror-hosta-E']);
  });

  it('a program on the sender side failing in the pre-tasks stops the transfer before any data', async () => {
    const bad = await script('bad.sh', 'exit 2');
    await addRulePair([a, b], 'exec', journal, (h) => (h === a ? { sPreTasks: [task('EXEC', bad, 5000)] } : {}));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'exec', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(requester.globalLastStep).toBe(TaskStep.PRETASK);
    expect(requester.rank).toBe(0);
    expect(requested.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(await readdir(b.dirs.in)).toEqual([]);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-E', 'serror-hosta-E']);
  });

  it('the time limit (delay) kills the program and its children and fails the task', async () => {
    const pids = at(b, 'pids.txt');
    const slow = await script('slow.sh', `sleep 30 & echo $$ $! > "${pids}"; wait`);
    await addRulePair([a, b], 'exec', journal, (h) => (h === b ? { rPostTasks: [task('EXEC', slow, 400)] } : {}));
    const started = Date.now();
    const { out, requested } = await transferBetween(a, b, { rule: 'exec', file: 'f.txt' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(out.message).toContain('<STATUS>-1</STATUS>');
    expect(out.message).toMatch(/time limit of 400 ms/);
    expect(requested.infoStatus).toBe(ErrorCode.ExternalOp);
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const ids = (await readFile(pids, 'utf8')).trim().split(/\s+/).map(Number);
    expect(ids).toHaveLength(2);
    await waitFor(() => ids.every((p) => !alive(p)), { what: 'the script and its child to be gone' });
  });

  it('#NOWAIT#: the transfer completes while the program still runs', async () => {
    const gate = at(b, 'gate');
    const marker = at(b, 'marker');
    const waiter = await script('waiter.sh', `while [ ! -f "${gate}" ]; do sleep 0.05; done; echo "$1" > "${marker}"`);
    await addRulePair([a, b], 'exec', journal, (h) => (h === b ? { rPostTasks: [task('EXEC', `#NOWAIT# ${waiter} #ORIGINALFILENAME#`, 20_000)] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'exec', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(requested.globalStep).toBe(TaskStep.ALLDONETASK);
    expect(existsSync(marker)).toBe(false);
    await writeFile(gate, '');
    await waitFor(() => existsSync(marker), { what: 'the detached program to finish' });
    expect((await readFile(marker, 'utf8')).trim()).toBe('f.txt');
  });

  it('EXECMOVE: the program moves the file and prints its new path, which becomes the record file', async () => {
    const mover = await script('mover.sh', 'mkdir -p "$2"; mv "$1" "$2/"; echo "moving..."; echo "$2/$(basename "$1")"');
    await addRulePair([a, b], 'em', journal, (h) => (h === b ? { rPostTasks: [task('EXECMOVE', `${mover} #TRUEFULLPATH# #ARCHPATH#/stored`, 5000), task('COPYRENAME', '#TRUEFULLPATH#.copy')] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'em', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    const stored = await readdir(path.join(b.dirs.arch, 'stored'));
    const name = stored.find((n) => !n.endsWith('.copy')) as string;
    expect(name).toMatch(/f\.txt$/);
    expect(requested.filename).toBe(path.join(b.dirs.arch, 'stored', name));
    // The next task saw the new current file.
    expect(await readFile(path.join(b.dirs.arch, 'stored', `${name}.copy`), 'utf8')).toBe('payload');
  });

  it('EXECMOVE printing no path fails the transfer', async () => {
    const silentOk = await script('quiet.sh', 'exit 0');
    await addRulePair([a, b], 'em', journal, (h) => (h === b ? { rPostTasks: [task('EXECMOVE', silentOk, 5000)] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'em', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(out.message).toMatch(/printed no new file path/);
    expect(requested.updatedInfo).toBe(UpdatedInfo.INERROR);
  });

  it('EXECOUTPUT: on failure the output is the error the partner sees, and NEWFINALNAME repoints the file', async () => {
    const checker = await script('check.sh', 'echo "line one of the report"; echo "bad format in $1"; echo "NEWFINALNAME:$2"; exit 4');
    await addRulePair([a, b], 'eo', journal, (h) => (h === b ? { rPostTasks: [task('EXECOUTPUT', `${checker} #ORIGINALFILENAME# #ARCHPATH#/rejected.txt`, 5000)] } : {}));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'eo', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(out.message).toContain('<STATUS>4</STATUS>');
    expect(out.message).toContain('line one of the report\nbad format in f.txt');
    expect(out.message).not.toContain('NEWFINALNAME');
    expect(requested.filename).toBe(path.join(b.dirs.arch, 'rejected.txt'));
    expect(requester.infoStatus).toBe(ErrorCode.ExternalOp);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
  });

  it('EXECOUTPUT exit 0 and 1 succeed (1 leaves the W info status); an unknown program fails with c', async () => {
    const warn = await script('warn.sh', 'echo "careful"; exit 1');
    await addRulePair([a, b], 'eo', journal, (h) => (h === b ? { rPostTasks: [task('EXECOUTPUT', `${warn} #TRUEFULLPATH#`, 5000)] } : {}));
    const ok = await transferBetween(a, b, { rule: 'eo', file: 'f.txt' });
    expect(ok.out.code).toBe(ErrorCode.CompleteOk);
    expect(ok.requested.infoStatus).toBe(ErrorCode.Warning);
    expect(ok.requested.updatedInfo).toBe(UpdatedInfo.DONE);

    await addRulePair([a, b], 'missing', journal, (h) => (h === b ? { rPostTasks: [task('EXEC', path.join(bin, 'no-such-program'), 5000)] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'missing', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.CommandNotFound);
    expect(requested.infoStatus).toBe(ErrorCode.CommandNotFound);
    await waitFor(async () => (await journalEntries(journal)).includes('serror-hosta-c'));
  });
});
