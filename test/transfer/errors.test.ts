import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Digest } from '../../src/model/digest.js';
import { ErrorCode, type ErrorCodeInfo } from '../../src/model/error-code.js';
import { TransferMode, type RuleTask } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { waitFor } from '../helpers/wait.js';
import { closeHosts, makeHostPair, patternBytes, rule, type TestHost } from './harness.js';

/** A LOG task appending `<tag> <code> ` to `file` (delay 2 = file only). */
function logTo(file: string, tag: string): RuleTask {
  return { type: 'LOG', path: `${tag} #ERRORCODE# ${file}`, delay: 2 };
}

describe('error paths end with the original codes on both sides', () => {
  let a: TestHost;
  let b: TestHost;
  let logA: string;
  let logB: string;

  beforeEach(async () => {
    ({ a, b } = await makeHostPair());
    logA = path.join(a.home, 'tasks.log');
    logB = path.join(b.home, 'tasks.log');
    for (const [h, log] of [[a, logA], [b, logB]] as const) {
      const tasks = { sErrorTasks: [logTo(log, 'serror')], rErrorTasks: [logTo(log, 'rerror')], sPostTasks: [logTo(log, 'spost')], rPostTasks: [logTo(log, 'rpost')] };
      await h.addRule(rule('send', TransferMode.SENDMODE, tasks));
      await h.addRule(rule('recv', TransferMode.RECVMODE, tasks));
    }
  });
  afterEach(() => closeHosts(a, b));

  /** An EXEC task running a script that exits 2 (exit 1 would only be a warning). */
  const failing = async (h: TestHost): Promise<RuleTask> => {
    const script = path.join(h.home, 'fail.sh');
    await writeFile(script, '#!/bin/sh\nexit 2\n', { mode: 0o755 });
    return { type: 'EXEC', path: script, delay: 10_000 };
  };
  const log = (file: string): Promise<string> => readFile(file, 'utf8').catch(() => '');
  const partnerRow = (rec: TransferRecord, until?: (r: TransferRecord) => boolean): Promise<TransferRecord> =>
    waitFor(async () => {
      const r = await b.row({ specialId: rec.specialId, requester: 'hosta', requested: 'hostb' });
      return r && (until ? until(r) : r.updatedInfo === UpdatedInfo.INERROR) ? r : undefined;
    });
  const expectError = (r: TransferRecord, code: ErrorCodeInfo): void => {
    expect(r).toMatchObject({ globalStep: TaskStep.ERRORTASK, updatedInfo: UpdatedInfo.INERROR, infoStatus: code });
  };

  it('unknown rule on the partner: u on the requester, no row there', async () => {
    await a.addRule(rule('only-here', TransferMode.SENDMODE));
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'x');
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'only-here', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.QueryRemotelyUnknown);
    expectError(out.record, ErrorCode.QueryRemotelyUnknown);
    expect(await b.store.runner.count()).toBe(0);
  });

  it('requester not allowed by the rule: A', async () => {
    await b.addRule(rule('send', TransferMode.SENDMODE, { hostIds: ['someone-else'] }));
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'x');
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.BadAuthent);
    expect(await log(logA)).toContain('serror A');
  });

  it('mode of the other direction: A', async () => {
    await b.addRule(rule('send', TransferMode.RECVMODE));
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'x');
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.BadAuthent);
  });

  it('missing file on the sending partner: f on both sides, error tasks on both', async () => {
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'nothing-here.txt' });
    expect(out.code).toBe(ErrorCode.FileNotFound);
    expectError(out.record, ErrorCode.FileNotFound);
    expectError(await partnerRow(out.record), ErrorCode.FileNotFound);
    expect(await log(logA)).toBe('rerror f  ');
    await waitFor(async () => (await log(logB)) === 'serror f  ');
  });

  it('missing local file to send: f in the requester\'s row, nothing reaches the partner', async () => {
    // As the original's DirectTransfer (captures/cli-output-java-3.6.2.md): a transfer that fails, no ORIGINALSIZE.
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'nothing.txt' });
    expect(out.code).toBe(ErrorCode.FileNotFound);
    expectError(out.record, ErrorCode.FileNotFound);
    expect(await a.row(out.record)).toMatchObject({ infoStatus: ErrorCode.FileNotFound, updatedInfo: UpdatedInfo.INERROR, transferInfo: '{}', filename: 'nothing.txt' });
    expect(await b.store.runner.count()).toBe(0);
  });

  it('file outside the rule directories: a', async () => {
    await writeFile(path.join(b.home, 'secret.txt'), 'secret');
    for (const name of ['../secret.txt', '/etc/passwd', 'sub/../../secret.txt']) {
      const out = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: name });
      expect(out.code).toBe(ErrorCode.FileNotAllowed);
      expectError(await partnerRow(out.record), ErrorCode.FileNotAllowed);
    }
  });

  it('receive directory that cannot be written: the error reaches both sides, the work file stays', async () => {
    // A plain file where the receive directory should be: the move to the final place fails.
    await writeFile(path.join(b.home, 'blocked'), 'not a directory');
    await b.addRule(rule('send', TransferMode.SENDMODE, { recvPath: '/blocked/in', rErrorTasks: [logTo(logB, 'rerror')] }));
    await writeFile(path.join(a.dirs.out, 'f.bin'), patternBytes(100_000));
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.bin' });
    expect(out.code).toBe(ErrorCode.FinalOp);
    expectError(await partnerRow(out.record), ErrorCode.FinalOp);
    expect(await log(logB)).toBe('rerror F  ');
    expect((await readdir(b.dirs.work)).length).toBe(1);
  });

  // A receiver answers the Request (requested) or waits for the first block (requester) while its
  // work file is being created: a creation that fails ends the transfer with the same code on both
  // sides, and nothing is received.
  for (const requested of [true, false]) {
    it(`work directory that cannot be made (${requested ? 'requested' : 'requester'} receiver): a on both sides`, async () => {
      const [receiver, sender] = requested ? [b, a] : [a, b];
      const [receiverLog, senderLog] = requested ? [logB, logA] : [logA, logB];
      const name = requested ? 'send' : 'recv';
      await writeFile(path.join(receiver.home, 'blocked'), 'not a directory');
      await receiver.addRule(rule(name, requested ? TransferMode.SENDMODE : TransferMode.RECVMODE, { workPath: '/blocked/work', rErrorTasks: [logTo(receiverLog, 'rerror')] }));
      await writeFile(path.join(sender.dirs.out, 'f.bin'), patternBytes(300_000));
      const out = await a.engine.transfer({ partner: 'hostb', rule: name, file: 'f.bin' });
      expect(out.code).toBe(ErrorCode.FileNotAllowed);
      expectError(out.record, ErrorCode.FileNotAllowed);
      expectError(await partnerRow(out.record), ErrorCode.FileNotAllowed);
      await waitFor(async () => (await log(receiverLog)) === 'rerror a  ' && (await log(senderLog)) === 'serror a  ');
      expect(await readdir(receiver.dirs.in)).toEqual([]);
    });
  }

  it('global hash mismatch: M on both sides, rank reset', async () => {
    await writeFile(path.join(a.dirs.out, 'warm.txt'), 'x');
    expect((await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'warm.txt' })).code).toBe(ErrorCode.CompleteOk);
    // A now hashes with SHA-1 while it announced MD5 on the (reused) connection: B's check fails.
    a.identity.digest = Digest.SHA1;
    await writeFile(path.join(a.dirs.out, 'f.bin'), patternBytes(100_000));
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.bin' });
    expect(out.code).toBe(ErrorCode.MD5Error);
    const theirs = await partnerRow(out.record);
    expectError(theirs, ErrorCode.MD5Error);
    expect(theirs.rank).toBe(0);
  });

  it('a failing post-task ends the transfer in error after the data arrived', async () => {
    await b.addRule(rule('send', TransferMode.SENDMODE, { rPostTasks: [await failing(b)], rErrorTasks: [logTo(logB, 'rerror')] }));
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'data');
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expectError(await partnerRow(out.record), ErrorCode.ExternalOp);
    expect(await log(logB)).toBe('rerror E  ');
    expect(await log(logA)).toBe('serror E  ');
  });

  it('pre-task failure on the requested host: E, reported to the requester', async () => {
    await b.addRule(rule('recv', TransferMode.RECVMODE, { sPreTasks: [await failing(b)] }));
    await writeFile(path.join(b.dirs.out, 'f.txt'), 'data');
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(out.message).toContain('PreTask in error');
  });

  it('partner gone mid-transfer: both rows in error, rank kept for a restart', async () => {
    await mkdir(a.dirs.out, { recursive: true });
    await writeFile(path.join(a.dirs.out, 'big.bin'), patternBytes(4_000_000));
    a.engine.bandwidth.set({ writeGlobal: 1_000_000 });
    const pending = a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'big.bin', blockSize: 16384 });
    await waitFor(async () => ((await b.store.runner.list())[0]?.rank ?? 0) > 0, { what: 'data on the receiver' });
    await b.listener.stop();
    const out = await pending;
    expect([ErrorCode.Disconnection.char, ErrorCode.ConnectionImpossible.char]).toContain(out.code.char);
    expect(out.record.rank).toBeGreaterThan(0);
    // hostb ends its side on its own schedule (its channel closes with the listener's connections).
    const theirs = await waitFor(async () => {
      const r = (await b.store.runner.list())[0];
      return r !== undefined && r.updatedInfo !== UpdatedInfo.RUNNING ? r : undefined;
    }, { what: 'hostb ends its side of the transfer' });
    expect(theirs.updatedInfo).toBe(UpdatedInfo.INERROR);
    expect(theirs.rank).toBeGreaterThan(0);
  });
});
