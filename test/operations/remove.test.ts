// Delete of a transfer row (REST v2 DELETE, rest-v2.md §10.6) through the one order service: a
// started row is removed; a row in its initial state or unknown is refused (v2: 404); a transfer
// running on this host is refused (QueryStillRunning, v2: 409) and its row stays.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { R66Error } from '../../src/model/r66-error.js';
import { restStatusOf } from '../../src/http/error-answer.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { TransferOrders, type LiveTransfers } from '../../src/operations/index.js';
import type { Store } from '../../src/store/index.js';
import { openRecordStore, type RecordStore } from '../helpers/record-store.js';
import { RECORD_OWNER, transferRecord } from '../helpers/transfer-record.js';

describe('TransferOrders.remove', () => {
  let rs: RecordStore;
  let store: Store;
  const options = () => {
    const dir = rs.dir;
    const directories = { home: dir, in: join(dir, 'in'), out: join(dir, 'out'), work: join(dir, 'work'), arch: join(dir, 'arch'), conf: join(dir, 'conf') };
    return { store, hostId: RECORD_OWNER, directories: directories as never, blockSize: 65536 };
  };

  beforeAll(async () => {
    rs = await openRecordStore('svc-remove-');
    store = rs.store;
  });

  afterAll(() => rs?.close());

  const ref = (specialId: bigint) => ({ specialId, requester: RECORD_OWNER, requested: 'partnerA' });
  const stored = (specialId: bigint) => store.runner.get({ ...ref(specialId), ownerReq: RECORD_OWNER });
  const refusal = (p: Promise<unknown>) => p.then(() => { throw new Error('not refused'); }, (err: unknown) => err as R66Error);

  it('removes a started row, refuses an unknown one and one in its initial state', async () => {
    const orders = new TransferOrders(options());
    await store.runner.insert(transferRecord(951n, { updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, globalLastStep: TaskStep.TRANSFERTASK }));
    await store.runner.insert(transferRecord(952n, { updatedInfo: UpdatedInfo.TOSUBMIT, globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK }));
    expect((await orders.remove(ref(951n))).specialId).toBe(951n);
    expect(await stored(951n)).toBeUndefined();
    for (const id of [951n, 952n]) {
      const err = await refusal(orders.remove(ref(id)));
      expect(err).toBeInstanceOf(R66Error);
      expect(err.details.reason).toBe('unknownTransfer');
    }
    expect(await stored(952n)).toBeDefined();
  });

  it('refuses a transfer running on this host and keeps its row', async () => {
    // The engine's contract (LiveTransfers): only isRunning is asked by remove().
    const live: LiveTransfers = {
      isRunning: (r) => r.specialId === 953n,
      stop: () => Promise.reject(new Error('unused')), cancel: () => Promise.reject(new Error('unused')), restart: () => Promise.reject(new Error('unused')),
    };
    const orders = new TransferOrders({ ...options(), live: () => live });
    await store.runner.insert(transferRecord(953n, { updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK }));
    const err = await refusal(orders.remove(ref(953n)));
    expect(err.code).toBe(ErrorCode.QueryStillRunning);
    expect(restStatusOf(err)).toBe(409);
    expect(await stored(953n)).toBeDefined();
  });
});
