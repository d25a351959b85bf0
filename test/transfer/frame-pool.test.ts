import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { FramePool, framePool } from '../../src/protocol/frame-pool.js';
import { addRules, closeHosts, makeHostPair, patternBytes, rule, type TestHost } from './harness.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('FramePool', () => {
  it('hands a given-back frame out again for the same size only', () => {
    const pool = new FramePool(1024);
    const a = pool.take(100);
    expect(a.length).toBe(100);
    pool.give(a);
    expect(pool.heldBytes).toBe(100);
    expect(pool.take(200)).not.toBe(a);
    expect(pool.take(100)).toBe(a);
    expect(pool.heldBytes).toBe(0);
    expect(pool.allocated).toBe(2);
  });

  it('keeps at most its limit of free bytes, and ignores a second give of the same frame', () => {
    const pool = new FramePool(250);
    const [a, b, c] = [pool.take(100), pool.take(100), pool.take(100)];
    pool.give(a);
    pool.give(a);
    expect(pool.heldBytes).toBe(100);
    pool.give(b);
    pool.give(c);
    expect(pool.heldBytes).toBe(200);
    const again = [pool.take(100), pool.take(100), pool.take(100)];
    expect(new Set(again).size).toBe(3);
    expect(again).toContain(a);
    expect(again).toContain(b);
  });

  it('release() drops the free frames: a full pool takes frames back again', () => {
    const pool = new FramePool(100);
    const [a, b] = [pool.take(100), pool.take(100)];
    pool.give(a);
    pool.give(b);
    expect(pool.heldBytes).toBe(100);
    pool.release();
    expect(pool.heldBytes).toBe(0);
    pool.give(b);
    expect(pool.take(100)).toBe(b);
  });

  it('refuses buffers that are not whole frames of their own memory', () => {
    const pool = new FramePool(1 << 20);
    pool.give(Buffer.allocUnsafeSlow(200).subarray(0, 100));
    pool.give(Buffer.from('shared 8 KiB pool slice'));
    expect(pool.heldBytes).toBe(0);
  });
});

describe('frames reused by concurrent transfers', () => {
  let a: TestHost;
  let b: TestHost;

  beforeAll(async () => {
    ({ a, b } = await makeHostPair());
    await addRules([a, b], rule('send', TransferMode.SENDMODE), rule('sendmd5', TransferMode.SENDMD5MODE));
  });
  afterAll(() => closeHosts(a, b));

  async function round(tag: string, ruleId: string, count: number): Promise<void> {
    const contents = Array.from({ length: count }, (_, i) => patternBytes(250_000 + i * 1001, i + tag.length * 100));
    await Promise.all(contents.map((c, i) => writeFile(path.join(a.dirs.out, `${tag}-${i}.bin`), c)));
    const outcomes = await Promise.all(contents.map((_, i) => a.engine.transfer({ partner: 'hostb', rule: ruleId, file: `${tag}-${i}.bin`, blockSize: 65536 })));
    for (const o of outcomes) expect(o.code).toBe(ErrorCode.CompleteOk);
    const received = await readdir(b.dirs.in);
    for (const [i, c] of contents.entries()) {
      const name = received.find((f) => f.endsWith(`_${tag}-${i}.bin`));
      expect(name, `${tag}-${i}.bin at hostb`).toBeDefined();
      expect(sha(await readFile(path.join(b.dirs.in, name!)))).toBe(sha(c));
    }
  }

  it('moves every file intact while later transfers take the frames earlier ones gave back', async () => {
    // The pool is the process's: files run before this one in the same worker left frames in it.
    framePool.release();
    await round('warm', 'send', 16);
    const allocated = framePool.allocated;
    // 16 x 4 blocks per round: taken mostly from the frames the first round gave back.
    await round('again', 'send', 16);
    await round('third', 'send', 16);
    expect(framePool.allocated - allocated).toBeLessThan(64);
    expect(framePool.heldBytes).toBeGreaterThan(0);
  });

  it('does the same with a digest per block (frames with room for it)', async () => {
    await round('md5a', 'sendmd5', 8);
    await round('md5b', 'sendmd5', 8);
  });
});
