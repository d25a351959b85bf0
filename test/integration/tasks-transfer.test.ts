/**
 * TRANSFER, RESCHEDULE and RESTART through real transfers: a chained transfer to a third host
 * really happens; a rescheduled transfer gets its next attempt time in RUNNER and is run again by
 * the scheduler; RESTART asks the server to restart only for a SYSTEM partner.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { readInfoMap } from '../../src/tasks/index.js';
import { closeHosts, grantSystemRole, introduce, makeHost, type TestHost } from '../helpers/hosts.js';
import { addRulePair, at, finalRow, journalEntries, makeTaskHosts, task, transferBetween } from '../helpers/task-transfers.js';
import { waitFor } from '../helpers/wait.js';

describe('TRANSFER: a chained transfer to a third host', () => {
  let a: TestHost;
  let b: TestHost;
  let c: TestHost;
  let journal: string;

  beforeEach(async () => {
    a = await makeHost('hosta');
    b = await makeHost('hostb', { scheduler: true });
    c = await makeHost('hostc');
    await introduce(a, b, c);
    journal = at(a, 'journal.txt');
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'travels twice');
    await addRulePair([b, c], 'fwd', journal, (h) => (h === c ? { rPostTasks: [task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#')] } : {}));
  });
  afterEach(() => closeHosts(a, b, c));

  it('the receiver submits a transfer to the third host in its post-tasks; the scheduler runs it', async () => {
    await addRulePair([a, b], 'hop', journal, (h) => (h === b ? {
      rPostTasks: [task('MOVERENAME', '#INPATH#/#ORIGINALFILENAME#'), task('TRANSFER', '-to hostc -file #TRUEFULLPATH# -rule fwd -info relayed by #LOCALHOST#')],
    } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'hop', file: 'f.txt', fileInfo: 'first leg' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(requested.globalStep).toBe(TaskStep.ALLDONETASK);
    const chained = await waitFor(async () => {
      const rows = await b.store.runner.list({ requester: 'hostb', requested: 'hostc' });
      return rows.find((r) => r.updatedInfo === UpdatedInfo.DONE);
    }, { what: 'the chained transfer to be done on hostb' });
    expect(chained.idRule).toBe('fwd');
    expect(chained.fileInfo).toMatch(/^relayed by hostb/);
    // The follow id of the first transfer travels to the chained one.
    expect(readInfoMap(chained.fileInfo).follow?.toString()).toBe(readInfoMap(out.record.fileInfo).follow?.toString());
    expect(await readFile(path.join(c.dirs.in, 'f.txt'), 'utf8')).toBe('travels twice');
    const onC = await finalRow(c, { specialId: chained.specialId, requester: 'hostb', requested: 'hostc' });
    expect(onC.globalStep).toBe(TaskStep.ALLDONETASK);
    expect(onC.fileInfo).toMatch(/^relayed by hostb/);
  });

  it('a TRANSFER that cannot be submitted (unknown partner) fails the transfer: error lists follow', async () => {
    await addRulePair([a, b], 'hop', journal, (h) => (h === b ? { rPostTasks: [task('TRANSFER', '-to nobody -file #TRUEFULLPATH# -rule fwd')] } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'hop', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(out.message).toMatch(/nobody/);
    expect(requested.infoStatus).toBe(ErrorCode.ExternalOp);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-E', 'serror-hosta-E']);
  });
});

describe('RESCHEDULE and RESTART', () => {
  let a: TestHost;
  let b: TestHost;
  let journal: string;
  let flag: string;
  const restarts: number[] = [];

  beforeEach(async () => {
    restarts.length = 0;
    ({ a, b, journal } = await makeTaskHosts({ scheduler: true }, { hooks: { restarter: { restartAfter: (ms) => void restarts.push(ms) } } }));
    flag = at(b, 'ready');
    await writeFile(path.join(a.dirs.out, 'f.txt'), 'later');
    // The receiver refuses the file until the flag exists.
    const gate = path.join(b.dirs.conf, 'gate.sh');
    await writeFile(gate, `#!/bin/sh\n[ -f "${flag}" ] || { echo "not ready" >&2; exit 2; }\n`, { mode: 0o755 });
    await addRulePair([a, b], 'gated', journal, (h) => (h === b ? { rPreTasks: [task('EXEC', gate, 5000)] } : {
      sErrorTasks: [task('RESCHEDULE', '-delay 1500 -case E,f -count 2')],
    }));
  });
  afterEach(() => closeHosts(a, b));

  it('RESCHEDULE on the requester: next attempt at now + delay in RUNNER, the rest of the error list skipped, the scheduler runs it again', async () => {
    const before = Date.now();
    const { out, requester } = await transferBetween(a, b, { rule: 'gated', file: 'f.txt' });
    const after = Date.now();
    expect(out.code).toBe(ErrorCode.ExternalOp);
    expect(requester.updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
    // The step shows the error tasks' result (Warning), the info status keeps the error's code
    // (database.md §6.1, tasks.md §8 RESCHEDULE).
    expect(requester.stepStatus).toBe(ErrorCode.Warning);
    expect(requester.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(requester.start.getTime()).toBeGreaterThanOrEqual(before + 1500);
    expect(requester.start.getTime()).toBeLessThanOrEqual(after + 1500);
    const map = readInfoMap(requester.transferInfo);
    expect(map.CPTLIMIT).toBe(1);
    expect(map.CPTTOTAL).toBe(1);
    expect(map.RESCHEDULE).toBe(true);
    // The requester's journal task after RESCHEDULE did not run; the partner's error list did.
    await waitFor(async () => (await journalEntries(journal)).includes('rerror-hostb-E'));
    expect(await journalEntries(journal)).toEqual(['rerror-hostb-E']);

    await writeFile(flag, '');
    const key = { specialId: out.record.specialId, requester: 'hosta', requested: 'hostb' };
    const done = await waitFor(async () => {
      const r = await a.row(key);
      return r?.updatedInfo === UpdatedInfo.DONE ? r : undefined;
    }, { timeoutMs: 15_000, what: 'the rescheduled attempt to complete' });
    expect(done.globalStep).toBe(TaskStep.ALLDONETASK);
    expect((await finalRow(b, key)).globalStep).toBe(TaskStep.ALLDONETASK);
    expect(await readdir(b.dirs.in)).toHaveLength(1);
  });

  it('RESCHEDULE refused (error code not in -case) is a warning: the rest of the list runs, the row ends in error', async () => {
    await addRulePair([a, b], 'other', journal, (h) => (h === b ? { rPreTasks: [task('CHKFILE', 'SIZE LT 1')] } : {
      sErrorTasks: [task('RESCHEDULE', '-delay 1500 -case E,C')],
    }));
    const { out, requester } = await transferBetween(a, b, { rule: 'other', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.SizeNotAllowed);
    expect(requester.updatedInfo).toBe(UpdatedInfo.INERROR);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
    expect((await journalEntries(journal)).sort()).toEqual(['rerror-hostb-d', 'serror-hosta-d']);
  });

  it('RESCHEDULE on the requested host fails with L: the rest of its error list is skipped', async () => {
    await addRulePair([a, b], 'wrongside', journal, (h) => (h === b ? {
      rPreTasks: [task('CHKFILE', 'SIZE LT 1')], rErrorTasks: [task('RESCHEDULE', '-delay 1500 -case d')],
    } : {}));
    const { out, requested } = await transferBetween(a, b, { rule: 'wrongside', file: 'f.txt' });
    expect(out.code).toBe(ErrorCode.SizeNotAllowed);
    expect(requested.updatedInfo).toBe(UpdatedInfo.INERROR);
    await waitFor(async () => (await journalEntries(journal)).includes('serror-hosta-d'));
    expect(await journalEntries(journal)).toEqual(['serror-hosta-d']);
  });

  it('RESTART is refused when the partner does not hold the SYSTEM role: error lists follow', async () => {
    await addRulePair([a, b], 'update', journal, (h) => (h === b ? { rPostTasks: [task('RESTART', '')] } : {}));
    const refused = await transferBetween(a, b, { rule: 'update', file: 'f.txt' });
    expect(refused.out.code).toBe(ErrorCode.ExternalOp);
    expect(refused.out.message).toMatch(/SYSTEM/);
    expect(refused.requested.infoStatus).toBe(ErrorCode.ExternalOp);
    expect(restarts).toEqual([]);
    await waitFor(async () => (await journalEntries(journal)).length === 2);
  });

  it('RESTART asks the server to restart 1 s later when the partner holds the SYSTEM role', async () => {
    await grantSystemRole(b, a);
    await addRulePair([a, b], 'update', journal, (h) => (h === b ? { rPostTasks: [task('RESTART', '')] } : {}));
    const ok = await transferBetween(a, b, { rule: 'update', file: 'f.txt' });
    expect(ok.out.code).toBe(ErrorCode.CompleteOk);
    expect(ok.requested.globalStep).toBe(TaskStep.ALLDONETASK);
    expect(restarts).toEqual([1000]);
  });
});
