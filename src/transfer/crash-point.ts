/**
 * Crash points for the kill-safety tests: with SVC_TEST_CRASH_AT=<name> in its environment, the
 * process kills itself with SIGKILL (no cleanup, no last write, like `kill -9`) when it reaches the
 * point of that name. A test needs the kill at an exact place between two steps that take
 * microseconds (the receiver's rename and its next row write, decision 0033); a signal sent from
 * outside cannot hit it deterministically. Unset in production: one string comparison.
 */
const CRASH_AT = process.env.SVC_TEST_CRASH_AT;

/**
 * Crash points in the code: the receiver just moved its file to its final place (`afterMove`); its
 * row says the post-tasks ended and its EndTransfer answer is not sent yet (`beforeEndTransferAnswer`).
 */
export type CrashPoint = 'afterMove' | 'beforeEndTransferAnswer';

export function crashPointForTests(name: CrashPoint): void {
  if (CRASH_AT === name) process.kill(process.pid, 'SIGKILL');
}
