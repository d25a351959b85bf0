/**
 * Transfers' files held in memory, behind the same seam as the host's file system (storage.ts
 * TransferFileSystem): a tree of directories and files, each file a growable buffer. An engine
 * given one (TransferEngineOptions.files) sends, receives, resumes and places files without
 * touching a disk; the transfer tests run against it and against the local file system alike, which
 * is what shows the receiver and placement need nothing else (issue 33 item 5).
 *
 * It behaves as node:fs does where the transfer code looks: an open file keeps its data across a
 * rename (like an inode), creating an existing file fails with EEXIST, a missing file or directory
 * with ENOENT, a file where a directory should be with ENOTDIR, a closed file's use with EBADF.
 * Tasks (tasks/) still use the host's file system: a rule whose tasks touch the transferred file
 * needs the local one.
 */
import path from 'node:path';
import type { CreateOptions, TransferFileSystem, TransferStorage } from './storage.js';

/** The bytes of one file: `data` holds `length` bytes and room to grow. */
interface MemoryNode {
  data: Buffer;
  length: number;
}

/** An error as node:fs makes it: `code`, `syscall` and `path` (placement.ts and toR66Error read them). */
function fsError(code: string, syscall: string, file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${syscall} '${file}'`), { code, syscall, path: file });
}

export class MemoryFileSystem implements TransferFileSystem {
  private readonly files = new Map<string, MemoryNode>();
  private readonly directories = new Set<string>([path.parse(path.resolve('/')).root]);

  /** Starts with `directories` made (the rule directories of a test host, for instance). */
  constructor(directories: readonly string[] = []) {
    for (const d of directories) this.makeDirectorySync(d);
  }

  async fileSize(file: string): Promise<number | undefined> {
    return this.files.get(path.resolve(file))?.length;
  }

  async list(dir: string): Promise<string[]> {
    const d = path.resolve(dir);
    if (!this.directories.has(d)) return [];
    const names: string[] = [];
    for (const p of [...this.files.keys(), ...this.directories]) {
      if (p !== d && path.dirname(p) === d) names.push(path.basename(p));
    }
    return names.sort();
  }

  async openForReading(file: string): Promise<TransferStorage> {
    return new MemoryFile(this.existing(file, 'open'), false);
  }

  async create(file: string, opts: CreateOptions): Promise<TransferStorage> {
    const f = path.resolve(file);
    if (this.files.has(f) || this.directories.has(f)) throw fsError('EEXIST', 'open', file);
    this.parentOf(f, 'open');
    const node: MemoryNode = { data: Buffer.alloc(0), length: 0 };
    this.files.set(f, node);
    // A write here is in place once it returns: as durable as this storage gets, whatever `synced`
    // says. The flag is kept so that the receiver batches as it does with a synced local file.
    return new MemoryFile(node, opts.synced);
  }

  async openForWriting(file: string): Promise<TransferStorage> {
    return new MemoryFile(this.existing(file, 'open'), false);
  }

  async rename(from: string, to: string): Promise<void> {
    const [f, t] = [path.resolve(from), path.resolve(to)];
    const node = this.existing(from, 'rename');
    if (this.directories.has(t)) throw fsError('EISDIR', 'rename', to);
    this.parentOf(t, 'rename');
    this.files.delete(f);
    this.files.set(t, node);
  }

  async copy(from: string, to: string): Promise<void> {
    const node = this.existing(from, 'copyfile');
    const t = path.resolve(to);
    if (this.directories.has(t)) throw fsError('EISDIR', 'copyfile', to);
    this.parentOf(t, 'copyfile');
    this.files.set(t, { data: Buffer.from(node.data.subarray(0, node.length)), length: node.length });
  }

  async remove(file: string): Promise<void> {
    this.existing(file, 'unlink');
    this.files.delete(path.resolve(file));
  }

  async makeDirectory(dir: string): Promise<void> {
    this.makeDirectorySync(dir);
  }

  /** Puts `data` in `file` (its directories made): a file to send, as a test or an application has it. */
  put(file: string, data: Buffer | string): void {
    const f = path.resolve(file);
    this.makeDirectorySync(path.dirname(f));
    const bytes = Buffer.from(data);
    this.files.set(f, { data: bytes, length: bytes.length });
  }

  /** A copy of the bytes of `file`; ENOENT when there is none. */
  contentOf(file: string): Buffer {
    const node = this.existing(file, 'open');
    return Buffer.from(node.data.subarray(0, node.length));
  }

  private makeDirectorySync(dir: string): void {
    const d = path.resolve(dir);
    if (this.directories.has(d)) return;
    if (this.files.has(d)) throw fsError('EEXIST', 'mkdir', dir);
    this.makeDirectorySync(path.dirname(d));
    this.directories.add(d);
  }

  private existing(file: string, syscall: string): MemoryNode {
    const f = path.resolve(file);
    const node = this.files.get(f);
    if (node !== undefined) return node;
    throw fsError(this.directories.has(f) ? 'EISDIR' : 'ENOENT', syscall, file);
  }

  /** Checks that the directory of `file` exists (ENOENT, or ENOTDIR when a file stands there). */
  private parentOf(file: string, syscall: string): void {
    const dir = path.dirname(file);
    if (this.directories.has(dir)) return;
    throw fsError(this.files.has(dir) ? 'ENOTDIR' : 'ENOENT', syscall, file);
  }
}

/** One open file of a MemoryFileSystem: reads and writes at positions in its node, like a file handle. */
class MemoryFile implements TransferStorage {
  private closed = false;

  constructor(
    private readonly node: MemoryNode,
    readonly syncsEachWrite: boolean,
  ) {}

  async readAt(buffers: Buffer[], position: number): Promise<number> {
    this.open('read');
    let at = position;
    for (const b of buffers) {
      const n = Math.max(0, Math.min(b.length, this.node.length - at));
      if (n === 0) break;
      this.node.data.copy(b, 0, at, at + n);
      at += n;
      if (n < b.length) break;
    }
    return at - position;
  }

  async writeAt(buffers: Buffer[], position: number, total: number): Promise<void> {
    this.open('write');
    const end = position + total;
    this.ensureRoom(end);
    let at = position;
    for (const b of buffers) {
      b.copy(this.node.data, at);
      at += b.length;
    }
    // Writing past the end leaves zeros in the gap, as a sparse file reads.
    if (end > this.node.length) this.node.length = end;
  }

  async sync(): Promise<void> {
    this.open('fsync');
  }

  async truncate(length: number): Promise<void> {
    this.open('ftruncate');
    this.ensureRoom(length);
    // Bytes beyond a cut read as zeros if the file grows again.
    if (length < this.node.length) this.node.data.fill(0, length, this.node.length);
    this.node.length = length;
  }

  async size(): Promise<number> {
    this.open('fstat');
    return this.node.length;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  async abort(): Promise<void> {
    this.closed = true;
  }

  private open(syscall: string): void {
    if (this.closed) throw fsError('EBADF', syscall, '');
  }

  /** Grows the node's buffer (doubling) to hold `end` bytes; new room is zeros. */
  private ensureRoom(end: number): void {
    if (end <= this.node.data.length) return;
    const grown = Buffer.alloc(Math.max(end, this.node.data.length * 2));
    this.node.data.copy(grown, 0, 0, this.node.length);
    this.node.data = grown;
  }
}
