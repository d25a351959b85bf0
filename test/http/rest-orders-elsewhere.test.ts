// issue 35 item 2: REST v2 and v1 orders on a transfer another process runs (a CLI client on this
// database, another cluster member: here a second store on the same database file, which keeps
// writing the row as a running transfer does) are refused by the one order service
// (operations/running-elsewhere.ts) with 409 and the plain reason, nothing written: the other
// writer's row stays RUNNING with its own rank, never a second run. Once that writer is silent for
// longer than the alive window, the same orders act on the row as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferKey } from '../../src/model/transfer.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { setStoredRow } from '../helpers/stored-row.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { ADMIN, host, startHarness, type Harness } from './harness.js';
import { cls, v1 } from './v1-client.js';

const dbc = testDialects()[0]!;
const REASON = 'not done: the transfer is RUNNING in another process (a CLI client or another server on this database; last update ';
const V1_ADMIN = { user: 'v1admin', password: 'adminpw1' };

/** Waits for `cond` (polled every 20 ms) at most `ms`. */
async function until(what: string, cond: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe(`orders on a transfer another process runs, through REST (${dbc.name})`, () => {
  let db: TestDatabase | undefined;
  let h: Harness;
  /** The other process's store on the same database. */
  let other: Store;
  beforeAll(async () => {
    db = await dbc.create();
    h = await startHarness({ settings: db!.settings });
    await h.store.hosts.upsert(host(h.config.identity.cryptoKey, 'v1admin', 'adminpw1', { port: -1, isClient: true, address: '0.0.0.0', adminRole: true }));
    other = await openStore(db!.settings, { hostId: 'hosta' });
  });
  afterAll(async () => {
    await other?.close();
    await h?.close();
    await db?.drop();
  });

  /** A RUNNING row of `id` the other writer updates (rank + 1) every 50 ms until the returned stop. */
  async function runningElsewhere(id: bigint): Promise<{ key: TransferKey; stop: () => Promise<number> }> {
    const key = { specialId: id, requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' };
    await other.runner.insert(transferRecord(id, { ...key, idRule: 'rule-send', updatedInfo: UpdatedInfo.TOSUBMIT, start: new Date(), stop: new Date() }));
    await setStoredRow(other.runner, key, { updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, stepStatus: ErrorCode.Running, rank: 1 });
    let rank = 1;
    let writing = Promise.resolve();
    const timer = setInterval(() => {
      writing = writing.then(() => other.runner.updateRank(key, ++rank)).then(() => undefined);
    }, 50);
    return { key, stop: async () => { clearInterval(timer); await writing; return rank; } };
  }

  it('v2 stop, cancel, restart and delete: 409 with the reason, the row left to its writer; allowed once the writer is silent past the window', async () => {
    const { key, stop } = await runningElsewhere(35_001n);
    const before = (await other.runner.get(key))!.rank;
    await until('the other writer moves the rank', async () => (await h.store.runner.get(key))!.rank > before);
    for (const [method, path] of [['PUT', 'stop'], ['PUT', 'cancel'], ['PUT', 'restart'], ['DELETE', '']] as const) {
      const res = await fetch(`${h.base}/v2/transfers/35001_hostb${path ? `/${path}` : ''}`, { method, headers: { authorization: ADMIN } });
      expect([path, res.status]).toEqual([path, 409]);
      expect(await res.text()).toMatch(new RegExp(`^${REASON.replace(/[()]/g, '\\$&')}\\d+ s ago\\), which would not see this order\\. Stop it where it runs, or wait for its end\\.$`));
    }
    // Nothing written by the orders: still RUNNING, no H/K, the writer's rank still moving.
    const mid = (await h.store.runner.get(key))!;
    expect([mid.updatedInfo, mid.infoStatus.char, mid.globalStep]).toEqual([UpdatedInfo.RUNNING, '-', TaskStep.TRANSFERTASK]);
    await until('the writer goes on', async () => (await h.store.runner.get(key))!.rank > mid.rank);
    const last = await stop();
    expect((await h.store.runner.get(key))!.rank).toBe(last);
    // The writer died: past max(60 s, 2 x timeoutcon) with no write, the order acts as before.
    const now = h.services.now;
    h.services.now = () => new Date(Date.now() + 61_000);
    try {
      const stopped = await fetch(`${h.base}/v2/transfers/35001_hostb/stop`, { method: 'PUT', headers: { authorization: ADMIN } });
      expect(stopped.status).toBe(200);
      expect(await stopped.json()).toMatchObject({ status: 'INERROR', errorCode: 'H'.charCodeAt(0) });
    } finally {
      h.services.now = now;
    }
  });

  it('v1 /control stop, cancel, restart and the /transfers table edit: HTTP 409, code 409, the reason as detail, nothing written', async () => {
    const { key, stop } = await runningElsewhere(35_002n);
    const call = (method: string, path: string, body: unknown) => v1(h, method, path, { ...V1_ADMIN, body: JSON.stringify(body) });
    const order = { '@class': cls('StopOrCancelJsonPacket'), requester: 'hosta', requested: 'hostb', specialid: '35002' };
    const answers = [
      ['stop', await call('PUT', '/control', { ...order, requestUserPacket: 9 })],
      ['cancel', await call('PUT', '/control', { ...order, requestUserPacket: 10 })],
      ['restart', await call('PUT', '/control', { '@class': cls('RestartTransferJsonPacket'), requester: 'hosta', requested: 'hostb', specialid: '35002' })],
      ['edit', await call('PUT', '/transfers/35002?REQUESTER=hosta&REQUESTED=hostb', { RANK: 0, GLOBALSTEP: 2, GLOBALLASTSTEP: 2 })],
      ['upsert', await call('POST', '/transfers', { SPECIALID: '35002', IDRULE: 'rule-send', FILENAME: 'a.txt', REQUESTER: 'hosta', REQUESTED: 'hostb', RANK: 0 })],
    ] as const;
    for (const [what, res] of answers) {
      expect([what, res.status, res.json().code]).toEqual([what, 409, 409]);
      expect(String(res.json().detail)).toContain(REASON);
    }
    const last = await stop();
    const row = (await h.store.runner.get(key))!;
    expect([row.updatedInfo, row.infoStatus.char, row.globalStep, row.rank]).toEqual([UpdatedInfo.RUNNING, '-', TaskStep.TRANSFERTASK, last]);
  });
});
