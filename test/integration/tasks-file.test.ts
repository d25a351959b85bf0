/**
 * File tasks through real transfers between two hosts: LOG, COPY, COPYRENAME, MOVE, MOVERENAME,
 * LINKRENAME, RENAME, DELETE, VALIDFILEPATH — their effect on disk, on both RUNNER rows and on the
 * outcome, and the error lists that follow a failing task.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { closeHosts, type TestHost } from '../helpers/hosts.js';
import { addRulePair, at, journalEntries, journalTask, makeTaskHosts, task, transferBetween } from '../helpers/task-transfers.js';
import { waitFor } from '../helpers/wait.js';

describe('file tasks through real transfers', () => {
  let a: TestHost;
  let b: TestHost;
  let journal: string;

  beforeEach(async () => {
    ({ a, b, journal } = await makeTaskHosts());
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'payload of f');
  });
  afterEach(() => closeHosts(a, b));

  it('COPY, COPYRENAME, MOVERENAME and LOG on the receiver, MOVE on the sender', async () => {
    const copies = at(b, 'copies');
    await addRulePair([a, b], 'files', journal, (h) => (h === b ? {
      rPostTasks: [
        task('COPY', copies),
        task('COPYRENAME', '#ARCHPATH#/#ORIGINALFILENAME#.bak'),
        task('MOVERENAME', '#INPATH#/final/#ORIGINALFILENAME#'),
        journalTask(journal, 'rpost-#TRUEFILENAME#-#REMOTEHOST#'),
      ],
    } : { sPostTasks: [task('MOVE', '#ARCHPATH#/sent'), journalTask(journal, 'spost-#TRUEFILENAME#')] }));

    const { out, requester, requested } = await transferBetween(a, b, { rule: 'files', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    // Receiver: the copy keeps the received (prefixed) name, the .bak and the final name the original one.
    const final = path.join(b.dirs.in, 'final', 'f.txt');
    expect(await readFile(final, 'utf8')).toBe('payload of f');
    expect(await readFile(path.join(b.dirs.arch, 'f.txt.bak'), 'utf8')).toBe('payload of f');
    const copied = await readdir(copies);
    expect(copied).toHaveLength(1);
    expect(copied[0]).toMatch(/^-?\d+_\d+_f\.txt$/);
    expect(requested.filename).toBe(final);
    expect(requested.isMoved).toBe(true);
    expect(requested.globalStep).toBe(TaskStep.ALLDONETASK);
    expect(requested.infoStatus).toBe(ErrorCode.CompleteOk);
    expect(requested.updatedInfo).toBe(UpdatedInfo.DONE);
    // Sender: the source moved to the archive directory, and the record points at it.
    expect(existsSync(path.join(a.dirs.out, 'f.txt'))).toBe(false);
    const moved = path.join(a.dirs.arch, 'sent', 'f.txt');
    expect(await readFile(moved, 'utf8')).toBe('payload of f');
    expect(requester.filename).toBe(moved);
    expect(requester.isMoved).toBe(true);
    expect(requester.globalStep).toBe(TaskStep.ALLDONETASK);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect(await journalEntries(journal)).toEqual(['rpost-f.txt-hosta', 'spost-f.txt']);
  });

  it('RENAME in the sender pre-tasks sends another file; LINKRENAME then DELETE on the receiver', async () => {
    await writeFile(path.join(a.dirs.out, 'other.txt'), 'the other one');
    await addRulePair([a, b], 'files', journal, (h) => (h === a ? { sPreTasks: [task('RENAME', '#OUTPATH#/other.txt')] } : {
      rPostTasks: [task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#'), task('LINKRENAME', '#INPATH#/latest.txt'), task('DELETE', '')],
    }));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'files', file: 'f.txt' });
    expect(out.message).toBe('');
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(requester.filename).toBe(path.join(a.dirs.out, 'other.txt'));
    expect(requester.isMoved).toBe(true);
    // The receiver asked for f.txt but got other.txt under the name the sender announced.
    const received = path.join(b.dirs.in, 'other.txt');
    expect(await readFile(received, 'utf8')).toBe('the other one');
    // LINKRENAME made latest.txt the current file (a hard link), DELETE removed the link only.
    expect(existsSync(path.join(b.dirs.in, 'latest.txt'))).toBe(false);
    expect((await stat(received)).nlink).toBe(1);
    expect(requested.filename).toBe(path.join(b.dirs.in, 'latest.txt'));
    expect(requested.infoStatus).toBe(ErrorCode.CompleteOk);
  });

  it('VALIDFILEPATH accepts the receive directory and refuses another one: error lists follow on both sides', async () => {
    await addRulePair([a, b], 'ok', journal, (h) => (h === b ? { rPostTasks: [task('VALIDFILEPATH', '#INPATH#/ /data/', 1)] } : {}));
    const ok = await transferBetween(a, b, { rule: 'ok', file: 'f.txt' });
    expect(ok.out.code).toBe(ErrorCode.CompleteOk);

    await addRulePair([a, b], 'bad', journal, (h) => (h === b ? { rPostTasks: [task('LOG', 'first', 0), task('VALIDFILEPATH', '/nowhere/ /data/', 1), task('DELETE', '')] } : {}));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'bad', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(requested.globalStep).toBe(TaskStep.ERRORTASK);
    expect(requested.globalLastStep).toBe(TaskStep.POSTTASK);
    expect(requested.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(requested.updatedInfo).toBe(UpdatedInfo.INERROR);
    expect(requester.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(requester.updatedInfo).toBe(UpdatedInfo.INERROR);
    // The failing task stopped the list: DELETE did not run, the received file is still there.
    expect(existsSync(requested.filename)).toBe(true);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-E', 'serror-hosta-E']);
  });

  it('a failing COPY in the sender pre-tasks stops the transfer before any data: nothing received', async () => {
    await writeFile(at(a, 'blocker'), 'a file where a directory is expected');
    await addRulePair([a, b], 'files', journal, (h) => (h === a ? { sPreTasks: [task('COPY', at(a, 'blocker', 'sub')), task('DELETE', '')] } : {}));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'files', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(out.message).toMatch(/COPY/);
    expect(requester.globalLastStep).toBe(TaskStep.PRETASK);
    expect(requester.step).toBe(0);
    expect(requester.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(requested.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(existsSync(path.join(a.dirs.out, 'f.txt'))).toBe(true);
    const received = await readdir(b.dirs.in);
    expect(received).toEqual([]);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-E', 'serror-hosta-E']);
  });

  it('tasks in the error lists act on disk: the receiver quarantines its file, the sender keeps a copy named after the error', async () => {
    await addRulePair([a, b], 'quarantine', journal, (h) => (h === b ? {
      rPostTasks: [task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#'), task('VALIDFILEPATH', '/nowhere/')],
      rErrorTasks: [task('MOVE', '#ARCHPATH#/failed')],
    } : { sErrorTasks: [task('COPYRENAME', '#ARCHPATH#/#ORIGINALFILENAME#.#ERRORCODE#')] }));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'quarantine', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(existsSync(path.join(b.dirs.in, 'f.txt'))).toBe(false);
    expect(await readFile(path.join(b.dirs.arch, 'failed', 'f.txt'), 'utf8')).toBe('payload of f');
    expect(requested.filename).toBe(path.join(b.dirs.arch, 'failed', 'f.txt'));
    expect(requested.globalStep).toBe(TaskStep.ERRORTASK);
    expect(await readFile(path.join(a.dirs.arch, 'f.txt.E'), 'utf8')).toBe('payload of f');
    expect(requester.updatedInfo).toBe(UpdatedInfo.INERROR);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-E', 'serror-hosta-E']);
  });

  it('DELETE of the source after sending, in a receive-mode rule (the requested host sends)', async () => {
    await writeFile(path.join(b.dirs.out, 'pull.txt'), 'pulled');
    await addRulePair([a, b], 'pull', journal, (h) => (h === b ? { sPostTasks: [task('DELETE', '')] } : { rPostTasks: [task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#')] }), 2);
    const { out, requested } = await transferBetween(a, b, { rule: 'pull', file: 'pull.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(await readFile(path.join(a.dirs.in, 'pull.txt'), 'utf8')).toBe('pulled');
    expect(existsSync(path.join(b.dirs.out, 'pull.txt'))).toBe(false);
    expect(requested.globalStep).toBe(TaskStep.ALLDONETASK);
  });
});
