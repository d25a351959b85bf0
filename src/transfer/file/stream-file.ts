/**
 * Through modes (r66-protocol.md §4 modes 5-8) on the requester: the data comes from an
 * application's Readable (send-through) or goes to its Writable (recv-through) instead of a file,
 * behind the same storage interface as a local file (storage.ts). The wire is the base mode's. A
 * stream cannot seek, so a through transfer always starts at rank 0 and a rewind asked by the
 * partner fails the transfer.
 */
import type { Readable, Writable } from 'node:stream';
import { ErrorCode } from '../../model/error-code.js';
import { R66Error } from '../../model/r66-error.js';
import type { TransferStorage } from './storage.js';

/** What a stream does not do, as the transfer's error. */
function notOnStream(what: string): Promise<never> {
  return Promise.reject(new R66Error(ErrorCode.PassThroughMode, `a through transfer cannot ${what}`));
}

/** Reads a Readable in order as positional reads (positions must follow each other). */
export class StreamSource implements TransferStorage {
  readonly syncsEachWrite = false;
  private readonly chunks: AsyncIterator<Buffer | string>;
  private pending: Buffer | null = null;
  private ended = false;
  private offset = 0;

  constructor(source: Readable) {
    this.chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  }

  /** The buffers filled one after the other, as a file's readv. */
  async readAt(buffers: Buffer[], position: number): Promise<number> {
    if (position !== this.offset) throw new R66Error(ErrorCode.TransferError, `a through transfer reads its stream in order (asked ${position}, at ${this.offset})`);
    let bytesRead = 0;
    for (const b of buffers) {
      const n = await this.fill(b);
      bytesRead += n;
      if (n < b.length) break;
    }
    return bytesRead;
  }

  private async fill(buffer: Buffer): Promise<number> {
    let filled = 0;
    while (filled < buffer.length) {
      if (this.pending === null || this.pending.length === 0) {
        if (this.ended) break;
        const next = await this.chunks.next();
        if (next.done) {
          this.ended = true;
          break;
        }
        this.pending = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        continue;
      }
      const n = Math.min(buffer.length - filled, this.pending.length);
      this.pending.copy(buffer, filled, 0, n);
      this.pending = this.pending.subarray(n);
      filled += n;
    }
    this.offset += filled;
    return filled;
  }

  writeAt(): Promise<void> {
    return notOnStream('write to the stream it sends');
  }

  async sync(): Promise<void> {}

  truncate(): Promise<void> {
    return notOnStream('truncate the stream it sends');
  }

  async size(): Promise<number> {
    return this.offset;
  }

  async close(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      await this.chunks.return?.();
    }
  }

  abort(): Promise<void> {
    return this.close().catch(() => undefined);
  }
}

/** Writes to a Writable in order as positional writes; size() is what it took so far. */
export class StreamSink implements TransferStorage {
  readonly syncsEachWrite = false;
  private offset = 0;
  private failure: Error | null = null;

  constructor(private readonly sink: Writable) {
    sink.on('error', (err) => (this.failure ??= err));
  }

  readAt(): Promise<number> {
    return notOnStream('read back the stream it receives');
  }

  /** One write per buffer, in call order; resolved when the stream took the last (back-pressure). */
  async writeAt(buffers: Buffer[], position: number, total: number): Promise<void> {
    if (this.failure) throw this.failure;
    if (position !== this.offset) {
      throw new R66Error(ErrorCode.TransferError, `a through transfer cannot rewind its stream (block at ${position}, stream at ${this.offset})`);
    }
    this.offset += total;
    for (const b of buffers) {
      await new Promise<void>((resolve, reject) => this.sink.write(b, (err) => (err ? reject(err) : resolve())));
    }
  }

  async sync(): Promise<void> {}

  /** Nothing to cut: the stream holds exactly what was written in order. */
  async truncate(): Promise<void> {}

  async size(): Promise<number> {
    return this.offset;
  }

  close(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.sink.once('error', reject);
      this.sink.end(() => resolve());
    });
  }

  /** Destroyed, not ended: the application must not take a part for the whole. */
  async abort(reason: Error): Promise<void> {
    this.sink.destroy(reason);
  }
}
