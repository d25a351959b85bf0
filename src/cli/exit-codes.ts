/**
 * Every exit code of the commands, in one module (issue 20 item 5; cli.md §1-§8). A command that
 * ran a transfer or a request exits with the ordinal of its final ErrorCode (§8), derived from the
 * one domain error (src/model/r66-error.ts) by exitCodeOf()/exitCodeOfError(); the tables
 * below are the codes each command gives besides (the original's numbers, which differ from one
 * command to the next: kept, since scripts test them).
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';

export const EXIT_OK = 0;

/** Exit code of a transfer-like command that ended with `code` (cli.md §8). */
export function exitCodeOf(code: ErrorCodeInfo): number {
  return code.ordinal;
}

/** Exit code of a transfer-like command that failed with `err` (any thrown value; Internal when it carries no code). */
export function exitCodeOfError(err: unknown): number {
  return exitCodeOf(R66Error.from(err).code);
}

// --- wrappers and the server --------------------------------------------------------------------

/** An error nobody expected (a bug): the wrappers' generic failure. */
export const EXIT_UNEXPECTED = 1;
/** An unknown command (the original prints the usage and exits 0). */
export const EXIT_UNKNOWN_COMMAND = 1;
/** A named instance that does not exist (cli.md §1.1). */
export const EXIT_NO_INSTANCE = 2;
/** A client command whose environment is wrong (the commands' "bad arguments"). */
export const EXIT_BAD_ENVIRONMENT = 2;
/** A refused init or partner (bad value, existing home, unreadable home). */
export const EXIT_HOME_REFUSED = 1;

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

/** The password tool. */
export const PASSWORD_EXIT = { OK: 0, ERROR: 1, USAGE: 2, NO_PASSWORD: 4 } as const;

// --- client commands (cli.md §3): besides these, a failed transfer exits with its code's ordinal ---

/** send / msend: 21 (Unknown) is what the original returns when no code is known. */
export const SEND_EXIT = { ok: 0, badArgs: 2, unknown: ErrorCode.Unknown.ordinal, unexpected: 66 } as const;
export const MSEND_EXIT = { ok: 0, badArgs: 2, unknown: ErrorCode.Unknown.ordinal } as const;
/** asend / masend (submission to the server's database). */
export const ASEND_EXIT = { ok: 0, badArgs: 1 } as const;
export const MASEND_EXIT = { ok: 0, badArgs: 1, ruleNotFound: 2 } as const;
/** transfer (stop, cancel, restart orders). */
export const TRANSFER_EXIT = { ok: 0, badArgs: 1, unexpected: 99 } as const;
/** Per action (cli.md §3.6). */
export const CANCEL_EXIT = { done: 0, alreadyFinished: 3, notDone: 4 } as const;
export const STOP_EXIT = { done: 0, notDone: 3 } as const;
export const RESTART_EXIT = { done: 0, notDone: 3, alreadyFinished: 4, partnerError: 5, throughMode: 6 } as const;
/** message. */
export const MESSAGE_EXIT = { ok: 0, badArgs: 1, failed: 2, unexpected: 3 } as const;
/** getinfo. */
export const GETINFO_EXIT = { ok: 0, badArgs: 1, partnerError: 2, unexpected: 3 } as const;
/** business: 21 is the ordinal of Unknown, what the original returns on any failure. */
export const BUSINESS_EXIT = { ok: 0, badArgs: 2, failed: ErrorCode.Unknown.ordinal } as const;
/** History and configuration export tools (cli.md §3.10): plus the ordinal of the failure's code. */
export const EXPORT_TOOL_EXIT = { ok: 0, badArgs: 1, unknownHost: 10, unknownHostExtended: 2 } as const;
/** Their wrappers. */
export const EXPORT_WRAPPER_EXIT = { ok: 0, failed: 1 } as const;
/** The spool (FileWatcher) command. */
export const SPOOL_EXIT = { ok: 0, badSetup: 2 } as const;
