/**
 * Ends of transfers served for a partner (this host the requested side) that the database could
 * not record: its server stopped, its connection broke, its file system was full (issue 32). The
 * row then still says RUNNING with nothing running it. Nobody else writes it (the requester's
 * scheduler settles only its own rows), so the engine keeps these ends and writes each one, as
 * the error it was, once the database takes writes again: tried every RETRY_MS while any is kept.
 *
 * A kept end is dropped when the transfer runs here again (the requester's retry: that attempt
 * writes its own state), when the row is gone or finished, or once written.
 */
import type { Logger } from 'pino';
import type { ErrorCodeInfo } from '../model/error-code.js';
import { UpdatedInfo, type TransferKey } from '../model/transfer.js';
import type { RunnerRepository } from '../store/index.js';
import { runningKey } from './core.js';
import { isIllegalTransition } from './state.js';

const RETRY_MS = 1000;

interface KeptEnd {
  key: TransferKey;
  code: ErrorCodeInfo;
}

export class UnrecordedEnds {
  private readonly kept = new Map<string, KeptEnd>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly runner: RunnerRepository,
    private readonly isRunning: (key: string) => boolean,
    private readonly logger: Logger,
  ) {}

  /** Keeps the end `code` of the transfer `key`, to be written once the database takes writes. */
  keep(key: TransferKey, code: ErrorCodeInfo): void {
    if (this.closed) return;
    this.kept.set(runningKey(key), { key, code });
    this.arm();
  }

  /** How many ends wait to be written. */
  get size(): number {
    return this.kept.size;
  }

  /** Tries to write every kept end now (also run by the timer); never throws. */
  async writeKept(): Promise<void> {
    this.writing ??= this.writeAll().finally(() => (this.writing = null));
    return this.writing;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.timer !== null || this.closed || this.kept.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.writeKept().then(() => this.arm());
    }, RETRY_MS);
    this.timer.unref();
  }

  private async writeAll(): Promise<void> {
    for (const [k, end] of [...this.kept]) {
      // Running again: the new attempt owns the row.
      if (this.isRunning(k)) {
        this.kept.delete(k);
        continue;
      }
      try {
        const row = await this.runner.get(end.key);
        // Looked at again after the read: a retry that started meanwhile owns the row.
        if (row !== undefined && row.updatedInfo === UpdatedInfo.RUNNING && !this.isRunning(k)) {
          await this.runner.move(row, { kind: 'inError', code: end.code });
          this.logger.info({ id: String(end.key.specialId), code: end.code.char }, 'transfer error recorded once the database took writes again');
        }
        this.kept.delete(k);
      } catch (err) {
        if (isIllegalTransition(err)) {
          this.kept.delete(k);
          continue;
        }
        // Still unavailable: the next round tries again (one line per round, not per row).
        this.logger.debug({ err: (err as Error).message, waiting: this.kept.size }, 'transfer errors still not recorded');
        return;
      }
    }
  }
}
