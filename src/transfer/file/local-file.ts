/**
 * A transfer's file on this host's file system (storage.ts): positional reads and writes through a
 * file handle, with the receiver's two write modes that avoid work on the data path:
 * - direct writes (direct-writer.ts): a new work file of DIRECT_MIN_BYTES or more is written
 *   around the page cache through a second, O_DIRECT handle; this one still syncs, truncates and
 *   closes it, and writes what the direct handle declines;
 * - synced writes: a small new work file is created with O_DSYNC (placement.ts createWorkFile), so
 *   each write is its own sync and sync() has nothing left to do.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { DirectWriter } from './direct-writer.js';
import type { TransferStorage } from './storage.js';

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
   * The receiver's work file `file`: `created` is the handle of a file created for this attempt
   * (null: an earlier attempt's file, reopened). `direct`: try direct writes (the file qualifies,
   * see wantsDirectWrites()); `synced`: `created` was opened with O_DSYNC.
   */
  static async forReceiving(file: string, created: FileHandle | null, opts: { direct: boolean; synced: boolean }): Promise<LocalFile> {
    const fh = created ?? (await open(file, 'r+'));
    const direct = opts.direct ? await DirectWriter.open(file) : null;
    return new LocalFile(fh, direct, created !== null && opts.synced);
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
