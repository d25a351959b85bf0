/**
 * Reusable frame buffers of the data path (design.md §5: "a buffer pool with the frame header
 * written in place"): the sender's frames, and the frames a connection copies out of what it
 * reads (FrameSplitter in frame.ts; net/socket-reads.ts).
 *
 * Each block is read straight into its own frame buffer (block-reader.ts). Allocated per block, a
 * 250 KB file costs four 64 KiB buffers from malloc, freed only when the garbage collector finds
 * them: between two collections tens of MB of dead frames piled up in the C heap, and how many
 * depended on the young generation's size and the collections' timing, so the process' RSS grew
 * over its first thousand transfers (docs/performance.md, "RSS growth of host-a"). A frame comes
 * back here once the socket has written it, and the next block takes it again.
 *
 * Only buffers this pool allocated come back, each by its owner once nothing refers to it; a frame
 * that is never given back (a failed write, a transfer that stopped) is left to the garbage
 * collector like any buffer. At most `maxFreeBytes` of free frames are kept.
 */

/** Free frames kept for reuse: 128 frames of a 64 KiB block, more than 16 small transfers use at once. */
const MAX_FREE_BYTES = 8 * 1024 * 1024;
/**
 * Received frames are taken in sizes rounded up to this step: the last block of each file has a
 * size of its own, and exact sizes would fill the free lists with frames no later file fits.
 */
const RECEIVED_SIZE_STEP = 16 * 1024;

export class FramePool {
  private readonly free = new Map<number, Buffer[]>();
  /** The frames in `free`: one given back twice would be handed to two transfers at once. */
  private readonly isFree = new WeakSet<Buffer>();
  private freeBytes = 0;
  /** Frames this pool allocated (for the tests and the diagnostics). */
  allocated = 0;

  constructor(private readonly maxFreeBytes = MAX_FREE_BYTES) {}

  /** A frame of exactly `size` bytes, contents undefined (like Buffer.allocUnsafe). */
  take(size: number): Buffer {
    const frame = this.free.get(size)?.pop();
    if (frame !== undefined) {
      this.isFree.delete(frame);
      this.freeBytes -= size;
      return frame;
    }
    this.allocated++;
    // Its own memory (never a slice of Node's shared 8 KiB pool): it is handed out again whole.
    return Buffer.allocUnsafeSlow(size);
  }

  /** Frames of takeReceived(), by their memory: giveBack() finds the frame from any view of it. */
  private readonly received = new WeakMap<ArrayBufferLike, Buffer>();

  /**
   * A buffer of `size` bytes for a received frame: a view of a pooled frame of a rounded-up size.
   * What is read from it (a data block) goes back with giveBack() once nothing uses it any more.
   */
  takeReceived(size: number): Buffer {
    const frame = this.take(Math.ceil(size / RECEIVED_SIZE_STEP) * RECEIVED_SIZE_STEP);
    this.received.set(frame.buffer, frame);
    return frame.subarray(0, size);
  }

  /**
   * Gives back the received frame `view` lies in, if it is one of takeReceived()'s: the caller is
   * done with every view of it (its block was written and hashed). Anything else is left to the
   * garbage collector.
   */
  giveBack(view: Buffer): void {
    const frame = this.received.get(view.buffer);
    if (frame !== undefined) this.give(frame);
  }

  /** Gives back a frame from take() that nothing reads or writes any more (its write completed). */
  give(frame: Buffer): void {
    const size = frame.length;
    if (frame.byteOffset !== 0 || frame.buffer.byteLength !== size) return; // not a whole frame of ours
    if (this.isFree.has(frame) || this.freeBytes + size > this.maxFreeBytes) return;
    let list = this.free.get(size);
    if (list === undefined) this.free.set(size, (list = []));
    list.push(frame);
    this.isFree.add(frame);
    this.freeBytes += size;
  }

  /**
   * Drops every free frame (left to the garbage collector). The pool keeps at most `maxFreeBytes`
   * and refuses frames beyond it, so a process whose free lists are full of sizes no one takes any
   * more reuses nothing until this runs; tests that count reuse start from an empty pool with it.
   */
  release(): void {
    this.free.clear();
    this.freeBytes = 0;
  }

  /** Bytes of free frames held. */
  get heldBytes(): number {
    return this.freeBytes;
  }
}

/** The process' pool: frames are plain memory, any transfer of any host can reuse any of them. */
export const framePool = new FramePool();
