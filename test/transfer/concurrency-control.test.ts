import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { TransferScheduler } from '../../src/transfer/index.js';
import { waitFor } from '../helpers/wait.js';
import { addRules, closeHosts, makeHostPair, patternBytes, rule, silent, type TestHost } from './harness.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('many transfers, controls, scheduler, bandwidth', () => {
  let a: TestHost;
  let b: TestHost;

  beforeEach(async () => {
    ({ a, b } = await makeHostPair());
    const rPostTasks = [{ type: 'MOVERENAME', path: '#INPATH#/#ORIGINALFILENAME#', delay: 0 }];
    await addRules([a, b], rule('send', TransferMode.SENDMD5MODE, { rPostTasks }), rule('recv', TransferMode.RECVMODE, { rPostTasks }));
  });
  afterEach(() => closeHosts(a, b));

  it('100 concurrent transfers both ways over one connection, no data crossing over', async () => {
    const files: Array<{ name: string; content: Buffer; send: boolean }> = [];
    for (let i = 0; i < 100; i++) {
      const send = i % 2 === 0;
      const content = patternBytes(20_000 + i * 997, i + 1);
      const name = `c${i}.bin`;
      await writeFile(path.join(send ? a.dirs.out : b.dirs.out, name), content);
      files.push({ name, content, send });
    }
    const outcomes = await Promise.all(files.map((f) => a.engine.transfer({ partner: 'hostb', rule: f.send ? 'send' : 'recv', file: f.name, blockSize: 4096 })));
    expect(outcomes.map((o) => o.code.char).join('')).toBe('O'.repeat(100));
    expect(a.pool.size).toBe(1);
    expect(b.listener.openConnections).toBe(1);
    for (const f of files) {
      const dir = f.send ? b.dirs.in : a.dirs.in;
      expect(sha(await readFile(path.join(dir, f.name))), f.name).toBe(sha(f.content));
    }
    await waitFor(async () => (await b.store.runner.count({ updatedInfo: [UpdatedInfo.DONE] })) === 100);
    expect(await a.store.runner.count({ updatedInfo: [UpdatedInfo.DONE] })).toBe(100);
  });

  // Stop then resume from the kept rank, and cancel: test/transfer/resume-placement.test.ts (both storages).

  it('the scheduler starts submitted rows at their planned time', async () => {
    await writeFile(path.join(a.dirs.out, 'later.txt'), 'later');
    await writeFile(path.join(a.dirs.out, 'now.txt'), 'now');
    const later = await a.engine.submitLater({ partner: 'hostb', rule: 'send', file: 'later.txt', start: new Date(Date.now() + 600) });
    const now = await a.engine.submitLater({ partner: 'hostb', rule: 'send', file: 'now.txt' });
    expect((await a.row({ specialId: later, requester: 'hosta', requested: 'hostb' }))?.updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
    const scheduler = new TransferScheduler({ engine: a.engine, runner: a.store.runner, ownIds: ['hosta'], ownerId: 'hosta', periodMs: 50, runLimit: 10, retryDelayMs: 1000, logger: silent });
    await scheduler.start();
    try {
      await waitFor(async () => (await a.row({ specialId: now, requester: 'hosta', requested: 'hostb' }))?.updatedInfo === UpdatedInfo.DONE);
      expect((await a.row({ specialId: later, requester: 'hosta', requested: 'hostb' }))?.updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
      await waitFor(async () => (await a.row({ specialId: later, requester: 'hosta', requested: 'hostb' }))?.updatedInfo === UpdatedInfo.DONE);
      expect(await readFile(path.join(b.dirs.in, 'later.txt'), 'utf8')).toBe('later');
    } finally {
      await scheduler.stop();
    }
  });

  it('global write limit shapes the throughput and can change while running', async () => {
    await writeFile(path.join(a.dirs.out, 'shaped.bin'), patternBytes(1_500_000, 9));
    a.engine.bandwidth.set({ writeGlobal: 1_000_000, writeSession: 1_000_000 });
    const t0 = Date.now();
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'shaped.bin', blockSize: 16384 });
    const elapsed = Date.now() - t0;
    expect(out.code).toBe(ErrorCode.CompleteOk);
    // 1.5 MB at 1 MB/s with a one-second burst allowance: at least ~0.4 s.
    expect(elapsed).toBeGreaterThan(400);
    a.engine.bandwidth.set({ writeGlobal: 0 });
    expect(a.engine.bandwidth.current.writeSession).toBe(0);
    const t1 = Date.now();
    expect((await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'shaped.bin', blockSize: 16384 })).code).toBe(ErrorCode.CompleteOk);
    expect(Date.now() - t1).toBeLessThan(elapsed);
    expect((await stat(path.join(b.dirs.in, 'shaped.bin'))).size).toBe(1_500_000);
  });
});
