// issue 20 item 2: the rows of the transfers an engine runs or submits itself come from its order
// service (TransferOrders.prepareNow / run / submitLater), and a process has one TransferOrders:
// the engine's own, or the one it is given (the spool's, with the watched directories served).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { engineWithOrders, TransferOrders } from '../../src/operations/index.js';
import { createTaskRegistry } from '../../src/tasks/index.js';
import type { TransferEngine } from '../../src/transfer/index.js';
import { addRules, closeHosts, limits, makeHostPair, receivedContent, rule, silent, type TestHost } from '../helpers/hosts.js';
import { setStoredRow } from '../helpers/stored-row.js';

let a: TestHost;
let b: TestHost;
let extra: string;

beforeAll(async () => {
  ({ a, b } = await makeHostPair());
  await addRules([a, b], rule('send', TransferMode.SENDMODE));
  extra = await mkdtemp(path.join(tmpdir(), 'svc-watched-'));
  await writeFile(path.join(extra, 'watched.txt'), 'from a watched directory');
  await writeFile(path.join(a.dirs.out, 'here.txt'), 'from out');
});

afterAll(async () => {
  await closeHosts(a, b);
  await rm(extra, { recursive: true, force: true });
});

describe("the engine's transfers through its order service", () => {
  it('prepareNow builds the row without writing it; run() inserts and runs it', async () => {
    const before = await a.store.runner.count({});
    const prepared = await a.engine.orders.prepareNow({ partner: 'hostb', rule: 'send', file: 'here.txt', fileInfo: 'now' });
    expect(prepared.first.inserted).toBe(false);
    expect(prepared.record).toMatchObject({ updatedInfo: UpdatedInfo.UNKNOWN, filename: 'here.txt', transferInfo: '{"ORIGINALSIZE":8}' });
    expect(await a.store.runner.count({})).toBe(before);
    const out = await a.engine.orders.run(prepared);
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect((await a.row(prepared.record))?.updatedInfo).toBe(UpdatedInfo.DONE);
  });

  it('a file to send that is missing: run now gives a row that fails with f; submitLater refuses it', async () => {
    const prepared = await a.engine.orders.prepareNow({ partner: 'hostb', rule: 'send', file: 'absent.txt' });
    expect(prepared.record.transferInfo).toBe('{}');
    expect((await a.engine.orders.run(prepared)).code).toBe(ErrorCode.FileNotFound);
    await expect(a.engine.orders.submitLater({ partner: 'hostb', rule: 'send', file: 'absent.txt' })).rejects.toMatchObject({ code: ErrorCode.FileNotFound });
  });

  it('submitLater writes a TOSUBMIT row; with the id of an existing row, that row goes back to the scheduler', async () => {
    const at = new Date(Date.now() + 3_600_000);
    const id = await a.engine.orders.submitLater({ partner: 'hostb', rule: 'send', file: 'here.txt', start: at });
    const key = { specialId: id, requester: 'hosta', requested: 'hostb' };
    expect(await a.row(key)).toMatchObject({ updatedInfo: UpdatedInfo.TOSUBMIT, start: at });
    await setStoredRow(a.store.runner, { ...key, ownerReq: 'hosta' }, { updatedInfo: UpdatedInfo.INERROR, globalStep: 5 });
    expect(await a.engine.orders.submitLater({ partner: 'hostb', rule: 'send', file: 'here.txt', id, start: at })).toBe(id);
    expect(await a.row(key)).toMatchObject({ updatedInfo: UpdatedInfo.TOSUBMIT, globalStep: 5 });
  });

  it("the engine's own service serves the engine's extraServed; a given service is engine.orders", async () => {
    // The default engine of hosta does not serve the watched directory.
    await expect(a.engine.orders.prepareNow({ partner: 'hostb', rule: 'send', file: path.join(extra, 'watched.txt') })).rejects.toMatchObject({ code: ErrorCode.FileNotAllowed });
    const service = new TransferOrders({
      store: a.store, hostId: 'hosta', directories: a.dirs, blockSize: 65536, extraServed: [extra], live: () => engine,
    });
    const engine: TransferEngine = engineWithOrders({
      identity: a.identity, directories: a.dirs, limits: limits(), store: a.store, pool: a.pool, tasks: createTaskRegistry(), logger: silent,
      extraServed: [extra],
    }, service);
    try {
      expect(engine.orders).toBe(service);
      const out = await service.sendNow({ partner: 'hostb', rule: 'send', file: path.join(extra, 'watched.txt') });
      expect(out.code).toBe(ErrorCode.CompleteOk);
      expect((await receivedContent(b.dirs.in, 'watched.txt')).toString()).toBe('from a watched directory');
      // Its own service, without a given one, serves the same directories.
      const own = engineWithOrders({ identity: a.identity, directories: a.dirs, limits: limits(), store: a.store, pool: a.pool, tasks: createTaskRegistry(), logger: silent, extraServed: [extra] });
      expect((await own.orders.prepareNow({ partner: 'hostb', rule: 'send', file: path.join(extra, 'watched.txt') })).record.transferInfo).toBe('{"ORIGINALSIZE":24}');
      await own.close();
    } finally {
      await engine.close();
    }
  });
});
