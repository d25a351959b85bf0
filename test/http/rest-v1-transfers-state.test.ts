// issue 20 item 1: REST v1's /transfers model (a table editor, rest-v1.md §11.1) changes the state
// columns through the state machine (src/transfer/state.ts, move `edit`): the legal v1 behaviours
// stay (any consistent columns, UPDATEDINFO forced to 3), an illegal change is the v1 answer of a
// bad request (400 with its detail) and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo, type TransferKey } from '../../src/model/transfer.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { host, startHarness, type Harness } from './harness.js';
import { v1, type V1CallOptions } from './v1-client.js';
import { setStoredRow } from '../helpers/stored-row.js';

const ADMIN = { user: 'v1admin', password: 'adminpw1' };
const dbc = testDialects()[0]!;
const key = (id: string): TransferKey => ({ specialId: BigInt(id), requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' });
const q = '?REQUESTER=hosta&REQUESTED=hostb';

describe(`REST v1 /transfers through the state machine (${dbc.name})`, () => {
  let db: TestDatabase | undefined;
  let h: Harness;
  const call = (method: string, path: string, o: V1CallOptions = {}) => v1(h, method, path, { ...ADMIN, ...o });
  beforeAll(async () => {
    db = await dbc.create();
    h = await startHarness({ settings: db!.settings, rest: { signature: true } });
    await h.store.hosts.upsert(host(h.config.identity.cryptoKey, 'v1admin', 'adminpw1', { port: -1, isClient: true, address: '0.0.0.0', adminRole: true }));
  });
  afterAll(async () => {
    await h?.close();
    await db?.drop();
  });

  const create = (id: string, extra: Record<string, unknown> = {}) =>
    call('POST', '/transfers', { body: JSON.stringify({ SPECIALID: id, IDRULE: 'rule-send', FILENAME: 'a.txt', REQUESTER: 'hosta', REQUESTED: 'hostb', ...extra }) });

  it('legal edits: any consistent state, UPDATEDINFO forced to 3 (TOSUBMIT)', async () => {
    const made = await create('101', { GLOBALSTEP: 5, GLOBALLASTSTEP: 2, STEP: 0, STEPSTATUS: 'H', INFOSTATUS: 'StoppedTransfer', RANK: 7, UPDATEDINFO: 4 });
    expect(made.status).toBe(200);
    expect(made.json().answer).toMatchObject({ GLOBALSTEP: 5, GLOBALLASTSTEP: 2, STEP: 0, STEPSTATUS: 'H  ', INFOSTATUS: 'H  ', RANK: 7, UPDATEDINFO: 3 });
    // Back to the data phase by hand (what a restart does), then the post-tasks.
    expect((await call('PUT', `/transfers/101${q}`, { body: '{"GLOBALSTEP":2,"STEPSTATUS":"B"}' })).json().answer).toMatchObject({ GLOBALSTEP: 2, GLOBALLASTSTEP: 2, STEPSTATUS: 'B  ', UPDATEDINFO: 3 });
    expect((await call('PUT', `/transfers/101${q}`, { body: '{"GLOBALSTEP":3,"GLOBALLASTSTEP":3}' })).json().answer).toMatchObject({ GLOBALSTEP: 3, GLOBALLASTSTEP: 3 });
    // A finished row keeps its steps but its other columns may change (and it is submitted: v1's rule).
    await setStoredRow(h.store.runner, key('101'), { globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, updatedInfo: UpdatedInfo.DONE });
    expect((await call('PUT', `/transfers/101${q}`, { body: '{"FILEINFO":"noted","GLOBALSTEP":4}' })).json().answer).toMatchObject({ FILEINFO: 'noted', GLOBALSTEP: 4, UPDATEDINFO: 3 });
  });

  it.each([
    ['GLOBALLASTSTEP 5 (not a restart point)', { GLOBALSTEP: 5, GLOBALLASTSTEP: 5 }, 'GLOBALLASTSTEP 5'],
    ['GLOBALSTEP behind GLOBALLASTSTEP', { GLOBALSTEP: 1, GLOBALLASTSTEP: 3 }, 'GLOBALSTEP 1, GLOBALLASTSTEP 3'],
    ['STEP below -1', { STEP: -2 }, 'STEP -2'],
  ])('refused on create: %s (400, nothing written)', async (_name, extra, detail) => {
    const before = await h.store.runner.count({});
    const res = await create('202', extra);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, detail: expect.stringContaining(detail) as unknown });
    expect(await h.store.runner.count({})).toBe(before);
  });

  it('refused on update: a row a transfer writes now, the steps of a finished row; the row unchanged', async () => {
    expect((await create('303', { GLOBALSTEP: 2, GLOBALLASTSTEP: 2, RANK: 3 })).status).toBe(200);
    await setStoredRow(h.store.runner, key('303'), { updatedInfo: UpdatedInfo.RUNNING });
    const running = await h.store.runner.get(key('303'));
    // Written just now by a process that runs it (not this one): a conflict, said plainly (issue 35 item 2).
    const res = await call('PUT', `/transfers/303${q}`, { body: '{"RANK":9}' });
    expect(res.status).toBe(409);
    expect(res.json()).toMatchObject({ code: 409, detail: expect.stringContaining('RUNNING in another process') as unknown });
    expect(await h.store.runner.get(key('303'))).toEqual(running);
    // Its writer silent past the alive window: the state machine's refusal of a RUNNING row.
    await setStoredRow(h.store.runner, key('303'), { updatedInfo: UpdatedInfo.RUNNING, stop: new Date(Date.now() - 120_000) });
    const stale = await h.store.runner.get(key('303'));
    const late = await call('PUT', `/transfers/303${q}`, { body: '{"RANK":9}' });
    expect(late.status).toBe(400);
    expect(late.json()).toMatchObject({ code: 400, detail: expect.stringContaining('RUNNING') as unknown });
    expect(await h.store.runner.get(key('303'))).toEqual(stale);

    await setStoredRow(h.store.runner, key('303'), { globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, stepStatus: ErrorCode.CompleteOk, updatedInfo: UpdatedInfo.DONE });
    const done = await h.store.runner.get(key('303'));
    const reopen = await call('PUT', `/transfers/303${q}`, { body: '{"GLOBALSTEP":2,"GLOBALLASTSTEP":2}' });
    expect(reopen.status).toBe(400);
    expect(await h.store.runner.get(key('303'))).toEqual(done);
  });
});
