// The scheduler starts the next due row as soon as a running transfer frees its slot, not at its
// next period: with runlimit 1 and a period far longer than the test, every row still completes.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { TransferScheduler } from '../../src/transfer/index.js';
import { waitFor } from '../helpers/wait.js';
import { addRules, closeHosts, makeHostPair, rule, silent, type TestHost } from './harness.js';

describe('scheduler slots', () => {
  let a: TestHost;
  let b: TestHost;

  beforeEach(async () => {
    ({ a, b } = await makeHostPair());
    await addRules([a, b], rule('send', TransferMode.SENDMODE));
  });
  afterEach(() => closeHosts(a, b));

  it('a finished transfer frees its slot for the next due row at once', async () => {
    const ids: bigint[] = [];
    for (let i = 0; i < 5; i++) {
      await writeFile(path.join(a.dirs.out, `f${i}.txt`), `file ${i}`);
      ids.push(await a.engine.submitLater({ partner: 'hostb', rule: 'send', file: `f${i}.txt` }));
    }
    // One scan at start, then none for ten minutes: only ends of transfers can start the others.
    const scheduler = new TransferScheduler({ engine: a.engine, runner: a.store.runner, ownIds: ['hosta'], ownerId: 'hosta', periodMs: 600_000, runLimit: 1, retryDelayMs: 1000, logger: silent });
    await scheduler.start();
    try {
      for (const id of ids) {
        await waitFor(async () => (await a.row({ specialId: id, requester: 'hosta', requested: 'hostb' }))?.updatedInfo === UpdatedInfo.DONE, { timeoutMs: 20_000, what: `transfer ${id} done` });
      }
      expect((await a.store.runner.list({ ownerReq: 'hosta' })).every((r) => r.updatedInfo === UpdatedInfo.DONE)).toBe(true);
    } finally {
      await scheduler.stop();
    }
  });
});
