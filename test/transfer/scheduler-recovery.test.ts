// The scheduler never leaves a row RUNNING with nothing running it: an attempt that throws (a store
// error...) and an attempt answered "still running" by the partner put the row back to TOSUBMIT,
// `delayretry` later, counted in the row (SCHEDULERETRY), and free their slot (runlimit 1 here).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { PacketType } from '../../src/protocol/index.js';
import { TransferScheduler } from '../../src/transfer/index.js';
import { retriesOf } from '../../src/transfer/scheduler.js';
import { waitFor } from '../helpers/wait.js';
import { FrameProxy } from './frame-proxy.js';
import { addRules, closeHosts, makeHostPair, rule, silent, type TestHost } from './harness.js';

describe('scheduler: rows of failed attempts go back to be retried', () => {
  let a: TestHost;
  let b: TestHost;
  let scheduler: TransferScheduler | null = null;

  beforeEach(async () => {
    ({ a, b } = await makeHostPair({ limits: { timeoutCon: 200 } }));
    await addRules([a, b], rule('send', TransferMode.SENDMODE));
  });
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = null;
    await closeHosts(a, b);
  });

  const key = (specialId: bigint): { specialId: bigint; requester: string; requested: string } => ({ specialId, requester: 'hosta', requested: 'hostb' });

  it('an attempt that throws puts its row back to TOSUBMIT with its retry counted, and frees its slot', async () => {
    const ids: bigint[] = [];
    for (let i = 0; i < 2; i++) {
      await writeFile(path.join(a.dirs.out, `f${i}.txt`), `file ${i}`);
      ids.push(await a.engine.submitLater({ partner: 'hostb', rule: 'send', file: `f${i}.txt` }));
    }
    const runOnce = a.engine.runOnce.bind(a.engine);
    let thrown = 0;
    a.engine.runOnce = (record) => {
      if (record.specialId === ids[0] && thrown++ === 0) return Promise.reject(new Error('SQLITE_BUSY: database is locked'));
      return runOnce(record);
    };
    // One scan at start; a retry far in the future keeps the failed row visible as the test reads it.
    scheduler = new TransferScheduler({ engine: a.engine, runner: a.store.runner, ownIds: ['hosta'], ownerId: 'hosta', periodMs: 600_000, runLimit: 1, retryDelayMs: 600_000, logger: silent });
    await scheduler.start();
    await waitFor(async () => (await a.row(key(ids[1]!)))?.updatedInfo === UpdatedInfo.DONE, { what: 'the second row done (the slot freed)' });
    const failed = await a.row(key(ids[0]!));
    expect(thrown).toBe(1);
    expect(failed?.updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
    expect(failed?.infoStatus).toBe(ErrorCode.Internal);
    expect(retriesOf(failed?.transferInfo ?? '')).toBe(1);
    expect(failed!.start.getTime()).toBeGreaterThan(Date.now() + 500_000);
  });

  it('a retry answered QueryStillRunning goes back to TOSUBMIT, counted, until the retries are spent', async () => {
    const proxy = await FrameProxy.start(b.listener.port);
    try {
      const entry = (await a.directory.find('hostb'))!;
      a.directory.set({ ...entry, host: { ...entry.host, port: proxy.port } });
      // The first connection goes silent once the Request passed: hosta ends that attempt in D
      // (no answer to its KeepAlive), hostb still runs it and answers the retries `s`.
      proxy.silenceAfter = (dir, f) => dir === 'toPartner' && f.code === PacketType.REQUEST;
      await writeFile(path.join(a.dirs.out, 'a.txt'), 'data');
      const id = await a.engine.submitLater({ partner: 'hostb', rule: 'send', file: 'a.txt' });
      scheduler = new TransferScheduler({ engine: a.engine, runner: a.store.runner, ownIds: ['hosta'], ownerId: 'hosta', periodMs: 50, runLimit: 1, retryDelayMs: 50, retries: 2, logger: silent });
      await scheduler.start();
      const row = await waitFor(async () => {
        const r = await a.row(key(id));
        return r?.updatedInfo === UpdatedInfo.INERROR ? r : undefined;
      }, { what: 'the row in error after its retries' });
      expect(row.infoStatus).toBe(ErrorCode.QueryStillRunning);
      // Attempt 1 lost (D), attempts 2 and 3 answered `s`: one above the limit of 2.
      expect(retriesOf(row.transferInfo)).toBe(3);
      expect(proxy.seen.fromPartner.filter((c) => c === PacketType.REQUEST).length).toBe(3);
    } finally {
      await proxy.close();
    }
  });
});
