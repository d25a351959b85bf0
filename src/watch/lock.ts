/**
 * The lock / heartbeat file `<statusfile>.chk` (filewatcher.md §4.2): one watcher per state file.
 *
 * Ours holds the PID of the watcher process and is touched after every scan. At start:
 * - no file: created (exclusively);
 * - a PID that is alive and whose heartbeat is recent: another watcher runs, refused;
 * - a PID that is dead, or a heartbeat older than the takeover delay (the PID was reused after a
 *   reboot): a stale lock, taken over at once;
 * - an empty file (the original's heartbeat carries no PID): the original's procedure, the file is
 *   deleted and the watcher waits 10 × elapse; if it reappeared, another watcher runs.
 */
import { constants } from 'node:fs';
import { mkdir, open, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isAlive } from '../fs/pid-file.js';

export class LockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LockedError';
  }
}

export interface LockOptions {
  /** Scan interval: the original's wait is 10 × elapse. */
  elapseMs: number;
  /** Said when a stale lock is taken over. */
  onTakeover(message: string): void;
  sleep?(ms: number): Promise<void>;
}

export class WatchLock {
  readonly file: string;

  constructor(statusFile: string, private readonly opts: LockOptions) {
    this.file = `${statusFile}.chk`;
  }

  private get staleAfterMs(): number {
    return Math.max(10 * this.opts.elapseMs, 30_000);
  }

  async acquire(): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    if (await this.create()) return;
    const text = await readFile(this.file, 'utf8').catch(() => '');
    const pid = Number.parseInt(text.trim(), 10);
    if (Number.isInteger(pid) && pid > 0) {
      const age = Date.now() - ((await stat(this.file).catch(() => undefined))?.mtimeMs ?? 0);
      if (pid !== process.pid && isAlive(pid) && age < this.staleAfterMs) {
        throw new LockedError(`another watcher (pid ${pid}) uses the state file: ${this.file} is held`);
      }
      this.opts.onTakeover(pid === process.pid || !isAlive(pid)
        ? `stale lock ${this.file} of process ${pid} (no longer running) taken over`
        : `stale lock ${this.file} of process ${pid} (no heartbeat for ${Math.round(age / 1000)} s) taken over`);
      await writeFile(this.file, `${process.pid}\n`);
      return;
    }
    // The original's empty heartbeat: wait and see whether it comes back.
    await rm(this.file, { force: true });
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    await sleep(10 * this.opts.elapseMs);
    if (!(await this.create())) throw new LockedError(`another watcher uses the state file: ${this.file} came back while waiting`);
  }

  /** Exclusive creation with our PID; false when the file exists. */
  private async create(): Promise<boolean> {
    try {
      const fh = await open(this.file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      try {
        await fh.writeFile(`${process.pid}\n`);
      } finally {
        await fh.close();
      }
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  }

  /** After each scan: the heartbeat (recreated if an operator removed it). */
  async beat(): Promise<void> {
    const now = new Date();
    await utimes(this.file, now, now).catch(() => writeFile(this.file, `${process.pid}\n`));
  }

  /** Clean stop: removed, if it is still ours. */
  async release(): Promise<void> {
    const text = await readFile(this.file, 'utf8').catch(() => '');
    if (Number.parseInt(text.trim(), 10) === process.pid) await rm(this.file, { force: true });
  }
}
