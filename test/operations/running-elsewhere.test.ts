// The one order service refuses every order on a transfer another process runs (issue 35 item 2,
// src/operations/running-elsewhere.ts): a RUNNING row this process does not run, written within the
// alive window. Stop, cancel, cancel-and-clean, restart, resubmit, remove, replace and the v1 table
// editor's editRow/putRow all throw QueryStillRunning with reason runningElsewhere (HTTP 409) and
// write nothing; with the engine running it here, the order goes to the engine; a row silent past
// the window (a dead writer) is acted on.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restStatusOf } from '../../src/http/error-answer.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { R66Error } from '../../src/model/r66-error.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { TransferOrders, type LiveTransfers } from '../../src/operations/index.js';
import type { Store } from '../../src/store/index.js';
import { openRecordStore, type RecordStore } from '../helpers/record-store.js';
import { RECORD_OWNER, transferRecord } from '../helpers/transfer-record.js';

describe('TransferOrders on a transfer another process runs', () => {
  let rs: RecordStore;
  let store: Store;
  let now = new Date();
  const options = () => {
    const dir = rs.dir;
    const directories = { home: dir, in: join(dir, 'in'), out: join(dir, 'out'), work: join(dir, 'work'), arch: join(dir, 'arch'), conf: join(dir, 'conf') };
    return { store, hostId: RECORD_OWNER, directories: directories as never, blockSize: 65536, aliveWindowMs: 60_000, now: () => now };
  };
  beforeAll(async () => {
    rs = await openRecordStore('svc-elsewhere-');
    store = rs.store;
  });
  afterAll(() => rs?.close());

  const ref = (specialId: bigint) => ({ specialId, requester: RECORD_OWNER, requested: 'partnerA' });
  const key = (specialId: bigint) => ({ ...ref(specialId), ownerReq: RECORD_OWNER });
  const running = (specialId: bigint, stop: Date) => transferRecord(specialId, {
    updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, rank: 7, stop, retrieveMode: false,
    filename: 'work/x.r66', idRule: 'send-archive',
  });
  const refusal = (p: Promise<unknown>) => p.then(() => { throw new Error('not refused'); }, (err: unknown) => err as R66Error);

  it('every order is refused while the row is fresh, nothing written', async () => {
    now = new Date();
    const orders = new TransferOrders(options());
    await store.runner.insert(running(961n, new Date(now.getTime() - 5_000)));
    const before = await store.runner.get(key(961n));
    const edit = { fields: { rank: 0 }, state: {} };
    const attempts: Array<[string, () => Promise<unknown>]> = [
      ['stop', () => orders.stop(ref(961n))], ['cancel', () => orders.cancel(ref(961n))], ['cancelAndClean', () => orders.cancelAndClean(ref(961n))],
      ['restart', () => orders.restart(ref(961n))], ['resubmit', () => orders.resubmit(ref(961n))], ['remove', () => orders.remove(ref(961n))],
      ['replace', () => orders.replace(before!, { rule: 'send-archive', file: 'x' })],
      ['editRow', () => orders.editRow(key(961n), edit)], ['putRow', () => orders.putRow(key(961n), 'send-archive', edit)],
    ];
    for (const [what, order] of attempts) {
      const err = await refusal(order());
      expect([what, err.code, err.details.reason, restStatusOf(err)]).toEqual([what, ErrorCode.QueryStillRunning, 'runningElsewhere', 409]);
      expect(err.message).toBe('not done: the transfer is RUNNING in another process (a CLI client or another server on this database; '
        + 'last update 5 s ago), which would not see this order. Stop it where it runs, or wait for its end.');
    }
    expect(await store.runner.get(key(961n))).toEqual(before);
  });

  it('run by this process: the engine gets the order; silent past the window: acted on', async () => {
    now = new Date();
    await store.runner.insert(running(962n, new Date(now.getTime() - 1_000)));
    const asked: string[] = [];
    const live: LiveTransfers = {
      isRunning: (r) => r.specialId === 962n,
      stop: async () => { asked.push('stop'); return { code: ErrorCode.CompleteOk, message: 'stopped' }; },
      cancel: () => Promise.reject(new Error('unused')), restart: () => Promise.reject(new Error('unused')),
    };
    expect((await new TransferOrders({ ...options(), live: () => live }).stop(ref(962n))).code).toBe(ErrorCode.CompleteOk);
    expect(asked).toEqual(['stop']);
    // No engine here and the writer silent for 61 s: the stored stop marks the row.
    now = new Date(now.getTime() + 61_000);
    const stopped = await new TransferOrders(options()).stop(ref(962n));
    expect(stopped.code).toBe(ErrorCode.CompleteOk);
    expect(await store.runner.get(key(962n))).toMatchObject({ updatedInfo: UpdatedInfo.INERROR, infoStatus: { char: 'H' } });
  });
});
