import type { DialectAdapter } from './dialects/adapter.js';

// Conversions between driver values and model values. Each driver has its own habits (better-sqlite3
// in safe-integer mode gives bigint for every integer, mysql2 gives BIGINT as strings and booleans
// as 0/1, pg gives native booleans and Dates); the repositories go through these few functions only.

/** An INTEGER column value as a JS number. */
export function readInt(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' || typeof v === 'string') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

/** A BIGINT column value as an exact bigint. */
export function readBig(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string') return BigInt(v.trim());
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new RangeError(`BIGINT value ${v} arrived as an inexact number`);
    return BigInt(v);
  }
  return 0n;
}

/** A BOOLEAN column value (true/false, 1/0, '1'/'0'). */
export function readBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'string') return v === '1' || v.toLowerCase() === 'true';
  return false;
}

/** A nullable text column value. */
export function readText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : String(v);
}

/** A boolean as the dialect stores it (PostgreSQL has a type, the others store 0/1). */
export function writeBool(dialect: DialectAdapter, b: boolean): boolean | number {
  return dialect.writeBool(b);
}

/**
 * A timestamp as the dialect stores it. The original writes local wall-clock time without zone
 * (database.md §2); pg and mysql2 already format a Date in local time, SQLite gets the text form.
 */
export function writeTs(dialect: DialectAdapter, d: Date): Date | string {
  return dialect.writeTs(d);
}

/** A TIMESTAMP column value as a Date (text is read as local time). */
export function readTs(v: unknown): Date {
  if (v instanceof Date) return v;
  if (typeof v === 'string') return parseLocalTimestamp(v);
  if (typeof v === 'number' || typeof v === 'bigint') return new Date(Number(v));
  return new Date(0);
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `yyyy-MM-dd HH:mm:ss.SSS` in local time (sorts as text, the form H2 and SQLite print). */
export function formatLocalTimestamp(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Parses `yyyy-MM-dd[ T]HH:mm[:ss[.fff…]]` as local time; returns an invalid Date on other input. */
export function parseLocalTimestamp(text: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/.exec(text.trim());
  if (!m) return new Date(Number.NaN);
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), ms);
}
