// While this host blocks new transfers (BlockRequest, REST, web page), REST v1's table editor may
// not insert a row (a row to submit: ServerOverloaded `l`, HTTP 503, as v2's POST); an edit of an
// existing row is still written (the scheduler holds due rows until the unblock).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restStatusOf } from '../../src/http/error-answer.js';
import { ErrorCode } from '../../src/model/error-code.js';
import type { R66Error } from '../../src/model/r66-error.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { TransferOrders, type LiveTransfers } from '../../src/operations/index.js';
import { openRecordStore, type RecordStore } from '../helpers/record-store.js';
import { RECORD_OWNER, transferRecord } from '../helpers/transfer-record.js';

describe('the v1 table editor while new transfers are blocked', () => {
  let rs: RecordStore;
  let blocked = true;
  let orders: TransferOrders;

  beforeAll(async () => {
    rs = await openRecordStore('svc-blocked-rows-');
    const dir = rs.dir;
    const directories = { home: dir, in: join(dir, 'in'), out: join(dir, 'out'), work: join(dir, 'work'), arch: join(dir, 'arch'), conf: join(dir, 'conf') };
    const live: LiveTransfers = {
      isRunning: () => false,
      stop: () => Promise.reject(new Error('unused')), cancel: () => Promise.reject(new Error('unused')), restart: () => Promise.reject(new Error('unused')),
      get requestsBlocked() { return blocked; },
    };
    orders = new TransferOrders({ store: rs.store, hostId: RECORD_OWNER, directories: directories as never, blockSize: 65536, live: () => live });
  });
  afterAll(() => rs?.close());

  const key = (specialId: bigint) => ({ specialId, requester: RECORD_OWNER, requested: 'partnerA', ownerReq: RECORD_OWNER });

  it('refuses a row to submit with ServerOverloaded (503) and writes nothing; accepts it once unblocked', async () => {
    const edit = { fields: { filename: 'x.txt' }, state: {} };
    const err = await orders.putRow(key(971n), 'send-archive', edit).then(() => { throw new Error('not refused'); }, (e: unknown) => e as R66Error);
    expect(err.code).toBe(ErrorCode.ServerOverloaded);
    expect(restStatusOf(err)).toBe(503);
    expect(await rs.store.runner.get(key(971n))).toBeUndefined();
    blocked = false;
    try {
      expect((await orders.putRow(key(971n), 'send-archive', edit)).updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
    } finally {
      blocked = true;
    }
  });

  it('still writes an edit of an existing row', async () => {
    await rs.store.runner.insert(transferRecord(972n, { updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, globalLastStep: TaskStep.TRANSFERTASK }));
    const row = await orders.editRow(key(972n), { fields: { fileInfo: 'edited' }, state: {} });
    expect(row?.fileInfo).toBe('edited');
    expect((await rs.store.runner.get(key(972n)))?.fileInfo).toBe('edited');
  });
});
