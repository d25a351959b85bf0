/**
 * Keeps a running process from dying on a database file that changed under it (issue 21 item 5).
 *
 * In WAL mode SQLite maps the `-shm` file (the WAL index) into memory. When another process
 * truncates that file (an opener that believes itself alone: POSIX locks are lost when any
 * descriptor of the file closes, or the files were deleted and made again), the next access to a
 * page past the new end kills this process with SIGBUS, a signal no handler can recover from. When
 * the database file is deleted or replaced, SQLite goes on writing into the old, unlinked file: every
 * change is lost at the next start, silently.
 *
 * The driver asks check() before it runs anything (at most one look per event-loop turn: a stat of
 * each file, about 2 µs). When the database file or its `-shm` is gone, replaced (another inode) or
 * the `-shm` shorter than this connection saw it, the guard first grows a truncated `-shm` back to
 * its size (zeros, which SQLite reads as a WAL index to rebuild, never a fault), then fails for good:
 * every later query gets the same StoreError naming the file and what happened, so transfers and
 * REST requests are refused with that message while the process stays up and can stop cleanly.
 */
import { accessSync, closeSync, constants, fstatSync, ftruncateSync, openSync, statSync, type Stats } from 'node:fs';
import { StoreError } from '../errors.js';

/** Listeners told of every guard's failure (the server logs it once, as an error). */
const faultListeners = new Set<(err: StoreError) => void>();

/** Calls `listener` when a SQLite database of this process becomes unusable; returns the unsubscribe. */
export function onDatabaseFault(listener: (err: StoreError) => void): () => void {
  faultListeners.add(listener);
  return () => faultListeners.delete(listener);
}

/** SQLite's unit of the WAL index (32 KiB): a -shm file in use is never shorter. */
const SHM_REGION = 32768;

interface Watched {
  path: string;
  ino: number;
  size: number;
}

export class SqliteFileGuard {
  private readonly database: Watched | null;
  private shm: Watched | null = null;
  private failure: StoreError | null = null;
  private lookedThisTurn = false;

  /** `filename`: the database file (`:memory:` and temporary databases have nothing to watch). */
  constructor(private readonly filename: string) {
    const st = filename === '' || filename === ':memory:' ? undefined : statSync(filename, { throwIfNoEntry: false });
    this.database = st === undefined ? null : { path: filename, ino: st.ino, size: st.size };
  }

  /** The failure found, if any. */
  get failed(): StoreError | null {
    return this.failure;
  }

  /**
   * Throws the guard's StoreError when the database's files changed under this connection, or
   * while one of them cannot be written (see lookWritable()).
   */
  check(): void {
    if (this.failure !== null) throw this.failure;
    if (this.database === null) return;
    if (!this.lookedThisTurn) {
      this.lookedThisTurn = true;
      setImmediate(() => (this.lookedThisTurn = false));
      const why = this.look();
      if (why !== null) {
        this.failure = new StoreError(`the database file ${this.filename} ${why} while the server ran: no database work is possible until it is restarted with a good database`);
        for (const listener of faultListeners) listener(this.failure);
        throw this.failure;
      }
      this.lookWritable();
    }
    if (this.blocked !== null) throw this.blocked;
  }

  /** Set while a file of the database cannot be written (lookWritable()). */
  private blocked: StoreError | null = null;

  /** True when a file of the database cannot be written now (looked at afresh): its connection must not even be closed. */
  get unwritable(): boolean {
    if (this.database !== null && this.failure === null) this.lookWritable();
    return this.blocked !== null;
  }

  /**
   * A database file this process may no longer write (mode changed, `chattr +i`, a read-only
   * mount): SQLite would still write its `-shm` through the mapping, and on an immutable file the
   * kernel answers that write with SIGBUS (exit 135, issue 32). Every statement is refused with a
   * StoreError naming the file while it lasts (said once to the listeners), and work goes on once
   * it can be written again. One access() per file and turn (about 1 µs each).
   */
  private lookWritable(): void {
    const db = this.database as Watched;
    for (const file of [db.path, `${db.path}-wal`, `${db.path}-shm`]) {
      try {
        accessSync(file, constants.W_OK);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') continue;
        const first = this.blocked === null;
        this.blocked = new StoreError(`the database file ${file} cannot be written (${code}): no database work is possible until it can be written again`);
        if (first) for (const listener of faultListeners) listener(this.blocked);
        return;
      }
    }
    this.blocked = null;
  }

  /** What changed (a phrase), or null. */
  private look(): string | null {
    const db = this.database as Watched;
    const now = statSync(db.path, { throwIfNoEntry: false });
    if (now === undefined) return 'was deleted';
    if (now.ino !== db.ino) return 'was replaced by another file';
    const shmPath = `${db.path}-shm`;
    const shm = statSync(shmPath, { throwIfNoEntry: false });
    // The -shm is made by the connection's first access in WAL mode; from then on it must stay.
    if (this.shm === null) {
      if (shm === undefined) return null;
      this.shm = { path: shmPath, ino: shm.ino, size: Math.max(shm.size, SHM_REGION) };
    }
    if (shm === undefined) return 'lost its shared-memory file (-shm)';
    if (shm.ino !== this.shm.ino) return 'got another shared-memory file (-shm)';
    // SQLite maps and grows the file by whole regions: a shorter file was cut by someone else.
    if (shm.size < this.shm.size) {
      restoreSize(this.shm);
      return 'had its shared-memory file (-shm) truncated by another process';
    }
    this.shm.size = shm.size;
    return null;
  }
}

/** Grows a truncated file back to the size this process has mapped (only the same inode). */
function restoreSize(w: Watched): void {
  let fd: number | null = null;
  try {
    fd = openSync(w.path, 'r+');
    const st: Stats = fstatSync(fd);
    if (st.ino === w.ino && st.size < w.size) ftruncateSync(fd, w.size);
  } catch {
    // Nothing more can be done: the failure is reported all the same.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
