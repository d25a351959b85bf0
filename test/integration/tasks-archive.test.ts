/**
 * Archive, transcode and check tasks through real transfers between two hosts: TAR, ZIP, COMPRESS,
 * TRANSCODE, UNZEROED, CHKFILE, CHMOD — effect on disk, on both RUNNER rows and on the outcome,
 * failure cases and the error lists that follow.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { closeHosts, patternBytes, type TestHost } from '../helpers/hosts.js';
import { addRulePair, journalEntries, makeTaskHosts, task, transferBetween } from '../helpers/task-transfers.js';
import { waitFor } from '../helpers/wait.js';

describe('archive, transcode and check tasks through real transfers', () => {
  let a: TestHost;
  let b: TestHost;
  let journal: string;

  beforeEach(async () => {
    ({ a, b, journal } = await makeTaskHosts());
  });
  afterEach(() => closeHosts(a, b));

  const keepName = task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#');

  it('TAR: the sender archives listed files (delay 3) and sends the archive; the receiver extracts it (delay 1)', async () => {
    await writeFile(path.join(a.dirs.out, 'x.txt'), 'file x');
    await writeFile(path.join(a.dirs.out, 'y.txt'), 'file y');
    await writeFile(path.join(a.dirs.out, 'list'), 'placeholder');
    await addRulePair([a, b], 'tar', journal, (h) => (h === a ? {
      sPreTasks: [task('TAR', '#OUTPATH#/bundle.tar #OUTPATH#/x.txt #OUTPATH#/y.txt', 3), task('RENAME', '#OUTPATH#/bundle.tar')],
    } : { rPostTasks: [keepName, task('TAR', '#TRUEFULLPATH# #INPATH#/extracted', 1)] }));
    const { out, requested } = await transferBetween(a, b, { rule: 'tar', file: 'list' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(requested.filename).toBe(path.join(b.dirs.in, 'bundle.tar'));
    expect((await readdir(path.join(b.dirs.in, 'extracted'))).sort()).toEqual(['x.txt', 'y.txt']);
    expect(await readFile(path.join(b.dirs.in, 'extracted', 'y.txt'), 'utf8')).toBe('file y');
  });

  it('ZIP: a directory archived by the sender (delay 2) is extracted by the receiver', async () => {
    await mkdir(path.join(a.dirs.out, 'daily', 'sub'), { recursive: true });
    await writeFile(path.join(a.dirs.out, 'daily', 'one.csv'), 'one');
    await writeFile(path.join(a.dirs.out, 'daily', 'sub', 'two.csv'), 'two');
    await writeFile(path.join(a.dirs.out, 'seed'), 'x');
    await addRulePair([a, b], 'zip', journal, (h) => (h === a ? {
      sPreTasks: [task('ZIP', '#OUTPATH#/daily.zip #OUTPATH#/daily', 2), task('RENAME', '#OUTPATH#/daily.zip')],
    } : { rPostTasks: [keepName, task('ZIP', '#TRUEFULLPATH# #INPATH#/unzipped', 1)] }));
    const { out } = await transferBetween(a, b, { rule: 'zip', file: 'seed' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(await readFile(path.join(b.dirs.in, 'unzipped', 'one.csv'), 'utf8')).toBe('one');
    expect(await readFile(path.join(b.dirs.in, 'unzipped', 'sub', 'two.csv'), 'utf8')).toBe('two');
  });

  it('TAR extraction of a file that is no archive fails the transfer: error lists on both sides', async () => {
    await writeFile(path.join(a.dirs.out, 'plain.txt'), 'not a tar archive at all, just text '.repeat(40));
    await addRulePair([a, b], 'tar', journal, (h) => (h === b ? { rPostTasks: [keepName, task('TAR', '#TRUEFULLPATH# #INPATH#/extracted', 1)] } : {}));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'tar', file: 'plain.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(out.message).toMatch(/TAR/);
    expect(requested.globalStep).toBe(TaskStep.ERRORTASK);
    expect(requested.step).toBe(0);
    expect(requested.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(requester.updatedInfo).toBe(UpdatedInfo.INERROR);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-E', 'serror-hosta-E']);
  });

  it('COMPRESS: compressed by the sender before sending, decompressed by the receiver', async () => {
    const data = Buffer.concat([Buffer.from('abc'.repeat(20_000)), patternBytes(10_000)]);
    await writeFile(path.join(a.dirs.out, 'big.dat'), data);
    await addRulePair([a, b], 'zstd', journal, (h) => (h === a ? { sPreTasks: [task('COMPRESS', '', 0)] } : {
      rPostTasks: [keepName, task('COMPRESS', '#INPATH#/restored.dat', 1)],
    }));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'zstd', file: 'big.dat' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    // Sender: the source was replaced by its compressed form, which is what travelled.
    expect(existsSync(path.join(a.dirs.out, 'big.dat'))).toBe(false);
    expect(requester.filename).toBe(path.join(a.dirs.out, 'big.dat.zstd'));
    expect(requester.rank * requester.blockSize).toBeLessThan(data.length);
    // Receiver: the compressed file was replaced by the restored one.
    expect((await readFile(path.join(b.dirs.in, 'restored.dat'))).equals(data)).toBe(true);
    expect(existsSync(path.join(b.dirs.in, 'big.dat.zstd'))).toBe(false);
    expect(requested.filename).toBe(path.join(b.dirs.in, 'restored.dat'));
  });

  it('TRANSCODE: ISO-8859-15 to UTF-8 with dos2unix into a copy; the received file is unchanged', async () => {
    const latin = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a, 0xa4, 0x0d, 0x0a]); // "café\r\n€\r\n"
    await writeFile(path.join(a.dirs.out, 'latin.txt'), latin);
    await addRulePair([a, b], 'tc', journal, (h) => (h === b ? { rPostTasks: [keepName, task('TRANSCODE', '-from ISO-8859-15 -to UTF-8 -extension utf8 -dos2unix')] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'tc', file: 'latin.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(await readFile(path.join(b.dirs.in, 'latin.txt.utf8'), 'utf8')).toBe('café\n€\n');
    expect((await readFile(path.join(b.dirs.in, 'latin.txt'))).equals(latin)).toBe(true);
    expect(requested.filename).toBe(path.join(b.dirs.in, 'latin.txt'));
  });

  it('TRANSCODE with nothing to do fails with W and the error lists run', async () => {
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'text');
    await addRulePair([a, b], 'tc', journal, (h) => (h === b ? { rPostTasks: [task('TRANSCODE', '-dos2unix -unix2dos')] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'tc', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.Warning);
    expect(requested.infoStatus).toBe(ErrorCode.Warning);
    expect(requested.updatedInfo).toBe(UpdatedInfo.INERROR);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-W', 'serror-hosta-W']);
  });

  it('UNZEROED fills an empty received file; CHMOD sets its permissions', async () => {
    await writeFile(path.join(a.dirs.out, 'empty.txt'), '');
    await addRulePair([a, b], 'uz', journal, (h) => (h === b ? { rPostTasks: [keepName, task('UNZEROED', 'EMPTY', 1), task('CHMOD', 'a=r u+w')] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'uz', file: 'empty.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    const file = path.join(b.dirs.in, 'empty.txt');
    expect(await readFile(file, 'utf8')).toBe('EMPTY');
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    expect(requested.globalStep).toBe(TaskStep.ALLDONETASK);
  });

  it('CHKFILE: the announced size is checked in the receiver pre-tasks; too big is refused with d before any data', async () => {
    await writeFile(path.join(a.dirs.out, 'f.bin'), patternBytes(5000));
    await addRulePair([a, b], 'ok', journal, (h) => (h === b ? { rPreTasks: [task('CHKFILE', 'SIZE LT 6000 SIZE GTE 5000 DFCHECK')] } : {}));
    expect((await transferBetween(a, b, { rule: 'ok', file: 'f.bin' })).out.code).toBe(ErrorCode.CompleteOk);

    await addRulePair([a, b], 'small', journal, (h) => (h === b ? { rPreTasks: [task('CHKFILE', 'SIZE LT 1000')] } : {}));
    const { out, requester, requested } = await transferBetween(a, b, { rule: 'small', file: 'f.bin' });
    expect(out.code).toBe(ErrorCode.SizeNotAllowed);
    expect(requested.infoStatus).toBe(ErrorCode.SizeNotAllowed);
    expect(requested.globalLastStep).toBe(TaskStep.PRETASK);
    expect(requester.infoStatus).toBe(ErrorCode.SizeNotAllowed);
    expect(requester.rank).toBe(0);
    expect(await readdir(b.dirs.in)).toHaveLength(1); // only the file of the first transfer
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-d', 'serror-hosta-d']);
  });
});
