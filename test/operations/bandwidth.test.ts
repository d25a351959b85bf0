// The one bandwidth order rule of REST v1 and the R66 request (rest-v1.md §12.1, bandwidth.md §1, §4.1).
import { describe, expect, it } from 'vitest';
import { limitsAfterOrder } from '../../src/operations/bandwidth.js';

const current = { writeGlobal: 1_000_000, readGlobal: 2_000_000, writeSession: 500_000, readSession: 600_000, delay: 1000 };

describe('limitsAfterOrder', () => {
  it('truncates to a multiple of 10, keeps a limit given negative, keeps the other fields', () => {
    expect(limitsAfterOrder(current, { writeGlobal: 250_005n, readGlobal: -10n, writeSession: 99n, readSession: -1n }))
      .toEqual({ writeGlobal: 250_000, readGlobal: 2_000_000, writeSession: 90, readSession: 600_000, delay: 1000 });
  });

  it('lowers a session limit above its global one; 0 lifts a limit, a global 0 lifts its session limit too', () => {
    expect(limitsAfterOrder(current, { writeGlobal: 100_000n, readGlobal: -10n, writeSession: -10n, readSession: -10n }))
      .toMatchObject({ writeGlobal: 100_000, writeSession: 100_000 });
    expect(limitsAfterOrder(current, { writeGlobal: 0n, readGlobal: 0n, writeSession: 0n, readSession: 0n }))
      .toMatchObject({ writeGlobal: 0, readGlobal: 0, writeSession: 0, readSession: 0 });
    expect(limitsAfterOrder(current, { writeGlobal: 0n, readGlobal: -10n, writeSession: 50_000n, readSession: -10n }))
      .toMatchObject({ writeGlobal: 0, writeSession: 0 });
  });
});
