/**
 * Through modes (r66-protocol.md §4 modes 5-8) on the requester: the data comes from an
 * application's Readable (send-through) or goes to its Writable (recv-through) instead of a file.
 * The wire is the base mode's. The data loops keep their file-handle calls: these adapters answer
 * the few the loops make (sequential `read`/`readv`/`write`/`writev`, `datasync`, `sync`, `stat`, `truncate`,
 * `close`). A stream cannot seek, so a through transfer always starts at rank 0 and a rewind asked
 * by the partner fails the transfer.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../net/errors.js';

/** The application stream of a through transfer. */
export type ThroughStream = { source: Readable } | { sink: Writable };

/** Reads a Readable in order as a file handle's positional reads (positions must follow each other). */
export function throughSourceHandle(source: Readable): FileHandle {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let pending: Buffer | null = null;
  let ended = false;
  let offset = 0;
  const handle = {
    async read(buffer: Buffer, at: number, length: number, position: number): Promise<{ bytesRead: number; buffer: Buffer }> {
      if (position !== offset) throw new R66Error(`a through transfer reads its stream in order (asked ${position}, at ${offset})`, ErrorCode.TransferError);
      let filled = 0;
      while (filled < length) {
        if (pending === null || pending.length === 0) {
          if (ended) break;
          const next = await chunks.next();
          if (next.done) {
            ended = true;
            break;
          }
          pending = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
          continue;
        }
        const n = Math.min(length - filled, pending.length);
        pending.copy(buffer, at + filled, 0, n);
        pending = pending.subarray(n);
        filled += n;
      }
      offset += filled;
      return { bytesRead: filled, buffer };
    },
    /** The sender's batched reads: the buffers filled one after the other, as a file's readv. */
    async readv(buffers: Buffer[], position: number): Promise<{ bytesRead: number; buffers: Buffer[] }> {
      let bytesRead = 0;
      for (const b of buffers) {
        const { bytesRead: n } = await handle.read(b, 0, b.length, position + bytesRead);
        bytesRead += n;
        if (n < b.length) break;
      }
      return { bytesRead, buffers };
    },
    async close(): Promise<void> {
      if (!ended) await chunks.return?.();
    },
  };
  return handle as unknown as FileHandle;
}

/** A through sink as the receiver's data loop uses it. */
export type ThroughSink = FileHandle & { readonly written: number; abort(reason: Error): void };

/** Writes to a Writable in order as a file handle's positional writes. */
export function throughSinkHandle(sink: Writable): ThroughSink {
  let offset = 0;
  let failure: Error | null = null;
  sink.on('error', (err) => (failure ??= err));
  const handle = {
    get written(): number {
      return offset;
    },
    write(data: Buffer, from: number, length: number, position: number): Promise<{ bytesWritten: number; buffer: Buffer }> {
      if (failure) return Promise.reject(failure);
      if (position !== offset) {
        return Promise.reject(new R66Error(`a through transfer cannot rewind its stream (block at ${position}, stream at ${offset})`, ErrorCode.TransferError));
      }
      offset += length;
      // Written at once, in call order; resolved when the stream took it (back-pressure).
      return new Promise((resolve, reject) => {
        sink.write(data.subarray(from, from + length), (err) => (err ? reject(err) : resolve({ bytesWritten: length, buffer: data })));
      });
    },
    /** The receiver's batched writes: one write per buffer, in order. */
    async writev(buffers: Buffer[], position: number): Promise<{ bytesWritten: number; buffers: Buffer[] }> {
      let bytesWritten = 0;
      for (const b of buffers) bytesWritten += (await handle.write(b, 0, b.length, position + bytesWritten)).bytesWritten;
      return { bytesWritten, buffers };
    },
    async datasync(): Promise<void> {},
    async sync(): Promise<void> {},
    async stat(): Promise<{ size: number }> {
      return { size: offset };
    },
    async truncate(): Promise<void> {},
    abort(reason: Error): void {
      sink.destroy(reason);
    },
    close(): Promise<void> {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        sink.once('error', reject);
        sink.end(() => resolve());
      });
    },
  };
  return handle as unknown as ThroughSink;
}
