/**
 * What logback does to the files a rolling appender has rolled, for the pino-roll files of one
 * appender (docs/logging.md): compression when the `fileNamePattern` ends with `.gz` (gzip) or
 * `.zip` (a zip archive of one entry), `maxHistory` (that many rolled files kept) and
 * `totalSizeCap` (the oldest rolled files deleted while all of them together are larger).
 *
 * pino-roll writes `<base>.<n>.<ext>` and moves to `<n+1>` at each roll; every file of that
 * pattern other than the one it writes is a rolled file. `housekeep(current)` runs after each
 * opening of a file (start and every roll): it compresses each rolled file (streaming, on the main
 * thread's event loop: node:zlib gzip, yazl for zip) to `<file>.gz` / `<file>.zip` through a
 * temporary name, keeps its modification time, deletes the original, then applies the limits,
 * oldest first by modification time. Runs one at a time; failures go to `onError`, never thrown.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, stat, unlink, utimes } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import * as yazl from 'yazl';

export type LogCompression = 'gz' | 'zip';

export interface ArchivePolicy {
  compression?: LogCompression | undefined;
  /** Rolled files kept (the active one not counted); undefined or <= 0 = no limit. */
  maxHistory?: number | undefined;
  /** Bytes all rolled files together may take; undefined or <= 0 = no limit. */
  totalSizeCap?: number | undefined;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** pino-roll's naming of `file`: base without the last extension, the extension (`log` when none). */
export function rollNaming(file: string): { base: string; ext: string } {
  const name = basename(file);
  const dot = name.lastIndexOf('.');
  if (dot < 0) return { base: file, ext: 'log' };
  const ext = name.slice(dot + 1);
  const base = file.slice(0, file.length - ext.length - 1);
  // pino-roll keeps an extension of two characters or more; none at all becomes `log`.
  return { base, ext: ext.length > 1 ? ext : ext === '' ? 'log' : '' };
}

/** A leftover temporary archive of a process that is gone (a client command exits without waiting). */
function orphanTemporary(name: string): boolean {
  const m = /\.(\d+)\.tmp$/.exec(name);
  if (m === null) return false;
  const pid = Number(m[1]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

interface RolledFile { path: string; size: number; mtimeMs: number; number: number; archived: boolean }

export class RolledFiles {
  private readonly dir: string;
  private readonly plain: RegExp;
  private readonly archive: RegExp;
  private readonly temporary: RegExp;
  private running: Promise<void> = Promise.resolve();

  /** `file` is the appender's file as given to pino-roll. */
  constructor(file: string, private readonly policy: ArchivePolicy, private readonly onError: (err: Error, file: string) => void) {
    const { base, ext } = rollNaming(file);
    this.dir = dirname(base);
    const b = escape(basename(base));
    const e = ext === '' ? '' : `\\.${escape(ext)}`;
    this.plain = new RegExp(`^${b}\\.(\\d+)${e}$`);
    this.archive = new RegExp(`^${b}\\.(\\d+)${e}(?:\\.\\d+)?\\.(?:gz|zip)$`);
    this.temporary = new RegExp(`^${b}\\.\\d+${e}(?:\\.\\d+)?\\.(?:gz|zip)\\.\\d+\\.tmp$`);
  }

  /** Whether anything is to be done at all (no compression, no limit: pino-roll alone). */
  get active(): boolean {
    const { compression, maxHistory, totalSizeCap } = this.policy;
    return compression !== undefined || (maxHistory ?? 0) > 0 || (totalSizeCap ?? 0) > 0;
  }

  /** Queues one housekeeping pass with `current` the file being written; resolves when it is done. */
  housekeep(current: string): Promise<void> {
    this.running = this.running.then(() => this.pass(current)).catch((err: unknown) => this.onError(err as Error, this.dir));
    return this.running;
  }

  private async list(current: string): Promise<RolledFile[]> {
    const out: RolledFile[] = [];
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const active = resolve(current);
    for (const name of names) {
      const path = join(this.dir, name);
      if (resolve(path) === active) continue;
      if (this.temporary.test(name) && orphanTemporary(name)) {
        await unlink(path).catch(() => undefined);
        continue;
      }
      const plain = this.plain.exec(name);
      const archived = plain === null ? this.archive.exec(name) : null;
      const m = plain ?? archived;
      if (m === null) continue;
      const s = await stat(path).catch(() => undefined);
      if (s === undefined || !s.isFile()) continue;
      out.push({ path, size: s.size, mtimeMs: s.mtimeMs, number: Number(m[1]), archived: archived !== null });
    }
    return out;
  }

  private async pass(current: string): Promise<void> {
    const { compression } = this.policy;
    if (compression !== undefined) {
      for (const f of await this.list(current)) {
        if (f.archived) continue;
        await this.compress(f.path, compression).catch((err: unknown) => this.onError(err as Error, f.path));
      }
    }
    await this.applyLimits(current);
  }

  /** `<file>.gz` or `<file>.zip`; `<file>.<k>.gz` when an archive of that name exists already (numbering restarted). */
  private async archiveName(file: string, compression: LogCompression): Promise<string> {
    for (let k = 0; ; k++) {
      const name = k === 0 ? `${file}.${compression}` : `${file}.${k}.${compression}`;
      if (await stat(name).then(() => false, () => true)) return name;
    }
  }

  private async compress(file: string, compression: LogCompression): Promise<void> {
    const s = await stat(file);
    const target = await this.archiveName(file, compression);
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      if (compression === 'gz') {
        await pipeline(createReadStream(file), createGzip(), createWriteStream(temporary));
      } else {
        const zip = new yazl.ZipFile();
        zip.addReadStream(createReadStream(file), basename(file), { compress: true, mtime: s.mtime, size: s.size });
        const done = pipeline(zip.outputStream, createWriteStream(temporary));
        zip.end();
        await done;
      }
      await utimes(temporary, s.atime, s.mtime);
      await rename(temporary, target);
    } catch (err) {
      await unlink(temporary).catch(() => undefined);
      throw err;
    }
    await unlink(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  private async applyLimits(current: string): Promise<void> {
    const { maxHistory, totalSizeCap } = this.policy;
    if ((maxHistory ?? 0) <= 0 && (totalSizeCap ?? 0) <= 0) return;
    // Newest first: modification time, then pino-roll's number.
    const files = (await this.list(current)).sort((x, y) => y.mtimeMs - x.mtimeMs || y.number - x.number);
    let total = 0;
    const drop: RolledFile[] = [];
    files.forEach((f, i) => {
      total += f.size;
      if ((maxHistory !== undefined && maxHistory > 0 && i >= maxHistory) || (totalSizeCap !== undefined && totalSizeCap > 0 && total > totalSizeCap)) drop.push(f);
    });
    for (const f of drop) {
      await unlink(f.path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') this.onError(err, f.path);
      });
    }
  }
}
