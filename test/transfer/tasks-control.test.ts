import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode, type Rule, type RuleTask } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { encodeValidCommand, newJsonCommand, PacketType } from '../../src/protocol/index.js';
import { waitFor } from '../helpers/wait.js';
import { closeHosts, grantSystemRole, makeHostPair, patternBytes, rule, type TestHost } from './harness.js';
import { setStoredRow } from '../helpers/stored-row.js';

describe('task lists and transfer orders', () => {
  let a: TestHost;
  let b: TestHost;
  let journal: string;

  const log = (tag: string): RuleTask => ({ type: 'LOG', path: `${tag} ${journal}`, delay: 2 });
  const tagged = (h: string, over: Partial<Rule> = {}): Partial<Rule> => ({
    rPreTasks: [log(`rpre-${h}`)], rPostTasks: [log(`rpost-${h}`)], rErrorTasks: [log(`rerror-${h}`)],
    sPreTasks: [log(`spre-${h}`)], sPostTasks: [log(`spost-${h}`)], sErrorTasks: [log(`serror-${h}`)], ...over,
  });

  beforeEach(async () => {
    ({ a, b } = await makeHostPair());
    journal = path.join(a.home, 'journal.txt');
    for (const h of [a, b]) {
      await h.addRule(rule('send', TransferMode.SENDMODE, tagged(h.id)));
      await h.addRule(rule('recv', TransferMode.RECVMODE, tagged(h.id)));
    }
  });
  afterEach(() => closeHosts(a, b));

  const entries = async (): Promise<string[]> => (await readFile(journal, 'utf8').catch(() => '')).split(/\s+/).filter(Boolean);

  it('send: the requested receiver runs R lists, the requester sender S lists, in protocol order', async () => {
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'hello');
    expect((await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' })).code).toBe(ErrorCode.CompleteOk);
    expect(await entries()).toEqual(['rpre-hostb', 'spre-hosta', 'rpost-hostb', 'spost-hosta']);
  });

  it('receive: the requested sender runs S lists, the requester receiver R lists', async () => {
    await writeFile(path.join(b.dirs.out, 'f.txt'), 'hello');
    expect((await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'f.txt' })).code).toBe(ErrorCode.CompleteOk);
    await waitFor(async () => (await entries()).length === 4);
    expect(await entries()).toEqual(['spre-hostb', 'rpre-hosta', 'rpost-hosta', 'spost-hostb']);
  });

  it('error lists run once per attempt on each side', async () => {
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'missing.txt' });
    expect(out.code).toBe(ErrorCode.FileNotFound);
    await waitFor(async () => (await entries()).length === 2);
    expect((await entries()).sort()).toEqual(['rerror-hosta', 'serror-hostb']);
    // A second attempt of the same transfer runs them again, once.
    const again = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'missing.txt', id: out.record.specialId });
    expect(again.code).toBe(ErrorCode.FileNotFound);
    await waitFor(async () => (await entries()).length === 4);
    expect((await entries()).sort()).toEqual(['rerror-hosta', 'rerror-hosta', 'serror-hostb', 'serror-hostb']);
  });

  it('a partner with the SYSTEM role stops a running transfer with a Valid order, then restarts it through the requester', async () => {
    await writeFile(path.join(a.dirs.out, 'big.bin'), patternBytes(3_000_000));
    a.engine.bandwidth.set({ writeGlobal: 2_000_000 });
    const pending = a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'big.bin', blockSize: 16384 });
    const row = await waitFor(async () => (await b.store.runner.list()).find((r) => r.rank > 5));
    const ref = { specialId: row.specialId, requester: 'hosta', requested: 'hostb' };
    // hostb asks hosta (the requester) over R66, legacy form; stop needs the SYSTEM role (§9.9).
    await grantSystemRole(a, b);
    const { channel } = await b.pool.openChannel('hosta');
    await channel.send(encodeValidCommand({ cmd: 'stop', ...ref }));
    const answer = await channel.receive(10_000);
    channel.close();
    expect(answer).toMatchObject({ kind: 'valid', subType: PacketType.REQUESTUSER, middle: 'O', header: `hostb hosta ${ref.specialId}` });
    const out = await pending;
    expect(out.code).toBe(ErrorCode.StoppedTransfer);
    await waitFor(async () => !b.engine.isRunning(ref) && (await b.row(ref))?.infoStatus === ErrorCode.StoppedTransfer);
    // The requested host forwards a restart to the requester, which resubmits its row.
    expect(await b.engine.restart(ref)).toMatchObject({ code: ErrorCode.PreProcessingOk });
    expect((await a.row(ref))?.updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
    // JSON form of cancel on the requester, for a record that no longer runs.
    const { channel: ch2 } = await b.pool.openChannel('hosta');
    const command = newJsonCommand('StopOrCancelJsonPacket', { requester: 'hosta', requested: 'hostb', specialid: ref.specialId, requestUserPacket: PacketType.CANCEL });
    await ch2.send({ kind: 'jsonCommand', command, result: '', subType: PacketType.CANCEL });
    const answer2 = await ch2.receive(10_000);
    ch2.close();
    expect(answer2).toMatchObject({ kind: 'jsonCommand', result: 'O', subType: PacketType.REQUESTUSER });
    expect(await a.row(ref)).toMatchObject({ updatedInfo: UpdatedInfo.INERROR, infoStatus: ErrorCode.CanceledTransfer, rank: 0 });
  });

  it('a transfer already complete on the partner is answered Q and ends done on the sender', async () => {
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'once');
    const first = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' });
    expect(first.code).toBe(ErrorCode.CompleteOk);
    await setStoredRow(a.store.runner, { ...first.record }, { updatedInfo: UpdatedInfo.TOSUBMIT, globalStep: 0, globalLastStep: 0 });
    const again = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt', id: first.record.specialId });
    expect(again.code).toBe(ErrorCode.CompleteOk);
  });

  it('a new transfer whose id the partner knows as finished (ids of two databases collide) ends in error, nothing sent', async () => {
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'new content');
    const id = 4_242_424_242n;
    const now = new Date();
    // hostb finished another transfer from hosta with this id (hosta's other database gave it out).
    await b.store.runner.insert({
      specialId: id, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb', globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK,
      step: 0, rank: 1, blockSize: 65536, mode: TransferMode.SENDMODE, updatedInfo: UpdatedInfo.DONE, stepStatus: ErrorCode.CompleteOk,
      infoStatus: ErrorCode.CompleteOk, retrieveMode: false, isMoved: true, start: now, stop: now, idRule: 'send', filename: 'other.txt',
      originalName: 'other.txt', fileInfo: 'noinfo', transferInfo: '{}',
    });
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt', id });
    expect(out.code).toBe(ErrorCode.QueryAlreadyFinished);
    expect(out.message).toMatch(/ids of two databases of this host collide.*-minimalSeq/);
    expect(await a.row({ specialId: id, requester: 'hosta', requested: 'hostb' })).toMatchObject({ updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, infoStatus: ErrorCode.QueryAlreadyFinished });
    expect(await readdir(b.dirs.in)).toEqual([]);
  });

  // A transfer to oneself runs as the original's (test/integration/migrate-self-request.test.ts).
  it('a blocked host answers l, and serves again once unblocked', async () => {
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'x');
    b.engine.blockRequests(true);
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ServerOverloaded);
    expect(await b.store.runner.count()).toBe(0);
    b.engine.blockRequests(false);
    expect((await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' })).code).toBe(ErrorCode.CompleteOk);
  });

  it('a sender pre-task renaming the file sends the change notification; the receiver follows the new name', async () => {
    for (const h of [a, b]) {
      await h.addRule(rule('renamed', TransferMode.SENDMODE, {
        sPreTasks: [{ type: 'MOVERENAME', path: '#OUTPATH#/renamed-#ORIGINALFILENAME#', delay: 0 }],
        rPostTasks: [{ type: 'MOVERENAME', path: '#INPATH#/#ORIGINALFILENAME#', delay: 0 }],
      }));
    }
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'content');
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'renamed', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(await readFile(path.join(b.dirs.in, 'renamed-f.txt'), 'utf8')).toBe('content');
    const theirs = await b.row({ specialId: out.record.specialId, requester: 'hosta', requested: 'hostb' });
    expect(theirs?.originalName).toBe('/out/renamed-f.txt');
  });

  it('a sender pre-task growing a small file past 1 MiB: the receiver, which opened it for one synced write, takes every byte', async () => {
    // 800 KB announced in the Request (the receiver holds the blocks for one O_DSYNC write); the
    // line-ending conversion makes it 1.2 MB before the data, announced by a change notification.
    for (const h of [a, b]) await h.addRule(rule('grown', TransferMode.SENDMODE, { sPreTasks: [{ type: 'TRANSCODE', path: '-unix2dos', delay: 0 }] }));
    await writeFile(path.join(a.dirs.out, 'lines.txt'), 'x\n'.repeat(400_000));
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'grown', file: 'lines.txt', blockSize: 65536 });
    expect(out.message).toBe('');
    expect(out.code).toBe(ErrorCode.CompleteOk);
    const got = (await readdir(b.dirs.in)).find((f) => f.endsWith('_lines.txt'));
    expect(got).toBeDefined();
    expect(await readFile(path.join(b.dirs.in, got!), 'utf8')).toBe('x\r\n'.repeat(400_000));
  });
});
