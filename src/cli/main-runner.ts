/**
 * The top-level handler of every svc command: whatever goes wrong, the user gets one clear line on
 * stderr and the documented exit code, never a stack trace (set SVC_DEBUG=1 to see one).
 */
import { CliError, UsageError } from './cli-error.js';
import type { Io } from './io.js';
import { EXIT_UNEXPECTED } from './exit-codes.js';


/** The message and exit code a person sees for `err`. */
export function reportError(err: unknown, io: Io, program: string): number {
  if (err instanceof CliError) {
    io.err(`${program}: ${err.message}\n`);
    return err.exitCode;
  }
  if (err instanceof UsageError) {
    io.err(`${program}: ${err.message}\nRun '${program} help' for the usage.\n`);
    return 1;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.err(`${program}: unexpected error: ${message}\n`);
  if (process.env.SVC_DEBUG === '1' && err instanceof Error && err.stack) io.err(`${err.stack}\n`);
  return EXIT_UNEXPECTED;
}

/**
 * Runs `main` and exits with its code. Exiting explicitly keeps a forgotten handle (a timer, a pool)
 * from holding a finished command open; stdout/stderr are synchronous for files and pipes on Linux.
 */
export function runMain(program: string, io: Io, main: () => Promise<number>): void {
  process.on('uncaughtException', (err) => process.exit(reportError(err, io, program)));
  process.on('unhandledRejection', (err) => process.exit(reportError(err, io, program)));
  main().then(
    (code) => process.exit(code),
    (err: unknown) => process.exit(reportError(err, io, program)),
  );
}

/**
 * A long-running server replaces the exit on an unhandled rejection by `report` (issue 32): every
 * failure a server can meet (its database going away first of all) is handled where it happens,
 * so one reaching this point is a bug, logged, and one lost promise must not end every transfer
 * of the host. An uncaught exception still ends the process (its state may be broken).
 */
export function reportUnhandledRejections(report: (err: unknown) => void): void {
  process.removeAllListeners('unhandledRejection');
  process.on('unhandledRejection', report);
}
