/**
 * The sender's reads (design.md §5), from the transfer's storage (file/storage.ts): blocks are read
 * straight into their frame buffers, behind the frame header, a batch of blocks per readAt (one thread-pool round trip for a small file), and the
 * next batch while the current one goes out (disk and socket overlap).
 *
 * A requester that sends can open its reader while it waits for the Request answer
 * (requester.ts): the file's first batch is then read before the answer arrives. The data pump
 * takes it only when the answer kept the block size and the rank it was opened for.
 */
import { DATA_FRAME_PREFIX_SIZE, type R66Digest } from '../protocol/index.js';
import { framePool } from '../protocol/frame-pool.js';
import type { TransferFileSystem, TransferStorage } from './file/storage.js';

/** Bytes read per readv: four 64 KiB blocks (a 250 KB file in one read). */
const READ_BATCH_BYTES = 256 * 1024;

/** One block: its frame buffer (data at DATA_FRAME_PREFIX_SIZE) and its length. */
export interface ReadBlock {
  frame: Buffer;
  bytesRead: number;
}

/** A digest fed the reader's first batch as soon as it was read, and the bytes it covers. */
export interface HashedAhead {
  digest: R66Digest;
  bytes: number;
}

/** Frames filled by one readv; `full` when the file may go on after them. */
interface ReadBatch {
  at: number;
  frames: Buffer[];
  bytesRead: number;
  full: boolean;
}

export class BlockReader {
  private nextRead: Promise<ReadBatch> | null;
  private batch: ReadBatch | null = null;
  private index = 0;
  private readonly perBatch: number;
  private closing: Promise<void> | null = null;
  /** Set by hashFirstBatch(): the digest that holds the first batch. */
  hashedAhead: Promise<HashedAhead | null> | null = null;

  /**
   * `size` (-1 unknown) only bounds the first batches' buffers; the reads go on to the end of the
   * file. `room` is the space kept after each block for its digest.
   */
  constructor(
    private readonly storage: TransferStorage,
    readonly blockSize: number,
    readonly room: number,
    readonly startPosition: number,
    private readonly size: number,
  ) {
    this.perBatch = Math.max(1, Math.floor(READ_BATCH_BYTES / blockSize));
    this.nextRead = this.readBatch(startPosition);
    // A reader dropped before its first block (the answer changed the plan) must not leave an
    // unhandled rejection behind; next() still sees the error.
    this.nextRead.catch(() => undefined);
  }

  /** Opens `file` of `files` and starts reading its first batch at `position`. */
  static async open(files: TransferFileSystem, file: string, blockSize: number, room: number, position: number, size: number): Promise<BlockReader> {
    return new BlockReader(await files.openForReading(file), blockSize, room, position, size);
  }

  /**
   * Feeds the first batch to `digest` as soon as it is read. A requester does it while it waits
   * for the Request answer: for a small file the whole global hash is then done before the data
   * goes out, and the sender's EndTransfer follows its data at once. The data pump goes on with
   * `hashedAhead` (null when the read failed: next() reports the error).
   */
  hashFirstBatch(digest: R66Digest): void {
    const first = this.nextRead;
    if (first === null || this.batch !== null) return;
    this.hashedAhead = first.then(
      (batch) => {
        for (let i = 0; i < batch.frames.length && this.blockLength(batch, i) > 0; i++) {
          digest.update((batch.frames[i] as Buffer).subarray(DATA_FRAME_PREFIX_SIZE, DATA_FRAME_PREFIX_SIZE + this.blockLength(batch, i)));
        }
        return { digest, bytes: batch.bytesRead };
      },
      () => null,
    );
  }

  /** True when next() has a block read already (it will not wait for the disk). */
  get hasReadBlock(): boolean {
    const b = this.batch;
    return b !== null && this.index < b.frames.length && this.index * this.blockSize < b.bytesRead;
  }

  /** The next block, or null at the end of the file. */
  async next(): Promise<ReadBlock | null> {
    const b = this.batch;
    if (b === null || this.index >= b.frames.length || this.index * this.blockSize >= b.bytesRead) {
      if ((b !== null && !b.full) || this.nextRead === null) return null;
      const batch = await this.nextRead;
      this.batch = batch;
      this.index = 0;
      // Ends with the block that fills the batch only partly; a full one may be followed by more.
      this.nextRead = batch.full ? this.readBatch(batch.at + batch.bytesRead) : null;
      this.nextRead?.catch(() => undefined);
      if (batch.bytesRead === 0) return null;
    }
    const batch = this.batch as ReadBatch;
    const frame = batch.frames[this.index] as Buffer;
    const bytesRead = this.blockLength(batch, this.index);
    this.index++;
    return { frame, bytesRead };
  }

  /**
   * Closes the file once the read in flight settled; the returned promise never rejects (a read-only
   * handle has nothing to lose). The data pump does not wait for it: the sender's post-tasks do.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.nextRead?.catch(() => undefined);
      await this.storage.close().catch(() => undefined);
    })();
    return this.closing;
  }

  /** Bytes of block `i` of `batch` (0 past the end of what was read). */
  private blockLength(batch: ReadBatch, i: number): number {
    return Math.max(0, Math.min(this.blockSize, batch.bytesRead - i * this.blockSize));
  }

  private async readBatch(at: number): Promise<ReadBatch> {
    const left = this.size > at ? Math.ceil((this.size - at) / this.blockSize) : 1;
    // From the pool: the sender gives each frame back once the socket wrote it (frame-pool.ts).
    const frames = Array.from({ length: Math.min(this.perBatch, left) }, () => framePool.take(DATA_FRAME_PREFIX_SIZE + this.blockSize + this.room));
    const bytesRead = await this.storage.readAt(frames.map((f) => f.subarray(DATA_FRAME_PREFIX_SIZE, DATA_FRAME_PREFIX_SIZE + this.blockSize)), at);
    return { at, frames, bytesRead, full: bytesRead === frames.length * this.blockSize };
  }
}
