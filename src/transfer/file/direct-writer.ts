/**
 * Writes of a received file that bypass the page cache (O_DIRECT, decision 0019).
 *
 * A buffered write copies every byte into the page cache, and the kernel writes it back later: on
 * our 2-core bench machine that copy was 30% of the receiving host's CPU in a 1 GiB transfer
 * (`copy_folio_from_iter_atomic` in the thread pool, docs/performance.md "Seventh pass"), and a
 * large file evicted everything else from the cache. With O_DIRECT the device reads the data from
 * our buffer: `dd` wrote 1 GiB here in 0.67 s with 1 MiB direct writes against 2.0 s buffered.
 * Small files pay the copy too, and more per byte when each new page of the cache is a fresh page
 * of the virtual machine: up to half of the receiving host's thread-pool time in 250 KB transfers
 * ("Tenth pass"). Each costs two more file operations (the second handle's open and close) and
 * a truncation of the padding, so files below DIRECT_MIN_BYTES stay buffered.
 *
 * O_DIRECT wants the buffer's address, the file offset and the length aligned to the device's
 * logical block. Socket buffers are not aligned, so each run of blocks is copied into an aligned
 * staging buffer (see `arena`), one copy in user space instead of the kernel's copy and its page
 * accounting. Offsets are aligned when the block size is a multiple of DIRECT_ALIGN; the last short
 * run is padded with zeros and the file truncated to its real end before the final sync (`padded`).
 *
 * Used only where it pays and is safe: a new work file (not a resumed one), announced size of at
 * least DIRECT_MIN_BYTES, a block size multiple of DIRECT_ALIGN. A file system that refuses O_DIRECT
 * (tmpfs, some network file systems) fails the open or the first write with EINVAL: the writer then
 * declines every later run and the caller writes buffered, as before, with nothing lost.
 *
 * A staging buffer is held for one write, not for the file's life: a small file is written once all
 * of it is there, so most of its transfer holds none, and 32 buffers serve far more files in flight
 * than 32 (100 in the bench). A run that finds every buffer in use is written buffered.
 */
import { constants as fsConstants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { envFlag } from '../../config/env-flag.js';

/** Alignment of offsets, lengths and buffers: 4096 covers 512- and 4096-byte logical blocks. */
export const DIRECT_ALIGN = 4096;
/**
 * Smallest announced size written with O_DIRECT. The extra open, close, truncation and sync cost
 * about 0.05-0.1 ms of CPU per file whatever its size (a probe of 64 KiB to 250 KB files, where a
 * page-cache page was cheap); the copy they save costs 0.1-0.2 ms per 250 KB there, 0.7 ms where
 * new pages are dear (this VM after the large transfers: small-concurrent host-b CPU 4.6-5.8 ->
 * 3.5-3.9 s). At 128 KiB the saving, half of that, still outweighs the fixed cost.
 */
export const DIRECT_MIN_BYTES = 128 << 10;
/** Size of one staging buffer: the write window's largest run (receiver.ts WRITE_BATCH_BYTES). */
const STAGING_BYTES = 1 << 20;
/**
 * Staging buffers in the arena: as many direct writes in flight at once (the thread pool runs four
 * file operations at a time; the others wait in its queue, each with its buffer). A run that finds
 * none free is written buffered. Untouched slots cost no memory (the arena is zero pages until
 * written), a used one what was staged in it (up to 1 MiB) that stays resident; the last one given
 * back is the next one taken, so the same few stay in use.
 */
const STAGING_SLOTS = 32;
const WASM_PAGE = 65536;

// The one WebAssembly API used here (the compiler's libraries do not declare it; Node has it).
declare const WebAssembly: { Memory: new (descriptor: { initial: number; maximum?: number }) => { buffer: ArrayBuffer } };

/**
 * One WebAssembly memory holds every staging buffer: its backing store starts on a page boundary,
 * so each 1 MiB slot is aligned. One memory, not one per buffer: V8 reserves about 10 GiB of
 * address space (not memory) around each WebAssembly memory. It never grows (growing would detach
 * the buffers in use). Made on first use; null when it cannot be made (an address-space limit):
 * every file is then written buffered.
 */
let arena: { memory: Buffer; free: number[] } | null | undefined;

function takeStaging(): Buffer | null {
  if (arena === undefined) {
    try {
      const pages = (STAGING_BYTES / WASM_PAGE) * STAGING_SLOTS;
      const memory = Buffer.from(new WebAssembly.Memory({ initial: pages, maximum: pages }).buffer);
      arena = { memory, free: Array.from({ length: STAGING_SLOTS }, (_, i) => STAGING_SLOTS - 1 - i) };
    } catch {
      arena = null;
    }
  }
  const slot = arena?.free.pop();
  if (arena == null || slot === undefined) return null;
  return arena.memory.subarray(slot * STAGING_BYTES, (slot + 1) * STAGING_BYTES);
}

function giveStaging(buffer: Buffer): void {
  if (arena == null) return;
  arena.free.push((buffer.byteOffset - arena.memory.byteOffset) / STAGING_BYTES);
}

/** Bytes and writes this process made around the page cache (what tells a test, or a profile, that it happened). */
export const directWriteCounters = { bytes: 0, writes: 0 };

/**
 * `SVC_R66_DIRECT_WRITES`: 1 (the default) writes large received files around the page cache, 0
 * always through it, as the original does. A value that is neither stops the start (EnvSettingError).
 */
export function directWritesFrom(env: NodeJS.ProcessEnv): boolean {
  return envFlag(env, 'SVC_R66_DIRECT_WRITES') ?? true;
}

/** Whether a received file qualifies for direct writes (see the module comment). */
export function wantsDirectWrites(fresh: boolean, size: number, blockSize: number): boolean {
  return fresh && size >= DIRECT_MIN_BYTES && blockSize > 0 && blockSize % DIRECT_ALIGN === 0;
}

export class DirectWriter {
  private failed = false;
  private closed = false;
  /** End of the data written (without padding), and of the file (with it). */
  private dataEnd = 0;
  private fileEnd = 0;

  private constructor(private readonly handle: FileHandle) {}

  /** A second handle on `file` opened with O_DIRECT, or null when the file system refuses O_DIRECT. */
  static async open(file: string): Promise<DirectWriter | null> {
    try {
      return new DirectWriter(await open(file, fsConstants.O_WRONLY | fsConstants.O_DIRECT));
    } catch {
      return null;
    }
  }

  /**
   * Writes `buffers` (`total` bytes) at `position`; false when this run does not go direct (an
   * unaligned position, a refusal now or earlier, no staging buffer free, the writer closed): the
   * caller then writes it.
   */
  async write(buffers: Buffer[], position: number, total: number): Promise<boolean> {
    if (this.failed || this.closed || position % DIRECT_ALIGN !== 0 || total > STAGING_BYTES) return false;
    const staging = takeStaging();
    if (staging === null) return false;
    try {
      return await this.writeStaged(staging, buffers, position, total);
    } finally {
      giveStaging(staging);
    }
  }

  private async writeStaged(staging: Buffer, buffers: Buffer[], position: number, total: number): Promise<boolean> {
    let at = 0;
    for (const b of buffers) {
      b.copy(staging, at);
      at += b.length;
    }
    const padded = Math.ceil(total / DIRECT_ALIGN) * DIRECT_ALIGN;
    if (padded > total) staging.fill(0, total, padded);
    try {
      let done = 0;
      while (done < padded) {
        const { bytesWritten } = await this.handle.write(staging, done, padded - done, position + done);
        if (bytesWritten <= 0 || bytesWritten % DIRECT_ALIGN !== 0) throw new Error('short direct write');
        done += bytesWritten;
      }
    } catch {
      // EINVAL: the file system or device does not take this write directly; anything else (a full
      // disk...) is the write's real failure, which the buffered write that follows reports. Part of
      // the padding may have reached the file: it is cut like any padding (see padded).
      this.failed = true;
      this.fileEnd = Math.max(this.fileEnd, position + padded);
      return false;
    }
    directWriteCounters.bytes += total;
    directWriteCounters.writes++;
    this.dataEnd = Math.max(this.dataEnd, position + total);
    this.fileEnd = Math.max(this.fileEnd, position + padded);
    return true;
  }

  /**
   * True when the file may extend past the data (a short last run was padded, or a failed direct
   * write may have left part of its padding): it must be truncated to the data's end before its sync.
   */
  get padded(): boolean {
    return this.fileEnd > this.dataEnd;
  }

  /** Closes the direct handle (once; later calls do nothing). No write may be in flight. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close().catch(() => undefined);
  }
}
