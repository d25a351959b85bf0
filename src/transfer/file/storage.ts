/**
 * The storage seam of the data path (issue 20 item 4): the one interface the sender's reads and the
 * receiver's writes go through. The protocol code (sender.ts, receiver.ts) knows blocks, ranks and
 * digests; an implementation knows where the bytes live: a local file (local-file.ts: direct writes,
 * O_DSYNC, positional I/O), an application's stream in the through modes (stream-file.ts), and the
 * remote stores that come next (S3, FTP).
 *
 * Positions are byte offsets in the transferred file. A stream implementation accepts them only in
 * order (a through transfer cannot rewind); a rewind fails the transfer with its error.
 */
export interface TransferStorage {
  /**
   * Reads into `buffers`, filled one after the other, from `position`; resolves the bytes read
   * (fewer than the buffers hold only at the end of the data).
   */
  readAt(buffers: Buffer[], position: number): Promise<number>;
  /** Writes `buffers` (`total` bytes together) at `position`, all of it, or fails. */
  writeAt(buffers: Buffer[], position: number, total: number): Promise<void>;
  /**
   * Makes every completed write durable. `end`, given once the writing is over, is the data's end:
   * what the implementation wrote past it (alignment padding) is cut first.
   */
  sync(end?: number): Promise<void>;
  /** Cuts the data at `length`. */
  truncate(length: number): Promise<void>;
  /** Bytes the data holds now. */
  size(): Promise<number>;
  /** Ends the storage: the last writes are in place (a stream is ended). Later calls do nothing more. */
  close(): Promise<void>;
  /**
   * Ends the storage after a failure: a stream is destroyed (its reader must not take a part for
   * the whole), a file closed and kept for a resume. Never rejects.
   */
  abort(reason: Error): Promise<void>;
  /** True when each write is durable once it returns (sync() has nothing to do for it). */
  readonly syncsEachWrite: boolean;
}
