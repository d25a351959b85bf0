// Issue 32 item 6 for task arguments: the TRANSFER task's -block, -delay and -id are held to the
// ranges of send's options, the RESCHEDULE task's -delay and -count to theirs (src/config/ranges.ts).
// Before: -block 2147483647999 was submitted as the block size, -delay +10^25 made an Invalid Date
// that reached the submission, -id 2^63 a transfer id beyond 64 bits, RESCHEDULE -delay 10^25 an
// Invalid Date (its toISOString threw out of the task).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import type { TransferSubmission } from '../../src/tasks/context.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

describe('TRANSFER task: numbers beyond their ranges', () => {
  it.each([
    ['-block 2147483647999', '-block: 2147483647999 is out of range; expected an integer from 100 to 16777216 (bytes)'],
    ['-delay +10000000000000000000000000', '-delay: 10000000000000000000000000 is out of range; expected an integer from 0 to 315360000000 (ms from now)'],
    ['-delay 99999999999999999', '-delay: 99999999999999999 is out of range; expected an integer from 0 to 253402300799999 (ms since 1970)'],
  ])('%s fails the task naming the option and the range; nothing is submitted', async (option, message) => {
    const submitted: TransferSubmission[] = [];
    const ctx = makeContext(env.home);
    ctx.engine = { transfers: { submit: async (r) => { submitted.push(r); return 99n; } } };
    const r = await runOne('TRANSFER', `-to p -file f -rule r ${option}`, ctx);
    expect(r).toMatchObject({ kind: 'failure', message: expect.stringContaining(message) });
    expect(submitted).toEqual([]);
  });

  it('-id beyond 64 bits fails; the largest id is submitted', async () => {
    const submitted: TransferSubmission[] = [];
    const ctx = makeContext(env.home);
    ctx.engine = { transfers: { submit: async (r) => { submitted.push(r); return 99n; } } };
    const r = await runOne('TRANSFER', '-to p -id 9223372036854775808 -file f -rule r', ctx);
    expect(r).toMatchObject({ kind: 'failure', message: expect.stringContaining('-id: 9223372036854775808 is out of range; expected an integer from -9223372036854775807 to 9223372036854775807 (transfer id)') });
    expect((await runOne('TRANSFER', '-to p -id 9223372036854775807 -file f -rule r -block 16777216 -delay +315360000000', ctx)).kind).toBe('success');
    expect(submitted).toMatchObject([{ id: 9223372036854775807n, blockSize: 16777216 }]);
  });
});

describe('RESCHEDULE task: numbers beyond their ranges', () => {
  it('a -delay or -count out of range does not reschedule, says why at INFO, and the task is a warning', async () => {
    const ctx = makeContext(env.home, { error: { code: ErrorCode.ConnectionImpossible, message: 'x' } });
    const at: Date[] = [];
    ctx.engine = { rescheduler: { reschedule: async (d) => { at.push(d); } } };
    expect(await runOne('RESCHEDULE', '-delay 10000000000000000000000000 -case C', ctx)).toEqual({ kind: 'success', warning: true });
    expect(await runOne('RESCHEDULE', '-delay 1000 -case C -count 2147483648', ctx)).toEqual({ kind: 'success', warning: true });
    expect(at).toEqual([]);
    const said = ctx.logger.lines.map((l) => l.msg).filter((m) => m.startsWith('RESCHEDULE not applied'));
    expect(said).toEqual([
      'RESCHEDULE not applied: -delay: 10000000000000000000000000 is out of range; expected an integer from 1 to 315360000000 (ms after the failure)',
      'RESCHEDULE not applied: -count: 2147483648 is out of range; expected an integer from 0 to 2147483647 (retries)',
    ]);
    expect(await runOne('RESCHEDULE', '-delay 315360000000 -case C -count 2147483647', ctx)).toMatchObject({ kind: 'success', stopChain: true });
    expect(at).toHaveLength(1);
  });
});
