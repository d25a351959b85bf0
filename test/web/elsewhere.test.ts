// Orders on a transfer another process runs (src/web/admin/elsewhere.ts, issue 35 item 2): refused
// while its writer is alive (a RUNNING row this server does not run, written within
// max(60 s, 2 x timeoutcon)), allowed once that writer looks dead, never for this server's own or a
// row that is not RUNNING; the page's text says what was done (nothing) and why, in plain words.
import { describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { elsewhereRefusal, runningElsewhere } from '../../src/web/admin/elsewhere.js';
import { transferRecord } from '../helpers/transfer-record.js';

const now = new Date(2026, 11, 3, 9, 0, 0);
const row = (ageMs: number, updatedInfo = UpdatedInfo.RUNNING) => transferRecord(42n, { updatedInfo, stop: new Date(now.getTime() - ageMs) });

describe('runningElsewhere', () => {
  it('a RUNNING row another process wrote lately: its age in seconds; once that writer looks dead: undefined', () => {
    expect(runningElsewhere(row(2_400), false, now, 10_000)).toBe(2);
    expect(runningElsewhere(row(59_000), false, now, 10_000)).toBe(59);
    expect(runningElsewhere(row(60_000), false, now, 10_000)).toBeUndefined();
    // A long timeoutcon widens the window: a writer waiting for its partner is not dead.
    expect(runningElsewhere(row(80_000), false, now, 45_000)).toBe(80);
    expect(runningElsewhere(row(90_000), false, now, 45_000)).toBeUndefined();
    // A writer whose clock is a little ahead: 0 s, not a negative age.
    expect(runningElsewhere(row(-1_500), false, now, 10_000)).toBe(0);
  });

  it('this server runs it, or the row is not RUNNING: the order is this server\'s to carry out', () => {
    expect(runningElsewhere(row(1_000), true, now, 10_000)).toBeUndefined();
    for (const info of [UpdatedInfo.TOSUBMIT, UpdatedInfo.INTERRUPTED, UpdatedInfo.INERROR, UpdatedInfo.DONE]) {
      expect(runningElsewhere(row(1_000, info), false, now, 10_000)).toBeUndefined();
    }
  });

  it('the refusal names the order, that nothing was done, where it runs and what to do', () => {
    expect(elsewhereRefusal('Restart', 42n, 3)).toBe('Restart 42: not done: the transfer is RUNNING in another process (a CLI client or another server on this database; '
      + 'last update 3 s ago), which would not see this order. Stop it where it runs, or wait for its end.');
  });
});
