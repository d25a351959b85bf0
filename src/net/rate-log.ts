/**
 * A warning that may repeat thousands of times a second under attack (a bad frame, a refused
 * connection, a failed REST login) is written at most once per interval and key; the occurrences in
 * between are counted and reported with the next line (`suppressed`), so a flood cannot fill the
 * disk with logs, nor hide that it happens.
 */
import type { Logger } from 'pino';

interface KeyState {
  last: number;
  suppressed: number;
}

/** Keys remembered at most (beyond: the oldest are forgotten, the map stays bounded). */
const MAX_KEYS = 1000;

export class RateLimitedLog {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Logs `msg` at WARN unless `key` was logged less than an interval ago (then only counts it);
   * true when the line was written.
   */
  warn(key: string, fields: Record<string, unknown>, msg: string): boolean {
    return this.write('warn', key, fields, msg);
  }

  /** The same at INFO. */
  info(key: string, fields: Record<string, unknown>, msg: string): boolean {
    return this.write('info', key, fields, msg);
  }

  private write(level: 'warn' | 'info', key: string, fields: Record<string, unknown>, msg: string): boolean {
    const t = this.now();
    const state = this.keys.get(key);
    if (state !== undefined && t - state.last < this.intervalMs) {
      state.suppressed++;
      return false;
    }
    const suppressed = state?.suppressed ?? 0;
    this.keys.delete(key);
    if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value as string);
    this.keys.set(key, { last: t, suppressed: 0 });
    this.logger[level](suppressed > 0 ? { ...fields, suppressed } : fields, msg);
    return true;
  }
}
