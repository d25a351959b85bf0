/**
 * A transfer's file on this host's file system (storage.ts): positional reads and writes through a
 * file handle, with the receiver's two write modes that avoid work on the data path:
 * - direct writes (direct-writer.ts): a new work file of DIRECT_MIN_BYTES or more is written
 *   around the page cache through a second, O_DIRECT handle; this one still syncs, truncates and
 *   closes it, and writes what the direct handle declines;
 * - synced writes: a small new work file is created with O_DSYNC (receiver.ts startWorkFile()), so
 *   each write is its own sync and sync() has nothing left to do.
 * LocalFileSystem (local-file-system.ts) opens and creates them.
 */
import { constants as fsConstants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { DirectWriter } from './direct-writer.js';
import type { CreateOptions, TransferStorage } from './storage.js';

/** Whether this platform has O_DSYNC (Linux and macOS do, Windows does not). */
export const SYNCED_WRITES_AVAILABLE = typeof fsConstants.O_DSYNC === 'number';
/** `wx` with O_DSYNC: each write returns once its data (and the file's size) is on disk. */
const CREATE_SYNCED = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_DSYNC ?? 0);

export class LocalFile implements TransferStorage {
  readonly syncsEachWrite: boolean;
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly fh: FileHandle,
    /** Writes around the page cache while it can; `fh` writes otherwise. */
    private readonly direct: DirectWriter | null,
    /** `fh` was opened with O_DSYNC. */
    synced: boolean,
  ) {
    // The direct handle has no O_DSYNC (its writes may leave the extents and the size to write).
    this.syncsEachWrite = synced && direct === null;
  }

  /** The sender's file, read only. */
  static async openForReading(file: string): Promise<LocalFile> {
    return new LocalFile(await open(file, 'r'), null, false);
  }

  /**
   * A new file (exclusive: `wx`), with O_DSYNC when `synced` asks and the platform has it, and a
   * direct writer beside when `direct` asks (the file qualifies, see wantsDirectWrites()).
   */
  static async create(file: string, opts: CreateOptions): Promise<LocalFile> {
    const synced = opts.synced && SYNCED_WRITES_AVAILABLE;
    const fh = await open(file, synced ? CREATE_SYNCED : 'wx', opts.mode);
    const direct = opts.direct ? await DirectWriter.open(file) : null;
    return new LocalFile(fh, direct, synced);
  }

  /** An existing file (an earlier attempt's work file), reopened to write where the resume starts. */
  static async openForWriting(file: string): Promise<LocalFile> {
    return new LocalFile(await open(file, 'r+'), null, false);
  }

  async readAt(buffers: Buffer[], position: number): Promise<number> {
    return (await this.fh.readv(buffers, position)).bytesRead;
  }

  async writeAt(buffers: Buffer[], position: number, total: number): Promise<void> {
    if (this.direct !== null && (await this.direct.write(buffers, position, total))) return;
    await writeRun(this.fh, buffers, position, total);
  }

  async sync(end?: number): Promise<void> {
    // The zeros a padded direct write left after the data's end go before the sync.
    if (end !== undefined && this.direct?.padded) await this.fh.truncate(end);
    // fdatasync: the data and the size reach the disk; the timestamps fsync adds are not needed.
    if (!this.syncsEachWrite) await this.fh.datasync();
  }

  truncate(length: number): Promise<void> {
    return this.fh.truncate(length);
  }

  async size(): Promise<number> {
    return (await this.fh.stat()).size;
  }

  /** Closes both handles, once; the direct one gives its staging buffer back. No write may be in flight. */
  close(): Promise<void> {
    this.closing ??= Promise.all([this.fh.close(), this.direct?.close()]).then(() => undefined);
    return this.closing;
  }

  async abort(): Promise<void> {
    await this.close().catch(() => undefined);
  }
}

/** Writes `buffers` at `position` as one run, going on after a short write. */
async function writeRun(fh: FileHandle, buffers: Buffer[], position: number, total: number): Promise<void> {
  if (buffers.length === 1) return writeAll(fh, buffers[0] as Buffer, position);
  const { bytesWritten } = await fh.writev(buffers, position);
  if (bytesWritten >= total) return;
  // A short writev (rare: a full disk or a signal): the rest block by block.
  let skip = bytesWritten;
  let at = position;
  for (const b of buffers) {
    if (skip >= b.length) {
      skip -= b.length;
      at += b.length;
      continue;
    }
    await writeAll(fh, b.subarray(skip), at + skip);
    at += b.length;
    skip = 0;
  }
}

async function writeAll(fh: FileHandle, data: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await fh.write(data, done, data.length - done, position + done);
    // A write that takes nothing would be retried for ever (a full or broken file system).
    if (bytesWritten <= 0) throw Object.assign(new Error(`no byte written at ${position + done}`), { code: 'ENOSPC' });
    done += bytesWritten;
  }
}
