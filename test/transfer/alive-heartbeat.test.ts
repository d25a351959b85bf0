// issue 35 item 2, the hole: another process judges a RUNNING row alive while it was written within
// the alive window (src/transfer/alive.ts). A transfer running a pre-task longer than that window
// (an EXEC of five minutes) wrote nothing meanwhile, looked dead, and a Restart from elsewhere
// scheduled a second run. Now the row is kept fresh while tasks run (RunnerRow.keepFresh(), a
// STOPTRANS-only write `runner.updateAlive` every window / 3 after a silence): an order from another
// process on the same database during the task is refused, and the transfer ends once, DONE.
// The window is shortened to 900 ms for the test (engine option aliveWindowMs); no fixed sleeps.
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo, type TransferKey, type TransferRecord } from '../../src/model/transfer.js';
import { TransferOrders } from '../../src/operations/index.js';
import { openStore, parseJdbcUrl, type RunnerRepository, type Store } from '../../src/store/index.js';
import { createTaskRegistry, success } from '../../src/tasks/index.js';
import { RunnerRow } from '../../src/transfer/persistence.js';
import { waitFor } from '../helpers/wait.js';
import { closeHosts, grantSystemRole, makeHostPair, receivedContent, rule, type TestHost } from './harness.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { encodeValidCommand } from '../../src/protocol/index.js';

const WINDOW = 900;

/** A task that runs until released (the long EXEC of the issue), telling when it started. */
function holdTask() {
  let entered!: () => void;
  let release!: () => void;
  const started = new Promise<void>((r) => { entered = r; });
  const released = new Promise<void>((r) => { release = r; });
  const tasks = createTaskRegistry().register('HOLD', { run: async () => { entered(); await released; return success(); } });
  return { tasks, started, release };
}

describe('a transfer running a long task keeps its row alive for other processes', () => {
  let a: TestHost | undefined;
  let b: TestHost | undefined;
  let other: Store | undefined;
  afterEach(async () => {
    await other?.close();
    await closeHosts(a, b);
  });

  /**
   * Runs a transfer hosta -> hostb whose HOLD task is held for three windows, watching hosta's row
   * from another process on its database, and gives that process's orders during the hold.
   */
  async function heldTransfer(hold: ReturnType<typeof holdTask>): Promise<void> {
    await writeFile(path.join(a!.dirs.out, 'f.txt'), 'one run only');
    const run = a!.engine.transfer({ partner: 'hostb', rule: 'send', file: 'f.txt' });
    await hold.started;
    // Another process on hosta's database: a client's order service (no engine), as `svc-r66client` has.
    other = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${path.join(a!.home, 'db.sqlite')}`), { hostId: 'hosta' });
    const elsewhere = new TransferOrders({ store: other, hostId: 'hosta', directories: a!.dirs, blockSize: 65536, aliveWindowMs: WINDOW });
    const [row] = await other.runner.list({});
    const key: TransferKey = { specialId: row!.specialId, requester: row!.requester, requested: row!.requested, ownerReq: 'hosta' };
    expect(row!.updatedInfo).toBe(UpdatedInfo.RUNNING);

    // Watched for three windows while the task runs: the row never looks dead.
    const heldAt = Date.now();
    let oldest = 0;
    const stamps = new Set<number>();
    await waitFor(async () => {
      const r = (await other!.runner.get(key))!;
      oldest = Math.max(oldest, Date.now() - r.stop.getTime());
      stamps.add(r.stop.getTime());
      return Date.now() - heldAt > 3 * WINDOW;
    }, { timeoutMs: 10 * WINDOW, what: 'three windows of the held task' });
    expect(oldest).toBeLessThan(WINDOW);
    // Cheap: about one write a third of the window (none while others come), not one per poll.
    expect(stamps.size).toBeGreaterThanOrEqual(3);
    expect(stamps.size).toBeLessThanOrEqual(20);

    for (const order of [() => elsewhere.restart(key), () => elsewhere.stop(key), () => elsewhere.cancel(key)]) {
      await expect(order()).rejects.toMatchObject({ code: ErrorCode.QueryStillRunning, details: { reason: 'runningElsewhere' } });
    }
    const during = (await other.runner.get(key))!;
    expect([during.updatedInfo, during.globalStep, during.infoStatus.char]).toEqual([UpdatedInfo.RUNNING, row!.globalStep, row!.infoStatus.char]);

    hold.release();
    const out = await run;
    expect(out.code).toBe(ErrorCode.CompleteOk);
    const done = (await other.runner.get(key))!;
    expect(done.updatedInfo).toBe(UpdatedInfo.DONE);
    expect(done.stop.getTime()).toBeGreaterThanOrEqual(done.start.getTime());
    expect(await other.runner.count({})).toBe(1);
    expect(await b!.store.runner.count({})).toBe(1);
    expect((await receivedContent(b!.dirs.in, 'f.txt')).toString()).toBe('one run only');
    expect(await readdir(b!.dirs.in)).toHaveLength(1);
  }

  it('own pre-task 3 windows long: STOPTRANS never older than the window; stop, cancel and restart from another process refused; one run, DONE', async () => {
    const hold = holdTask();
    ({ a, b } = await makeHostPair({ tasks: hold.tasks, aliveWindowMs: WINDOW }, {}));
    for (const h of [a, b]) await h.addRule(rule('send', TransferMode.SENDMODE, { sPreTasks: [{ type: 'HOLD', path: '', delay: 0 }] }));
    await heldTransfer(hold);
  }, 30_000);

  it('waiting while the partner runs a pre-task 3 windows long: the same (the wait for its answer keeps the row alive)', async () => {
    const hold = holdTask();
    // hostb holds its receiver pre-task before its Request answer; hosta waits, checking the connection every timeoutcon.
    ({ a, b } = await makeHostPair({ limits: { timeoutCon: 250 }, aliveWindowMs: WINDOW }, { tasks: hold.tasks }));
    for (const h of [a, b]) await h.addRule(rule('send', TransferMode.SENDMODE, { rPreTasks: [{ type: 'HOLD', path: '', delay: 0 }] }));
    await heldTransfer(hold);
  }, 30_000);
});

describe('a partner\'s order on a transfer another process runs', () => {
  let a: TestHost | undefined;
  let b: TestHost | undefined;
  afterEach(() => closeHosts(a, b));

  it('a Valid stop from a partner with the SYSTEM role: answered QueryStillRunning with the reason, the row untouched', async () => {
    ({ a, b } = await makeHostPair());
    await grantSystemRole(a, b);
    // A row hosta's engine does not run, written just now (a CLI client of hosta's database runs it).
    const ref = { specialId: 35_003n, requester: 'hosta', requested: 'hostb' };
    await a.store.runner.insert(transferRecord(35_003n, { ...ref, ownerReq: 'hosta', updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, rank: 4, stop: new Date() }));
    const before = await a.row(ref);
    const { channel } = await b.pool.openChannel('hosta');
    await channel.send(encodeValidCommand({ cmd: 'stop', ...ref }));
    const answer = await channel.receive(10_000);
    channel.close();
    expect(answer).toMatchObject({ kind: 'error', code: ErrorCode.QueryStillRunning });
    expect(JSON.stringify(answer)).toContain('RUNNING in another process');
    expect(await a.row(ref)).toEqual(before);
  });
});

describe('RunnerRow.keepFresh', () => {
  /** A runner that counts the writes of each kind. */
  function countingRunner(): { runner: RunnerRepository; writes: string[] } {
    const writes: string[] = [];
    const runner = {
      saveMoves: async () => { writes.push('save'); return true; },
      updateRank: async () => { writes.push('rank'); return true; },
      updateAlive: async () => { writes.push('alive'); return true; },
    } as unknown as RunnerRepository;
    return { runner, writes };
  }
  const record = { specialId: 1n, requester: 'a', requested: 'b', ownerReq: 'a', rank: 0 } as TransferRecord;

  it('writes STOPTRANS only after a silence of everyMs, nothing while other writes come, nothing after its stop', async () => {
    const { runner, writes } = countingRunner();
    const row = new RunnerRow(runner, { ...record });
    const stop = row.keepFresh(60);
    // The row's own writes every 10 ms for 300 ms: no heartbeat needed.
    const until = Date.now() + 300;
    while (Date.now() < until) {
      record.rank++;
      await row.saveRank();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(writes.filter((w) => w === 'alive')).toEqual([]);
    // Silence: heartbeats come.
    await waitFor(() => writes.filter((w) => w === 'alive').length >= 2, { timeoutMs: 2000, what: 'two heartbeats' });
    await stop();
    const after = writes.length;
    const t = Date.now();
    await waitFor(() => Date.now() - t > 200, { what: 'a while after the stop' });
    expect(writes.length).toBe(after);
  });
});
