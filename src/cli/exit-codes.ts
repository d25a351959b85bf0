/**
 * Exit codes of the commands (cli.md §2, §4, §8). Transfer commands exit with the ordinal of the
 * final ErrorCode (§8): `exitCodeOf` is that one place.
 */
import type { ErrorCodeInfo } from '../model/error-code.js';

export const EXIT_OK = 0;

/** Server start (cli.md §2.1): invalid configuration or start-up error. */
export const EXIT_START_FAILED = 1;
/** Server start: both `usenossl` and `usessl` False (the original returns −1). */
export const EXIT_NO_LISTENER = 255;

/** stop / status (cli.md §2.2, §2.3). */
export const EXIT_NOT_RUNNING = 1;

/** The database tool (cli.md §4). */
export const DBTOOL_EXIT = {
  ok: 0,
  /** Upgrade failed, rule/partner/limit file invalid, wrong arguments. */
  loadFailed: 1,
  /** No argument or the configuration file could not be loaded. */
  badConfiguration: 2,
  /** Database error during the loads. */
  databaseError: 3,
} as const;

/** The wrappers map any SQL failure of `initdb` to 2 (cli.md §2.5). */
export const EXIT_INITDB_SQL = 2;

/** Exit code of a transfer-like command that ended with `code` (cli.md §8). */
export function exitCodeOf(code: ErrorCodeInfo): number {
  return code.ordinal;
}
