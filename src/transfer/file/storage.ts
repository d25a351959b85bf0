/**
 * The storage seam of the data path (issue 20 item 4): the one interface the sender's reads and the
 * receiver's writes go through. The protocol code (sender.ts, receiver.ts) knows blocks, ranks and
 * digests; an implementation knows where the bytes live: a local file (local-file.ts: direct writes,
 * O_DSYNC, positional I/O), an application's stream in the through modes (stream-file.ts), and the
 * remote stores that come next (S3, FTP).
 *
 * Positions are byte offsets in the transferred file. A stream implementation accepts them only in
 * order (a through transfer cannot rewind); a rewind fails the transfer with its error.
 *
 * TransferStorage is one open file or stream; TransferFileSystem (below) is where the files are,
 * and opens them (decision 0046).
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

/** How a new file is created (TransferFileSystem.create). */
export interface CreateOptions {
  /** Permission bits (the umask still applies where there is one). */
  mode: number;
  /**
   * Each write durable when it returns, where the storage can (local: O_DSYNC); the storage's
   * `syncsEachWrite` says whether it does.
   */
  synced: boolean;
  /** A large new file: written around the page cache where the storage can (local: O_DIRECT). */
  direct: boolean;
}

/**
 * Where the transfers' files live: the other half of the seam (issue 33 item 5). The receiver and
 * placement (receiver.ts, placement.ts) and the sender's reads do every file operation through
 * it: look a file up, list a directory, open, create, rename, copy, remove, make a directory. The
 * engine takes one at construction (TransferEngineOptions.files): the host's file system
 * (local-file-system.ts) unless told otherwise; memory-file-system.ts holds files in memory.
 *
 * Paths are absolute. Failures are errors with a Node `code` (ENOENT, EEXIST, EXDEV, EISDIR...),
 * `syscall` and `path`, as node:fs gives them: placement.ts decides on the code (a missing
 * directory is made, a rename across devices becomes a copy) and the session turns it into the
 * transfer's error (session.ts toR66Error).
 */
export interface TransferFileSystem {
  /** Size of the regular file `file`; undefined when there is none (missing, or not a file). */
  fileSize(file: string): Promise<number | undefined>;
  /** Names in directory `dir`, none when it does not exist (the expansion of a wildcard). */
  list(dir: string): Promise<string[]>;
  /** Opens the existing file `file` to read (the sender's). */
  openForReading(file: string): Promise<TransferStorage>;
  /** Creates `file` to write: EEXIST when it exists, ENOENT when its directory does not. */
  create(file: string, opts: CreateOptions): Promise<TransferStorage>;
  /** Opens the existing file `file` to write anywhere in it (a work file resumed). */
  openForWriting(file: string): Promise<TransferStorage>;
  /**
   * Renames `from` to `to`, replacing a file there; ENOENT when `from` or the directory of `to`
   * is missing, EXDEV when they lie on two devices. A file open under the old name stays open.
   */
  rename(from: string, to: string): Promise<void>;
  /** Copies `from` to `to`, replacing a file there. */
  copy(from: string, to: string): Promise<void>;
  /** Removes the file `file`; ENOENT when there is none. */
  remove(file: string): Promise<void>;
  /** Makes directory `dir` and the missing ones above it. */
  makeDirectory(dir: string): Promise<void>;
}
