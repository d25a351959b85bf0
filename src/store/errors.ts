/**
 * The one error type of the store module. Its message is meant for an operator: it names the
 * database (URL without password) and what went wrong, and never carries a secret. The driver's
 * error, when any, is kept as `cause` for debugging but is not part of the message.
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The driver's message for `err`, with every occurrence of `secret` masked. */
export function describeCause(err: unknown, secret?: string): string {
  let text = err instanceof Error ? err.message : String(err);
  if (err instanceof AggregateError && err.errors.length > 0) {
    // pg/mysql2 report "connect ECONNREFUSED" per address as an AggregateError with an empty message.
    text = err.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ');
  }
  if (!text) text = (err as { code?: string }).code ?? 'unknown error';
  if (secret) text = text.split(secret).join('***');
  return text;
}

/** True when `err` is a primary-key / unique violation, whatever the driver. */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown };
  return e?.code === '23505' || e?.code === 'ER_DUP_ENTRY' || e?.errno === 1062
    || (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY'));
}

/**
 * Driver error codes that mean the database cannot be used now (server stopped or unreachable,
 * connection lost, file unwritable or damaged), as opposed to a statement the database refused (a
 * constraint, a bad value). Node's socket errors, mysql2's, SQLite's (prefixes: every extended code).
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR', 'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN', 'ER_NORMAL_SHUTDOWN', 'ER_SHUTDOWN_COMPLETE', 'ER_LOCK_WAIT_TIMEOUT', 'ER_OPTION_PREVENTS_STATEMENT',
]);
const SQLITE_UNAVAILABLE = /^SQLITE_(READONLY|IOERR|CANTOPEN|FULL|BUSY|LOCKED|CORRUPT|NOTADB|PROTOCOL|PERM)/;
/** PostgreSQL SQLSTATE: class 08 (connection exception), 57P01-57P05 (shutdown, cannot connect now), 53 (resources), 25006 (read-only transaction). */
const PG_UNAVAILABLE = /^(08|57P0|53|25006)/;
/** pg's and mysql2's own messages for a connection that is gone (they carry no code). */
const UNAVAILABLE_MESSAGES = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|closed state|Pool is closed|Connection lost/i;

/**
 * True when `err` says the database is unavailable for now (see UNAVAILABLE_CODES): whoever wrote
 * or read a row then fails its work and tries again later instead of treating it as a bug. A
 * StoreError counts (the store's own errors: a connection that could not be opened, a SQLite file
 * changed under the process).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof StoreError) return true;
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.some(isDatabaseUnavailable);
  const e = err as { code?: unknown; fatal?: unknown; message?: unknown; cause?: unknown } | null | undefined;
  if (e === null || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_CODES.has(code) || SQLITE_UNAVAILABLE.test(code) || (/^[0-9A-Z]{5}$/.test(code) && PG_UNAVAILABLE.test(code))) return true;
  // mysql2 marks every error that ended the connection as fatal.
  if (e.fatal === true) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== err && isDatabaseUnavailable(e.cause);
}
