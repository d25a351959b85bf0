// The in-process block of transfer ids (decision 0015): its size follows the demand, old ids are
// dropped, a reset here drops the block. The sequence is a counter of this test, the clock a number
// the test moves; the same class behind a real store is tested in transfer-id-batches.test.ts.
import { describe, expect, it } from 'vitest';
import { IdBlock, KEEP_MS, MAX_BLOCK } from '../../src/store/id-block.js';

function sequence(start = 1000n) {
  const s = {
    value: start,
    sizes: [] as number[],
    fail: undefined as Error | undefined,
    gate: undefined as Promise<void> | undefined,
    reserve: async (n: number): Promise<bigint[]> => {
      s.sizes.push(n);
      if (s.fail) throw s.fail;
      const first = s.value;
      s.value += BigInt(n);
      // The values are taken; the answer may arrive later.
      if (s.gate) await s.gate;
      return Array.from({ length: n }, (_, i) => first + BigInt(i));
    },
  };
  return s;
}

describe('IdBlock', () => {
  it('ids asked for now and then: one reservation of one id each, no gap', async () => {
    const seq = sequence();
    let now = 0;
    const block = new IdBlock(seq.reserve, () => now);
    const ids: bigint[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await block.take());
      now += KEEP_MS + 1;
    }
    expect(ids).toEqual([1000n, 1001n, 1002n, 1003n, 1004n]);
    expect(seq.sizes).toEqual([1, 1, 1, 1, 1]);
  });

  it('a burst: the block doubles up to its maximum, ids stay consecutive', async () => {
    const seq = sequence();
    const block = new IdBlock(seq.reserve, () => 0);
    const ids: bigint[] = [];
    for (let i = 0; i < 300; i++) ids.push(await block.take());
    expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => 1000n + BigInt(i)));
    expect(seq.sizes).toEqual([1, 2, 4, 8, 16, 32, 64, 64, 64, 64]);
    expect(block.pending).toBe(19);
  });

  it('ids reserved more than KEEP_MS ago are dropped and the next block is half as large; a long pause starts again at 1', async () => {
    const seq = sequence();
    let now = 0;
    const block = new IdBlock(seq.reserve, () => now);
    for (let i = 0; i < 1 + 2 + 4 + 8 + 1; i++) await block.take();
    expect(seq.sizes).toEqual([1, 2, 4, 8, 16]);
    now += KEEP_MS + 1;
    // 15 ids of the block of 16 are not handed out any more.
    expect(await block.take()).toBe(1000n + 31n);
    expect(seq.sizes.at(-1)).toBe(8);
    now += 20 * KEEP_MS;
    await block.take();
    expect(seq.sizes.at(-1)).toBe(1);
  });

  it('concurrent takes share one reservation at a time and get distinct ids', async () => {
    const seq = sequence();
    const block = new IdBlock(seq.reserve, () => 0);
    const ids = await Promise.all(Array.from({ length: 200 }, () => block.take()));
    expect(new Set(ids).size).toBe(200);
    expect(Math.max(...seq.sizes)).toBeLessThanOrEqual(MAX_BLOCK);
    expect(seq.sizes.length).toBeLessThan(12);
  });

  it('clear (a reset in this process): the block and a reservation under way are not used', async () => {
    const seq = sequence();
    const block = new IdBlock(seq.reserve, () => 0);
    for (let i = 0; i < 4; i++) await block.take();
    expect(block.pending).toBe(3);
    let open!: () => void;
    seq.gate = new Promise((r) => (open = r));
    block.clear();
    const taking = block.take();
    seq.value = 5000n; // the reset, made while the reservation above waits
    block.clear();
    seq.gate = undefined;
    open();
    expect(await taking).toBe(5000n);
    expect(seq.sizes.at(-1)).toBe(1);
  });

  it('a reset made by another process: ids reserved before it are handed out for at most KEEP_MS', async () => {
    const seq = sequence();
    let now = 0;
    const block = new IdBlock(seq.reserve, () => now);
    for (let i = 0; i < 4; i++) await block.take();
    seq.value = 9000n;
    expect(await block.take()).toBe(1004n);
    now += KEEP_MS + 1;
    expect(await block.take()).toBe(9000n);
  });

  it('a failed reservation fails the takes waiting for it; the next take tries again', async () => {
    const seq = sequence();
    const block = new IdBlock(seq.reserve, () => 0);
    seq.fail = new Error('database gone');
    const results = await Promise.allSettled([block.take(), block.take()]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    seq.fail = undefined;
    expect(await block.take()).toBe(1000n);
  });
});
