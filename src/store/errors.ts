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
