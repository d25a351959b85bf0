// Orders on a transfer another process runs (src/operations/running-elsewhere.ts, issue 35 item 2):
// refused while its writer is alive (a RUNNING row this process does not run, written within the
// alive window max(60 s, 2 x timeoutcon)), allowed once that writer looks dead, never for this
// process's own or a row that is not RUNNING; the text says what was done (nothing) and why, in
// plain words, and the web page shows it after the order's name (pages-transfers.ts order()).
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { aliveWindowMs, elsewhereRefusal, runningElsewhere } from '../../src/operations/index.js';
import { transferRecord } from '../helpers/transfer-record.js';

const now = new Date(2026, 11, 3, 9, 0, 0);
const row = (ageMs: number, updatedInfo = UpdatedInfo.RUNNING) => transferRecord(42n, { updatedInfo, stop: new Date(now.getTime() - ageMs) });

describe('runningElsewhere', () => {
  it('a RUNNING row another process wrote lately: its age in seconds; once that writer looks dead: undefined', () => {
    const short = aliveWindowMs(10_000);
    expect(short).toBe(60_000);
    expect(runningElsewhere(row(2_400), false, now, short)).toBe(2);
    expect(runningElsewhere(row(59_000), false, now, short)).toBe(59);
    expect(runningElsewhere(row(60_000), false, now, short)).toBeUndefined();
    // A long timeoutcon widens the window: a writer waiting for its partner is not dead.
    const long = aliveWindowMs(45_000);
    expect(long).toBe(90_000);
    expect(runningElsewhere(row(80_000), false, now, long)).toBe(80);
    expect(runningElsewhere(row(90_000), false, now, long)).toBeUndefined();
    // A writer whose clock is a little ahead: 0 s, not a negative age.
    expect(runningElsewhere(row(-1_500), false, now, short)).toBe(0);
  });

  it('this process runs it, or the row is not RUNNING: the order is this process\'s to carry out', () => {
    expect(runningElsewhere(row(1_000), true, now, 60_000)).toBeUndefined();
    for (const info of [UpdatedInfo.TOSUBMIT, UpdatedInfo.INTERRUPTED, UpdatedInfo.INERROR, UpdatedInfo.DONE]) {
      expect(runningElsewhere(row(1_000, info), false, now, 60_000)).toBeUndefined();
    }
  });

  it('the refusal says that nothing was done, where it runs and what to do; a QueryStillRunning (HTTP 409) with its reason', () => {
    const err = elsewhereRefusal(42n, 3);
    expect(`Restart 42: ${err.message}`).toBe('Restart 42: not done: the transfer is RUNNING in another process (a CLI client or another server on this database; '
      + 'last update 3 s ago), which would not see this order. Stop it where it runs, or wait for its end.');
    expect(err.code).toBe(ErrorCode.QueryStillRunning);
    expect(err.details).toEqual({ reason: 'runningElsewhere', transfer: '42', lastUpdateSeconds: 3 });
  });
});
