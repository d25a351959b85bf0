/**
 * The receiver's writes, batched (see WriteWindow), into a transfer's storage (storage.ts).
 */
import type { TransferStorage } from './storage.js';

/** Bytes queued behind the write in flight before the data loop waits (back-pressure on the channel). */
const WRITE_QUEUE_BYTES = 1 << 20;
/** Largest single write: the queue is written in pieces of at most this many bytes. */
export const WRITE_BATCH_BYTES = 1 << 20;

function noop(): void {}

interface QueuedBlock {
  data: Buffer;
  position: number;
  /** Called once the block is written. */
  written: () => void;
}

/**
 * The receiver's file writes: one write in flight at a time, and the blocks that arrive meanwhile
 * written together by the next one (a single writev when their positions follow each other). Writes
 * to one file are serialised by the file system anyway (ext4's inode lock): several in flight only
 * queued in the thread pool, one thread-pool round trip per block; batched, a small file of four
 * blocks takes one. The first failure is reported by the next call.
 *
 * Writing starts at start() (the data loop calls it before it hashes or waits for a packet), at
 * drain() and written(), or once WRITE_BATCH_BYTES are queued: the blocks of one socket read then
 * leave in one writev, before the hash keeps this thread busy. Started at the first block, the
 * rest waited for the hash to end: the completion that issues the next write runs on this thread.
 *
 * `hold`: a small new file (receiver.ts): the blocks wait for drain() or written() and leave in one
 * write. Its storage syncs every write (O_DSYNC, TransferStorage.syncsEachWrite) or writes around the
 * page cache (a device write per call): a sync per early write would cost more than it overlaps.
 * WRITE_BATCH_BYTES queued still start a write (a size announced small that grew by a change).
 */
export class WriteWindow {
  private queue: QueuedBlock[] = [];
  private queuedBytes = 0;
  private running: Promise<void> | null = null;
  private failure: Error | null = null;
  /** Blocks queued and blocks written since the start: the queue is written in order. */
  private queuedCount = 0;
  private writtenCount = 0;
  private waiters: Array<{ count: number; resolve: () => void; reject: (e: Error) => void }> = [];
  /** The data loop, waiting for room in the queue. */
  private roomWaiters: Array<() => void> = [];

  constructor(
    private readonly storage: TransferStorage,
    private readonly hold = false,
  ) {}

  async write(data: Buffer, position: number, written: () => void = noop): Promise<void> {
    if (this.failure) throw this.failure;
    this.queue.push({ data, position, written });
    this.queuedCount++;
    this.queuedBytes += data.length;
    if (this.queuedBytes >= WRITE_BATCH_BYTES) this.begin();
    // Room comes when the pump takes the next run: the loop reads on while that run is written
    // (waiting for the whole queue to be written stopped the reading for 2-5 ms each time).
    while (this.queuedBytes >= WRITE_QUEUE_BYTES && this.running !== null && this.failure === null) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
    if (this.failure) throw this.failure;
  }

  /** Starts writing what is queued, unless held (see the class). */
  start(): void {
    if (!this.hold) this.begin();
  }

  /**
   * Starts writing what is queued (when no write is in flight; else the pump takes it next).
   * Nothing starts after a failure: the pump would then end before its first await, clearing
   * `running` before this assigns it, and drain() would await that settled promise for ever without
   * leaving the microtask queue (a full disk hung the whole server that way, at 100% CPU).
   */
  private begin(): void {
    if (this.queue.length > 0 && this.failure === null) this.running ??= this.pump();
  }

  async drain(): Promise<void> {
    this.begin();
    while (this.running) await this.running;
    if (this.failure) throw this.failure;
  }

  /** Resolves once every block queued so far is written (later ones may still be queued). */
  written(): Promise<void> {
    this.begin();
    if (this.failure) return Promise.reject(this.failure);
    if (this.writtenCount >= this.queuedCount) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ count: this.queuedCount, resolve, reject }));
  }

  /** Writes the queue until it is empty, a run of consecutive blocks per call. */
  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0 && this.failure === null) {
        const run = takeConsecutive(this.queue, WRITE_BATCH_BYTES);
        const bytes = run.reduce((n, b) => n + b.data.length, 0);
        this.queuedBytes -= bytes;
        for (const resolve of this.roomWaiters.splice(0)) resolve();
        const buffers = run.map((b) => b.data);
        const position = (run[0] as { position: number }).position;
        await this.storage.writeAt(buffers, position, bytes);
        for (const b of run) b.written();
        this.writtenCount += run.length;
        const reached = this.waiters.filter((w) => w.count <= this.writtenCount);
        this.waiters = this.waiters.filter((w) => w.count > this.writtenCount);
        for (const w of reached) w.resolve();
      }
    } catch (err) {
      this.failure ??= err as Error;
    } finally {
      this.running = null;
      for (const resolve of this.roomWaiters.splice(0)) resolve();
      if (this.failure) for (const w of this.waiters.splice(0)) w.reject(this.failure);
    }
  }
}

/** Removes and returns the longest run at the head of `queue` whose blocks follow each other on disk. */
function takeConsecutive(queue: QueuedBlock[], maxBytes: number): QueuedBlock[] {
  const first = queue[0] as QueuedBlock;
  let end = first.position + first.data.length;
  let bytes = first.data.length;
  let n = 1;
  while (n < queue.length) {
    const b = queue[n] as QueuedBlock;
    if (b.position !== end || bytes + b.data.length > maxBytes) break;
    end += b.data.length;
    bytes += b.data.length;
    n++;
  }
  return queue.splice(0, n);
}
