/**
 * The R66 ErrorCode table (spec r66-protocol-packets.md §14).
 *
 * A code travels three ways: its **character** (Error middles, Valid/JsonCommand answers, legacy
 * Request `code`, runner XML, database status columns), its **ordinal** (EndRequest header) and,
 * in the JSON Request encoding, the integer code point of its character. Everything that ends a
 * transfer carries one of these; the wire, the database, REST and exit codes all derive from it.
 */

/** One row of the ErrorCode table. */
export interface ErrorCodeInfo {
  /** Position in the Java enum; sent as int32 in EndRequest. */
  readonly ordinal: number;
  /** One-character code sent on the wire and stored in the database. */
  readonly char: string;
  /** Java enum name (also accepted when parsing a code string). */
  readonly name: ErrorCodeName;
  /** English meaning, as the original's message texts. */
  readonly meaning: string;
}

/** The Java enum names, in ordinal order. */
export const ERROR_CODE_NAMES = [
  'InitOk',
  'PreProcessingOk',
  'TransferOk',
  'PostProcessingOk',
  'CompleteOk',
  'ConnectionImpossible',
  'ServerOverloaded',
  'BadAuthent',
  'ExternalOp',
  'TransferError',
  'MD5Error',
  'Disconnection',
  'RemoteShutdown',
  'FinalOp',
  'Unimplemented',
  'Shutdown',
  'RemoteError',
  'Internal',
  'StoppedTransfer',
  'CanceledTransfer',
  'Warning',
  'Unknown',
  'QueryAlreadyFinished',
  'QueryStillRunning',
  'NotKnownHost',
  'LoopSelfRequestedHost',
  'QueryRemotelyUnknown',
  'FileNotFound',
  'CommandNotFound',
  'PassThroughMode',
  'Running',
  'IncorrectCommand',
  'FileNotAllowed',
  'SizeNotAllowed',
] as const;

/** Name of an ErrorCode (Java enum constant). */
export type ErrorCodeName = (typeof ERROR_CODE_NAMES)[number];

function row(ordinal: number, char: string, name: ErrorCodeName, meaning: string): ErrorCodeInfo {
  return Object.freeze({ ordinal, char, name, meaning });
}

/** The table indexed by ordinal (spec §14, in order). */
export const ERROR_CODES: readonly ErrorCodeInfo[] = Object.freeze([
  row(0, 'i', 'InitOk', 'initialisation OK (connection, authentication)'),
  row(1, 'B', 'PreProcessingOk', 'pre-processing step OK'),
  row(2, 'X', 'TransferOk', 'transfer step OK'),
  row(3, 'P', 'PostProcessingOk', 'post-processing step OK'),
  row(4, 'O', 'CompleteOk', 'all actions completed'),
  row(5, 'C', 'ConnectionImpossible', 'connection impossible'),
  row(6, 'l', 'ServerOverloaded', 'delayed: capacity exceeded / requests blocked'),
  row(7, 'A', 'BadAuthent', 'bad authentication or not allowed'),
  row(8, 'E', 'ExternalOp', 'pre/post/error task in error'),
  row(9, 'T', 'TransferError', 'transfer in error'),
  row(10, 'M', 'MD5Error', 'block digest or global hash error'),
  row(11, 'D', 'Disconnection', 'disconnection before end'),
  row(12, 'r', 'RemoteShutdown', 'disconnection due to remote shutdown'),
  row(13, 'F', 'FinalOp', 'final operation on the file in error'),
  row(14, 'U', 'Unimplemented', 'function not implemented'),
  row(15, 'S', 'Shutdown', 'shutdown order'),
  row(16, 'R', 'RemoteError', 'error due to remote operation'),
  row(17, 'I', 'Internal', 'internal error'),
  row(18, 'H', 'StoppedTransfer', 'stopped transfer'),
  row(19, 'K', 'CanceledTransfer', 'canceled transfer'),
  row(20, 'W', 'Warning', 'warning during pre or post execution'),
  row(21, '-', 'Unknown', 'unknown status'),
  row(22, 'Q', 'QueryAlreadyFinished', 'restart asked for a transfer already finished'),
  row(23, 's', 'QueryStillRunning', 'restart asked for a transfer still running'),
  row(24, 'N', 'NotKnownHost', 'remote host not known'),
  row(25, 'L', 'LoopSelfRequestedHost', 'a requested host tried to start the request itself'),
  row(26, 'u', 'QueryRemotelyUnknown', 'request unknown on the remote host (e.g. unknown rule)'),
  row(27, 'f', 'FileNotFound', 'file not found'),
  row(28, 'c', 'CommandNotFound', 'command not found'),
  row(29, 'p', 'PassThroughMode', 'action impossible in through mode'),
  row(30, 'z', 'Running', 'step in progress'),
  row(31, 'n', 'IncorrectCommand', 'command incorrectly formed'),
  row(32, 'a', 'FileNotAllowed', 'file not allowed (outside the allowed directory)'),
  row(33, 'd', 'SizeNotAllowed', 'file size not allowed'),
]);

/**
 * Named access to every code, e.g. `ErrorCode.CompleteOk.char === 'O'`. Built from the table so
 * the two can never disagree.
 */
export const ErrorCode: Readonly<Record<ErrorCodeName, ErrorCodeInfo>> = Object.freeze(
  Object.fromEntries(ERROR_CODES.map((c) => [c.name, c])) as Record<ErrorCodeName, ErrorCodeInfo>,
);

const BY_CHAR: ReadonlyMap<string, ErrorCodeInfo> = new Map(ERROR_CODES.map((c) => [c.char, c]));
const BY_NAME: ReadonlyMap<string, ErrorCodeInfo> = new Map(ERROR_CODES.map((c) => [c.name, c]));

/** The code whose character is exactly `ch`, or undefined. */
export function errorCodeFromChar(ch: string): ErrorCodeInfo | undefined {
  return BY_CHAR.get(ch);
}

/** The code with this ordinal (EndRequest header), or undefined when out of range. */
export function errorCodeFromOrdinal(ordinal: number): ErrorCodeInfo | undefined {
  return Number.isInteger(ordinal) ? ERROR_CODES[ordinal] : undefined;
}

/** The code with this Java enum name, or undefined. */
export function errorCodeFromName(name: string): ErrorCodeInfo | undefined {
  return BY_NAME.get(name);
}

/**
 * Parses a code string the way a Java host does (spec §14): empty -> Unknown; the first character
 * looked up in the table; else the whole trimmed string as an enum name (`CompleteOk`); else Unknown.
 */
export function parseErrorCode(text: string | null | undefined): ErrorCodeInfo {
  if (text == null || text.length === 0) return ErrorCode.Unknown;
  const byChar = BY_CHAR.get(text.charAt(0));
  if (byChar) return byChar;
  return BY_NAME.get(text.trim()) ?? ErrorCode.Unknown;
}

/** Codes a command answer counts as success (spec §5.1, §14): `O i P B Q s z X`. */
export const SUCCESS_ANSWER_CHARS: ReadonlySet<string> = new Set(['O', 'i', 'P', 'B', 'Q', 's', 'z', 'X']);

/** True when a command answer with this code means success. */
export function isSuccessAnswer(code: ErrorCodeInfo): boolean {
  return SUCCESS_ANSWER_CHARS.has(code.char);
}
