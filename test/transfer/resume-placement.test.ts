/**
 * The receiver's file work and placement, on both storages behind the seam (src/transfer/file/
 * storage.ts): a transfer stopped then resumed from the rank its work file holds, a cancel that
 * removes the work file, work and receive directories made when missing, a wildcard and a missing
 * file on the sending side. With the memory storage the in/out/work directories do not exist on
 * disk: a file operation that bypassed the seam would fail these tests.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { receivedIn, STORAGES } from '../helpers/host-files.js';
import { waitFor } from '../helpers/wait.js';
import { addRules, closeHosts, makeHostPair, patternBytes, resumeWithScheduler, rule, type TestHost } from './harness.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe.each(STORAGES)('receiver and placement (%s storage)', (storage) => {
  let a: TestHost;
  let b: TestHost;

  beforeEach(async () => {
    ({ a, b } = await makeHostPair({ storage }, { storage }));
    await addRules([a, b], rule('send', TransferMode.SENDMD5MODE), rule('recv', TransferMode.RECVMODE));
  });
  afterEach(() => closeHosts(a, b));

  it('stop from the API keeps the work file; the restart resumes from its rank and places the whole file', async () => {
    const content = patternBytes(3_000_000, 3);
    await a.files.write(path.join(a.dirs.out, 'big.bin'), content);
    a.engine.bandwidth.set({ writeGlobal: 2_000_000 });
    const pending = a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'big.bin', blockSize: 16384 });
    const started = await waitFor(async () => (await a.store.runner.list()).find((r) => r.rank > 10));
    const ref = { specialId: started.specialId, requester: 'hosta', requested: 'hostb' };
    expect(await a.engine.stop(ref)).toMatchObject({ code: ErrorCode.CompleteOk });
    const out = await pending;
    expect(out.code).toBe(ErrorCode.StoppedTransfer);
    expect(out.record).toMatchObject({ updatedInfo: UpdatedInfo.INERROR, globalLastStep: TaskStep.TRANSFERTASK });
    const theirs = await waitFor(async () => {
      const r = await b.row(ref);
      return r?.updatedInfo === UpdatedInfo.INERROR ? r : undefined;
    });
    expect(theirs.infoStatus).toBe(ErrorCode.StoppedTransfer);
    expect(theirs.rank).toBeGreaterThan(0);
    const work = await b.files.list(b.dirs.work);
    expect(work).toHaveLength(1);
    // The work file holds at least the blocks of the rank the receiver kept.
    const kept = await b.files.read(path.join(b.dirs.work, work[0] as string));
    expect(kept.length).toBeGreaterThanOrEqual(theirs.rank * 16384);
    expect(kept.equals(content.subarray(0, kept.length))).toBe(true);
    a.engine.bandwidth.set({ writeGlobal: 0 });
    const { done, resumedFrom } = await resumeWithScheduler(a, ref);
    expect(done.infoStatus).toBe(ErrorCode.CompleteOk);
    expect(resumedFrom[0]).toBeGreaterThan(0);
    const placed = await waitFor(async () => {
      const r = await b.row(ref);
      return r?.updatedInfo === UpdatedInfo.DONE ? r : undefined;
    });
    expect(placed.isMoved).toBe(true);
    expect(sha(await b.files.read(placed.filename))).toBe(sha(content));
    expect(await b.files.list(b.dirs.work)).toEqual([]);
    // Done on the partner too: nothing to restart there.
    expect(await b.engine.restart(ref)).toMatchObject({ code: ErrorCode.CompleteOk });
  });

  it('cancel from the receiving host ends with K, rank 0, and removes the work file', async () => {
    await a.files.write(path.join(a.dirs.out, 'big.bin'), patternBytes(3_000_000, 4));
    a.engine.bandwidth.set({ writeGlobal: 2_000_000 });
    const pending = a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'big.bin', blockSize: 16384 });
    const started = await waitFor(async () => (await b.store.runner.list()).find((r) => r.rank > 5));
    const ref = { specialId: started.specialId, requester: 'hosta', requested: 'hostb' };
    expect(await b.files.list(b.dirs.work)).toHaveLength(1);
    expect(await b.engine.cancel(ref)).toMatchObject({ code: ErrorCode.CompleteOk });
    const out = await pending;
    expect(out.code).toBe(ErrorCode.CanceledTransfer);
    expect(out.record.rank).toBe(0);
    await waitFor(async () => (await b.row(ref))?.updatedInfo === UpdatedInfo.INERROR);
    expect(await b.files.list(b.dirs.work)).toEqual([]);
    expect(await b.files.list(b.dirs.in)).toEqual([]);
  });

  it('makes a rule\'s missing work and receive directories, on the requested and the requester receiver', async () => {
    const deep = rule('deep', TransferMode.SENDMODE, { workPath: 'work/deep/w', recvPath: 'in/deep/r' });
    const deepRecv = rule('deep-recv', TransferMode.RECVMODE, { workPath: 'work/deep/w2', recvPath: 'in/deep/r2' });
    await addRules([a, b], deep, deepRecv);
    const content = patternBytes(200_000, 8);
    await a.files.write(path.join(a.dirs.out, 'd.bin'), content);
    await b.files.write(path.join(b.dirs.out, 'e.bin'), content);
    const sent = await a.engine.transfer({ partner: 'hostb', rule: 'deep', file: 'd.bin' });
    expect(sent.code, sent.message).toBe(ErrorCode.CompleteOk);
    expect(sha(await receivedIn(b.files, path.join(b.home, 'in/deep/r'), 'd.bin'))).toBe(sha(content));
    expect(await b.files.list(path.join(b.home, 'work/deep/w'))).toEqual([]);
    const got = await a.engine.transfer({ partner: 'hostb', rule: 'deep-recv', file: 'e.bin' });
    expect(got.code, got.message).toBe(ErrorCode.CompleteOk);
    expect(got.file).toBe(path.join(a.home, 'in/deep/r2', path.basename(got.file!)));
    expect(sha(await a.files.read(got.file!))).toBe(sha(content));
  });

  it('the requested sender expands a wildcard among its files, and answers f for a missing one', async () => {
    const content = patternBytes(70_000, 9);
    await b.files.write(path.join(b.dirs.out, 'w-2.bin'), patternBytes(10, 1));
    await b.files.write(path.join(b.dirs.out, 'w-1.bin'), content);
    const first = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'w-*.bin' });
    expect(first.code, first.message).toBe(ErrorCode.CompleteOk);
    // The first match in name order.
    expect(sha(await a.files.read(first.file!))).toBe(sha(content));
    const missing = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'nothing-here.bin' });
    expect(missing.code).toBe(ErrorCode.FileNotFound);
    expect(await a.files.list(a.dirs.work)).toEqual([]);
  });
});
