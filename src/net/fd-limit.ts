/**
 * The process's open-file limit and what running out of it looks like. Every socket, file and
 * database connection takes a descriptor from one per-process table: the listeners' global cap
 * (connection-gate.ts) stays below the soft RLIMIT_NOFILE with headroom for transfers' files, the
 * database and outgoing connections, and an EMFILE/ENFILE anywhere is logged at ERROR (once per
 * period, process-wide: the table is process-wide) instead of drowning in per-transfer lines.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';

/** Descriptors kept out of the listeners' reach: at least this many, or a quarter of the limit. */
const MIN_HEADROOM = 256;

/**
 * The soft open-file limit of this process (Node raises it to the hard limit at start), read from
 * /proc/self/limits; undefined where that file does not exist (not Linux) or says "unlimited".
 */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const line = text.split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  const n = soft === undefined ? NaN : Number(soft);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Connections every listener together may hold with `limit` descriptors: the limit minus headroom. */
export function connectionCeiling(limit: number): number {
  return Math.max(1, limit - Math.max(MIN_HEADROOM, Math.ceil(limit / 4)));
}

/** The code when `err` (or its cause, or its message) says "too many open files": EMFILE (this process) or ENFILE (the system). */
function exhaustionCode(err: unknown): 'EMFILE' | 'ENFILE' | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown }; message?: unknown } | null;
  for (const code of [e?.code, e?.cause?.code]) if (code === 'EMFILE' || code === 'ENFILE') return code;
  const m = typeof e?.message === 'string' ? /\b(EMFILE|ENFILE)\b/.exec(e.message) : null;
  return (m?.[1] as 'EMFILE' | 'ENFILE' | undefined) ?? undefined;
}

/** True for "too many open files" in this process (EMFILE) or in the system (ENFILE). */
export function isFdExhaustion(err: unknown): boolean {
  return exhaustionCode(err) !== undefined;
}

/** Least interval between two exhaustion lines. */
const REPORT_INTERVAL_MS = 60_000;
let lastReport = -Infinity;
let suppressed = 0;

/**
 * Logs an EMFILE/ENFILE at ERROR, at most once per minute for the process (the occurrences in
 * between are counted in the next line); returns false, logging nothing, for any other error.
 */
export function reportFdExhaustion(logger: Logger, err: unknown, where: string, now = Date.now()): boolean {
  const code = exhaustionCode(err);
  if (code === undefined) return false;
  if (now - lastReport < REPORT_INTERVAL_MS) {
    suppressed++;
    return true;
  }
  lastReport = now;
  const fields = { code, where, limit: openFileLimit(), ...(suppressed > 0 ? { suppressed } : {}) };
  suppressed = 0;
  logger.error(fields, `out of file descriptors (${code}) in ${where}: connections, transfers and the database fail until some close; lower the connection limits of server.xml <security> or raise the open-file limit (docs/security.md)`);
  return true;
}
